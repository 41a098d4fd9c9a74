"""numpy and pandas (with pyarrow), loaded first and with the cyclic garbage collector paused.

They create over a million long-lived objects while they load, and the collector would walk
them some 150 times for nothing: measured, a quarter of a second of a fresh process that runs
``import metrics``. It is resumed as it was; in a process that has loaded pandas already (the
app), this does nothing.
"""

import gc

_collecting = gc.isenabled()
gc.disable()
try:
    import pandas  # noqa: F401
finally:
    if _collecting:
        gc.enable()
