"""jaxlib's recording of a Python traceback for every array and program it makes (the option
`didax_jaxlib_tracebacks`, runtime/client.py). didax reads none, so its client turns the
recording off when it starts, unless `jax` (which reads them: its source locations) is
imported by then; the option on, or `DIDAX_JAXLIB_TRACEBACKS=1`, leaves jaxlib's switch as it
is. The switch is the process's, so each case that starts a client runs in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys

import didax
import pytest
from didax.config import Config

# `python -c SCRIPT [on|off] [jax-first]` prints: jaxlib's switch before didax started, after
# a jitted call, whether the call's result (its jaxlib array) carries a traceback, and whether
# a JAX jaxpr made then knows the line of its `sin`
SCRIPT = """
import sys
import jaxlib._jax as xla
before = xla.tracebacks_enabled()
if "jax-first" in sys.argv:
    import jax
import didax
if sys.argv[1] in ("on", "off"):
    didax.config.update("didax_jaxlib_tracebacks", sys.argv[1] == "on")
y = didax.jit(lambda x: x + 1.0)(didax.numpy.ones(3))
import jax
def sin(x):
    return jax.numpy.sin(x)
text = jax.make_jaxpr(sin)(1.0).pretty_print(source_info=True)
print(before, xla.tracebacks_enabled(), y._buffer.traceback is not None, "<string>" in text)
"""


def _run(*args: str, **variables: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "DIDAX_JAXLIB_TRACEBACKS"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, *(args or ["default"])],
        capture_output=True,
        text=True,
        check=True,
        env=env | variables,
    )
    return out.stdout.strip()


def test_the_client_turns_jaxlibs_tracebacks_off() -> None:
    # what it saves: `python benchmarks/bench_jit.py tracebacks --cpu` (README);
    # JAX imported after that finds them off: its jaxprs have no source locations
    assert _run() == "True False False False"
    assert _run("off") == "True False False False"


def test_a_process_that_has_imported_jax_keeps_them() -> None:
    assert _run("default", "jax-first") == "True True True True"
    assert _run("off", "jax-first") == "True True True True"


def test_the_option_on_leaves_jaxlibs_switch_alone() -> None:
    assert _run("on") == "True True True True"
    assert _run(DIDAX_JAXLIB_TRACEBACKS="1") == "True True True True"


def test_the_option_is_read_when_the_client_starts() -> None:
    didax.devices()  # this process's client has started: the option is locked
    with pytest.raises(RuntimeError, match="didax_jaxlib_tracebacks config should be"):
        didax.config.update("didax_jaxlib_tracebacks", True)
    config = Config()  # a fresh one: a flag, as JAX's boolean options
    config.update("didax_jaxlib_tracebacks", 1)
    assert config.read("didax_jaxlib_tracebacks") is True
    config.update("didax_jaxlib_tracebacks", "")
    assert config.read("didax_jaxlib_tracebacks") is False
