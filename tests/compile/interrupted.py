"""Run by test_interrupt.py in a fresh process: send this process a SIGINT (Ctrl-C) some
seconds into a piece of work, then check the state is clean and jit still works, and exit
normally. The work (`PHASE`):
- `compile`: XLA compiling a lowered program (about 1 s of compile);
- `load`: the first use of a device (`didax.devices()`), which loads jaxlib (~0.2 s);
- `call`: a first jitted call, which loads jaxlib, traces, lowers, compiles and runs;
- `run`: a compiled program running (about 0.5 s).

    python interrupted.py PHASE SECONDS

Prints one JSON line: whether a KeyboardInterrupt came and the last three functions it was
raised through,
whether the trace state is back to eager, and the values of next jitted calls (a new
function, and the interrupted one with its expected values)."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import traceback

import didax
import didax.numpy as jnp
import numpy as np
from didax import core, lax

STEPS = 300  # about 1 s of XLA compile on one core: longer than jaxlib takes to answer a SIGINT


def chain(x):
    for _ in range(STEPS):
        x = jnp.sin(x) * x + jnp.cos(x)
    return x


def matmuls(x):
    return lax.fori_loop(0, 1000, lambda _, y: jnp.tanh(y @ y), x)


def _numpy(phase: str, x: np.ndarray) -> np.ndarray:
    if phase == "load":
        return np.sin(x)
    for _ in range(STEPS):
        x = np.sin(x) * x + np.cos(x)
    return x


def main(phase: str, seconds: float) -> None:
    # Ctrl-C raises KeyboardInterrupt, as in an interactive Python (a process started in the
    # background of a shell without job control inherits SIGINT ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    x = jnp.linspace(0.0, 1.0, 8)
    f, arg, work = didax.jit(chain), x, None
    if phase == "load":
        f, work = didax.jit(jnp.sin), didax.devices
    elif phase == "run":
        f, arg = didax.jit(matmuls), jnp.ones((256, 256)) / 256
    elif phase == "compile":
        work = f.lower(x).compile
    expected = np.asarray(f(arg)) if phase == "run" else _numpy(phase, np.asarray(x))
    if work is None:
        work = lambda: f(arg).block_until_ready()  # noqa: E731
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    where = None
    try:
        timer.start()
        work()
        timer.join()
        time.sleep(1.0)  # a signal that came after the work is handled here at the latest
    except KeyboardInterrupt as e:
        where = ">".join(frame.name for frame in traceback.extract_tb(e.__traceback__)[-3:])
    timer.join()
    again = np.asarray(f(arg))
    report = {
        "interrupted_in": where,
        "eager_state": core.trace_state() is core.EAGER_STATE,
        "next": didax.jit(lambda y: y * 2.0 + 1.0)(x).tolist(),
        "again_matches": bool(np.allclose(again, expected, rtol=1e-5, atol=1e-6)),
    }
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
