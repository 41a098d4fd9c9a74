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
    """The pandas module, imported on first call as described above (any thread may call)."""
    with _lock:
        fresh = "pandas" not in sys.modules  # else loaded, or loading (the import waits)
        pause = fresh and gc.isenabled()
        if pause:
            gc.disable()
        try:
            import pandas
        finally:
            if pause:
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
