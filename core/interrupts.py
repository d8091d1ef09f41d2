"""Ctrl-C (SIGINT) held back while jaxlib must not be interrupted.

Python runs a signal's handler in the main thread, between bytecodes or wherever C code calls
`PyErr_CheckSignals`; the default SIGINT handler raises KeyboardInterrupt there. Two places
in jaxlib do not survive that: its `compile_and_load` answers a SIGINT within ~0.2 s but
leaves XLA compiling on a thread of the client's pool that nothing waits for (a process that
exits, or a client that is freed, while it runs segfaults), and a KeyboardInterrupt raised
while one of its extension modules is first imported escapes module initialisation as a C++
exception (`terminate`, the process aborts). Around those, `held()` records the signal and
raises it when the work is done: the interrupt costs the rest of that compile or import.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Run the body with SIGINT's Python handler replaced by one that only records the
    signal; then restore it and, if a signal came, call it (the default one raises
    KeyboardInterrupt). Outside the main thread no handler runs (nothing to hold), and a
    handler that is not Python's (`SIG_DFL`, `SIG_IGN`) is left alone."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return
    frames: list[Any] = []
    signal.signal(signal.SIGINT, lambda _signum, frame: frames.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if frames:
            previous(signal.SIGINT, frames[0])
