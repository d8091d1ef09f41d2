"""Run by test_default_device.py and test_transfer_guard.py in a fresh process with 4 CPU
devices (XLA_FLAGS from the environment): one case of where values land, or of what a
transfer guard lets through, on one library, printed as one JSON line.

    python placement_cases.py LIBRARY CASE

LIBRARY is `didax` or `jax`; CASE one of `CASES` below.
"""

from __future__ import annotations

import importlib
import json
import logging
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

M = importlib.import_module(sys.argv[1])
jnp = importlib.import_module(sys.argv[1] + ".numpy")
D = M.devices()


def where(x: Any) -> list[Any]:
    """An Array's devices (ids), whether it is committed, and its value."""
    return [sorted(d.id for d in x.devices()), bool(x.committed), np.asarray(x).tolist()]


def error(fn: Callable[[], Any]) -> list[str] | str:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are the result
        return [type(e).__name__, str(e)]
    return "no error"


# ----------------------------------------------------------------------------- default device


def context() -> dict[str, Any]:
    f = M.jit(lambda x: x * 2.0)
    out = {}
    with M.default_device(D[1]):
        a = jnp.ones(3)
        out["ones"] = where(a)
        out["asarray"] = where(jnp.asarray(np.arange(3.0)))
        out["array_list"] = where(jnp.array([1.0, 2.0]))
        out["device_put"] = where(M.device_put(np.ones(2, np.float32)))
        out["eager_add"] = where(a + 1.0)
        out["eager_negative"] = where(-a)
        out["jit_numpy"] = where(f(np.ones(3, np.float32)))
        out["jit_eager"] = where(f(a))
        out["scalar"] = where(jnp.float32(2.0))
        out["sharding"] = repr(a.sharding)
    out["after"] = where(a)
    out["after_add"] = where(a + 1.0)
    out["after_jit"] = where(f(a))
    out["after_mixed"] = where(a + jnp.zeros(3))
    return out


def committed() -> dict[str, Any]:
    f = M.jit(lambda x, y: x * y)
    g = M.device_put(np.arange(3.0, dtype=np.float32), D[2])
    out = {"put": where(g), "sharding": repr(g.sharding)}
    out["eager"] = where(g + 1.0)
    out["eager_unary"] = where(-g)
    out["jit"] = where(f(g, jnp.ones(3)))
    out["jit_numpy"] = where(f(g, np.ones(3, np.float32)))
    with M.default_device(D[1]):
        out["jit_under_other"] = where(f(g, jnp.ones(3)))
        out["eager_under_other"] = where(g * 2.0)
    first = M.device_put(np.ones(2, np.float32), D[0])
    out["first"] = where(first)
    out["first_again_is_same"] = M.device_put(first, D[0]) is first
    out["none_is_same"] = M.device_put(g) is g
    return out


def config_update() -> dict[str, Any]:
    out = {"start": M.config.jax_default_device}
    M.config.update("jax_default_device", D[3])
    out["value"] = repr(M.config.jax_default_device)
    out["ones"] = where(jnp.ones(2))
    out["jit"] = where(M.jit(lambda x: x - 1.0)(np.ones(2, np.float32)))
    M.config.update("jax_default_device", None)
    out["reset"] = where(jnp.ones(2))
    with M.default_device("cpu"):
        out["platform"] = where(jnp.ones(2))
    return out


def jit_cache() -> dict[str, Any]:
    # a program compiled (and cached) for the first device is not reused for another
    f = M.jit(lambda x: x + 1.0)
    x = np.arange(3.0, dtype=np.float32)
    out = {"first": where(f(x)), "first_eager": where(f(jnp.asarray(x)))}
    with M.default_device(D[2]):
        out["under"] = where(f(x))
        out["under_again"] = where(f(x))
        out["under_eager"] = where(f(jnp.ones(3)))
    out["back"] = where(f(x))
    with M.default_device(D[3]):
        out["other"] = where(f(x))
    return out


def aot_and_donation() -> dict[str, Any]:
    f = M.jit(lambda x: x * 3.0)
    d = M.jit(lambda x: x + 1.0, donate_argnums=0)
    x = np.arange(3.0, dtype=np.float32)
    out = {}
    with M.default_device(D[2]):
        out["compiled"] = where(f.lower(x).compile()(x))
        out["donated"] = where(d(jnp.ones(3)))
        out["donated_numpy"] = where(d(x))
    g = M.device_put(x, D[3])
    out["compiled_committed"] = where(f.lower(g).compile()(g))
    out["donated_committed"] = where(d(g))  # (g is deleted)
    return out


def errors() -> dict[str, Any]:
    def gpu() -> None:
        with M.default_device("gpu"):
            jnp.ones(2).block_until_ready()

    def no_argument() -> None:
        with M.default_device():
            pass

    a = M.device_put(np.ones(3, np.float32), D[1])
    b = M.device_put(np.ones(3, np.float32), D[2])
    out = {
        "gpu": error(gpu),
        "integer": error(lambda: M.config.update("jax_default_device", 3)),
        "no_argument": error(no_argument),
        "jit_incompatible": error(lambda: M.jit(lambda x, y: x + y)(a, b)),
    }
    eager = error(lambda: a * b)  # (JAX names jnp.multiply's parameters, didax the operands)
    out["eager_incompatible"] = [eager[0], eager[1].split(" Got ")[0]]
    out["integer"][1] = out["integer"][1].replace("didax", "jax")
    return out


