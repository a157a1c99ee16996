"""simt - Python client of simtd, the analytical GPU performance model.

Two ways to use it:

    import simt
    simt.connect("http://127.0.0.1:8080")          # or $SIMT_SERVER; token= or $SIMT_TOKEN
    simt.occupancy("h200-sxm", block_size=256, registers_per_thread=64)

    c = simt.Client("http://127.0.0.1:8080")        # several daemons at once
    sweep = c.occupancy_sweep("h200-sxm", "block_size", registers_per_thread=64)
    sweep.to_dataframe()                             # when pandas is installed

Every module-level function is the default Client's method of the same name
(one per endpoint; keyword arguments named as the request fields). Errors
raise SimtError with .status, .code, .message, .field and .body.
"""
import functools
import inspect

from .client import DEFAULT_SERVER, Client, SimtConnectionError, SimtError, SweepResult, TransformerResult

__version__ = "0.1.0"

ENDPOINTS = ("healthz", "openapi", "gpus", "gpu", "occupancy", "occupancy_sweep", "launch_suggest", "roofline",
             "coalescing", "banks", "constant", "latency_hiding", "divergence", "kernel", "gemm", "collective",
             "transformer", "models", "compare", "get", "post", "request")

_default = None


def connect(server=None, timeout=30.0, token=None):
    """Sets (and returns) the Client the module-level functions use."""
    global _default
    _default = Client(server, timeout, token)
    return _default


def default_client():
    """The Client the module-level functions use (created on first use)."""
    global _default
    if _default is None:
        _default = Client()
    return _default


def _module_function(name):
    method = getattr(Client, name)

    @functools.wraps(method)
    def call(*args, **kwargs):
        return getattr(default_client(), name)(*args, **kwargs)

    call.__qualname__ = name
    call.__module__ = __name__
    signature = inspect.signature(method)
    call.__signature__ = signature.replace(parameters=list(signature.parameters.values())[1:])
    return call


for _name in ENDPOINTS:
    globals()[_name] = _module_function(_name)
del _name

__all__ = ["Client", "SimtError", "SimtConnectionError", "SweepResult", "TransformerResult", "DEFAULT_SERVER", "connect",
           "default_client"] + list(ENDPOINTS)
