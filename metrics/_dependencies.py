"""Loading pandas (with numpy and pyarrow), on first need, and cheaply.

``import metrics`` does not load pandas (see ``metrics/__init__.py``): ``read_run`` loads it
while pyarrow parses the file (``metrics.io.trec``), everything else when first used.

pandas creates some 60,000 long-lived objects while it loads; the cyclic garbage collector
would walk them in several collections (young, then middle generation) for nothing: about
0.05 s of a fresh process. They are loaded with the collector paused and then moved straight to
the oldest generation (``gc.freeze`` then ``gc.unfreeze``: nothing is scanned, and everything
stays collectable). In a process that has loaded pandas already (the app), this does nothing.
"""

import gc
import sys
import threading

_lock = threading.Lock()


def load_pandas():
    """The pandas module, imported on first call (safe from several threads at once)."""
    pandas = sys.modules.get("pandas")
    if pandas is not None and not getattr(pandas.__spec__, "_initializing", False):
        return pandas
    with _lock:
        collecting = gc.isenabled()
        gc.disable()
        try:
            import pandas
        finally:
            if collecting:
                gc.freeze()    # everything alive now, pandas' objects included ...
                gc.unfreeze()  # ... to the oldest generation, without a scan
                gc.enable()
    return pandas


def while_pandas_loads(task):
    """``task()``, run while pandas loads on a second thread if it has not been loaded yet
    (``task`` should spend its time in code that lets go of the GIL, as pyarrow's parsers)."""
    if "pandas" in sys.modules:
        return task()
    from metrics._hashing import in_parallel

    return in_parallel([task, load_pandas])[0]