# ----------------------------------------------------------------------------- transfer guards

LEVELS = ["allow", "log", "disallow", "log_explicit", "disallow_explicit"]


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def guard_transfers() -> dict[str, Any]:
    """Per guard and level: which transfers raise (type, message) or pass."""
    f = M.jit(lambda a: a * 2.0)
    x = jnp.arange(3.0)
    on1 = M.device_put(np.ones(3, np.float32), D[1])
    host = np.ones(3, np.float32)
    f(x), f(host), f(1.0), M.device_put(host), M.device_put(x, D[1])  # compiled, warm
    x + host, x * 2.0, x * np.float32(2.0), jnp.sin(host), on1 + host, x[np.array([0, 2])]
    transfers: dict[str, Callable[[], Any]] = {
        "jit_numpy": lambda: f(host),
        "jit_python_scalar": lambda: f(1.0),
        "jit_numpy_scalar": lambda: f(np.float32(1.0)),
        "jit_array": lambda: f(x),
        "asarray_numpy": lambda: jnp.asarray(host),
        "array_list": lambda: jnp.array([1.0, 2.0]),
        # a NumPy constant while tracing is part of the program, not a transfer
        "traced_asarray": lambda: M.jit(lambda a: a + jnp.asarray(host))(x),
        "make_jaxpr_asarray": lambda: M.make_jaxpr(lambda a: a + jnp.asarray(host))(x),
        # an eager operation's host operands: JAX puts them on the device (didax guards them
        # as if it did, computing on the host)
        "eager_numpy_operand": lambda: x + host,
        "eager_python_scalar": lambda: x * 2.0,
        "eager_numpy_scalar": lambda: x * np.float32(2.0),
        "eager_function_of_numpy": lambda: jnp.sin(host),
        "eager_lax_of_numpy": lambda: M.lax.add(x, host),
        "eager_numpy_index": lambda: x[np.array([0, 2])],
        "eager_beside_committed": lambda: on1 + host,
        "device_put_numpy": lambda: M.device_put(host),
        "device_put_scalar": lambda: M.device_put(1.0),
        "device_put_numpy_to_device": lambda: M.device_put(host, D[1]),
        "device_put_other_device": lambda: M.device_put(x, D[1]),
        "device_put_same_device": lambda: M.device_put(x, D[0]),
        "jit_moves_uncommitted": lambda: f(on1_uncommitted),
        "jit_committed_elsewhere": lambda: f(on1),
        "np_asarray": lambda: np.asarray(f(x)),
        "float": lambda: float(M.jit(lambda a: a.sum())(x)),
        "item": lambda: M.jit(lambda a: a.sum())(x).item(),
        "device_get": lambda: M.device_get(f(x)),
    }
    with M.default_device(D[1]):
        on1_uncommitted = jnp.ones(3) * 1.0
        on1_uncommitted.block_until_ready()
    f(on1_uncommitted)  # compiled for it before guarding
    out: dict[str, Any] = {}
    for guard in [
        "transfer_guard",
        "transfer_guard_host_to_device",
        "transfer_guard_device_to_device",
        "transfer_guard_device_to_host",
    ]:
        for level in LEVELS:
            row = {}
            for name, fn in transfers.items():
                with getattr(M, guard)(level):
                    row[name] = error(fn)
            out[f"{guard}({level})"] = row
    return out


def guard_logs() -> dict[str, Any]:
    """What "log_explicit" logs (didax: the `didax` logger; JAX: C++'s log, read by the
    test from stderr)."""
    records = Records()
    logging.getLogger("didax").addHandler(records)
    f = M.jit(lambda a: a * 2.0)
    host = np.ones(3, np.float32)
    f(host), M.device_put(host)
    with M.transfer_guard("log_explicit"):
        M.device_put(host)
    with M.transfer_guard("log"):
        M.device_put(host)  # explicit: not logged
    return {"messages": records.messages}


def guard_config() -> dict[str, Any]:
    f = M.jit(lambda a: a * 2.0)
    host = np.ones(3, np.float32)
    f(host)
    out: dict[str, Any] = {"bad_level": error(lambda: M.config.update("jax_transfer_guard", "no"))}

    def bad_context() -> None:
        with M.transfer_guard("no"):
            pass

    out["bad_context"] = error(bad_context)
    M.config.update("jax_transfer_guard", "disallow")
    out["values"] = [
        M.config.jax_transfer_guard,
        M.config.jax_transfer_guard_host_to_device,
        M.config.jax_transfer_guard_device_to_device,
        M.config.jax_transfer_guard_device_to_host,
    ]
    out["jit_numpy"] = error(lambda: f(host))
    with M.transfer_guard_host_to_device("allow"):
        out["inner_allow"] = error(lambda: f(host))
    M.config.update("jax_transfer_guard", None)
    out["reset"] = error(lambda: f(host))
    M.config.update("jax_transfer_guard_host_to_device", "disallow")
    with M.transfer_guard("allow"):
        out["general_allow"] = error(lambda: f(host))
    out["restored"] = error(lambda: f(host))
    return out


CASES = {
    "context": context,
    "committed": committed,
    "config_update": config_update,
    "jit_cache": jit_cache,
    "aot_and_donation": aot_and_donation,
    "errors": errors,
    "guard_transfers": guard_transfers,
    "guard_logs": guard_logs,
    "guard_config": guard_config,
}

if __name__ == "__main__":
    print(json.dumps(CASES[sys.argv[2]]()))
