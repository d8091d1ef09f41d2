"""Oracle: the config options of issue 24 (item 6) against JAX 0.10.2: `jax_debug_nans` and
`jax_debug_infs` (eagerly, under jit with its op-by-op re-run, under grad/vmap),
`jax_disable_jit` (jit and control flow as Python), `jax_explain_cache_misses`,
`jax_log_compiles`, `jax_default_matmul_precision`, the top-level context managers and
`parse_flags_with_absl`/`config_with_absl`.

Each case runs in both libraries with the option set by the same context manager and must
give JAX's value, exception type and message (the re-run note JAX prints included).
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax.compile import debugging
from helpers.jaxpr_text import canonical

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.oracle

LIBS = [(didax, dnp), (jax, jnp)]


def _outcome(fn: Callable[[], Any]) -> tuple[str, str]:
    try:
        return "value", repr(np.asarray(fn()).tolist())
    except FloatingPointError as e:
        return "FloatingPointError", str(e)


# ----------------------------------------------------------------------------- debug_nans


NAN_CASES = {
    "eager log": lambda m, np_: np_.log(np_.float32(-1.0)),
    "eager div": lambda m, np_: np_.zeros(3) / 0.0,
    "jit log": lambda m, np_: m.jit(lambda x: np_.log(x) * 2)(np_.float32(-1.0)),
    "nested jit": lambda m, np_: m.jit(lambda x: m.jit(np_.log)(x) * 2)(-1.0),
    "grad sqrt": lambda m, np_: m.grad(lambda x: np_.sqrt(x) * 0)(-1.0),
    "grad of jit": lambda m, np_: m.grad(m.jit(lambda x: np_.sqrt(x) * 0))(-1.0),
    "vmap log": lambda m, np_: m.vmap(np_.log)(np_.array([1.0, -1.0])),
    "clean": lambda m, np_: m.jit(lambda x: np_.log(x))(np_.float32(2.0)),
    "ints": lambda m, np_: np_.arange(3) // 1,
    "inf is no nan": lambda m, np_: np_.log(0.0),
}


# How many re-runs didax notes on stdout: one per jitted function whose results hold the nan.
# (JAX prints one more for each eager primitive whose results hold one: its eager ops are
# jitted programs, didax's run in NumPy; so only didax's notes are counted.)
RERUNS = {"jit log": 1, "nested jit": 2, "grad of jit": 1}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", sorted(NAN_CASES))
def test_debug_nans_matches_jax(case, capsys):
    got = []
    for m, np_ in LIBS:
        with m.debug_nans(True):
            got.append(_outcome(lambda m=m, np_=np_: NAN_CASES[case](m, np_)))
        if m is didax:
            notes = capsys.readouterr().out.splitlines()
    assert got[0] == got[1]
    assert notes == [debugging.DEOPTIMIZED] * RERUNS.get(case, 0)
    assert not didax.config.jax_debug_nans  # restored after the `with`


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_debug_nans_names_the_primitive_under_jit(capsys):
    with didax.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"^invalid value \(nan\) encountered in log$"):
            didax.jit(lambda x: dnp.log(x) + 1)(-1.0)
    assert capsys.readouterr().out.count("Calling the de-optimized version.") == 1


def test_debug_nans_not_found_when_re_run():
    # a nan the re-run does not make (here from Python floats): JAX's own explanation
    for m in (didax, jax):
        with m.debug_nans(True), pytest.raises(FloatingPointError) as info:
            m.jit(lambda x: x - x)(float("inf"))
        assert "the de-optimized function did not produce invalid values" in str(info.value)
        assert "jit(<lambda>)" in str(info.value)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("jitted", [False, True])
def test_debug_infs_names_the_primitive(jitted):
    # JAX 0.10.2 (run fresh) raises this same error for both; within a long session its
    # cached eager programs sometimes skip the check, so it is not run side by side here
    f = didax.jit(lambda x: dnp.log(x) + 1) if jitted else dnp.log
    with didax.debug_infs(True):
        with pytest.raises(FloatingPointError, match=r"^invalid value \(inf\) encountered in log$"):
            f(0.0)
        assert np.isnan(float(f(-1.0)))  # a nan is no inf
    assert np.isneginf(float(f(0.0)))


def test_debug_nans_off_by_default():
    assert np.isnan(float(dnp.log(-1.0)))
    assert didax.config.jax_debug_nans is False and didax.debug_nans.value is False


# ----------------------------------------------------------------------------- disable_jit


def _disabled_run(m, np_) -> tuple[list[str], Any]:
    seen: list[str] = []

    def f(x):
        seen.append("tracer" if isinstance(x, (didax.core.Tracer, jax.core.Tracer)) else "value")
        return np_.sin(x) * 2

    with m.disable_jit():
        out = m.jit(f)(np_.float32(1.0))
        m.jit(f)(np_.float32(1.0))
    return seen, out


def test_disable_jit_calls_the_function_as_python():
    (seen_d, out_d), (seen_j, out_j) = (_disabled_run(m, np_) for m, np_ in LIBS)
    assert seen_d == seen_j == ["value", "value"]
    np.testing.assert_allclose(out_d, out_j, rtol=1e-6)
    assert didax.config.jax_disable_jit is False


def test_disable_jit_make_jaxpr_has_no_jit_equation():
    texts = []
    for m, np_ in LIBS:
        with m.disable_jit():
            texts.append(
                canonical(str(m.make_jaxpr(m.jit(lambda x, np_=np_: np_.sin(x) * 2))(1.0)))
            )
    assert texts[0] == texts[1]
    assert "jit" not in texts[0]


def _loops(m, np_) -> tuple[list[str], list[Any]]:
    calls: list[str] = []

    def body(c, x):
        calls.append("scan")
        return c + x, c * x

    def wbody(v):
        calls.append("while")
        return v + 1

    def fbody(i, v):
        calls.append(f"fori {type(i).__name__}")
        return v + i

    lax = m.lax
    with m.disable_jit():
        outs = [
            lax.scan(body, 0.0, np_.arange(3.0)),
            lax.scan(body, 1.0, np_.arange(3.0), reverse=True),
            lax.cond(np_.float32(1.0) > 0, lambda x: x + 1, lambda x: x - 1, 1.0),
            lax.switch(5, [lambda x: x, lambda x: x * 10], 2.0),
            lax.while_loop(lambda v: v < 3, wbody, 0),
            lax.fori_loop(0, 3, fbody, 0),
            lax.fori_loop(3, 3, fbody, 7),
        ]
    return calls, [np.asarray(x).tolist() for x in m.tree_util.tree_leaves(outs)]


def test_disable_jit_runs_control_flow_as_python():
    (calls_d, outs_d), (calls_j, outs_j) = (_loops(m, np_) for m, np_ in LIBS)
    assert calls_d == calls_j
    assert outs_d == outs_j


def test_disable_jit_empty_scan_raises_like_jax():
    for m, np_ in LIBS:
        with m.disable_jit(), pytest.raises(ValueError, match="zero-length scan"):
            m.lax.scan(lambda c, x: (c, x), 0.0, np_.zeros((0,)))


def test_disable_jit_traced_cond_is_staged():
    texts = []
    for m, np_ in LIBS:
        with m.disable_jit():
            f = lambda x, m=m, np_=np_: m.lax.cond(x > 0, np_.sin, np_.cos, x)  # noqa: E731
            texts.append(canonical(str(m.make_jaxpr(f)(1.0))))
    assert texts[0] == texts[1]


# ----------------------------------------------------------------------------- logging


def _misses(m, np_, caplog) -> list[str]:
    def f(x, n=1):
        return x * n

    jf = m.jit(f, static_argnums=1)
    caplog.clear()
    with caplog.at_level(logging.WARNING), m.explain_cache_misses(True):
        jf(np_.ones(3), 1)
        jf(np_.ones(3), 1)  # a hit: nothing logged
        jf(np_.ones(4), 1)
        jf(np_.ones(4, np_.int32), 1)
    texts = [r.getMessage() for r in caplog.records if "TRACING CACHE MISS" in r.getMessage()]
    return [re.sub(r"id=\d+", "id=N", t) for t in texts]


def test_explain_cache_misses_matches_jax(caplog):
    got = _misses(didax, dnp, caplog)
    want = _misses(jax, jnp, caplog)
    assert got == want
    assert len(got) == 3 and "never seen function" in got[0]
    assert "* at x, now f32[4] and before f32[3]" in got[1]


def test_explain_cache_misses_names_the_static_argument(caplog):
    jf = didax.jit(lambda x, n: x * n, static_argnums=1)
    with caplog.at_level(logging.WARNING), didax.explain_cache_misses(True):
        jf(1.0, 1)
        jf(1.0, 2)
    assert "static argument 0: now 2 and before 1" in caplog.records[-1].getMessage()


def test_no_explanation_when_off(caplog):
    with caplog.at_level(logging.WARNING):
        didax.jit(lambda x: x + 1)(1.0)
    assert not caplog.records


def test_log_compiles(caplog):
    got = []
    for m in (didax, jax):
        caplog.clear()
        with caplog.at_level(logging.WARNING), m.log_compiles(True):
            m.jit(lambda x: x + 1)(np.float32(2.0))
        got.append([r.getMessage() for r in caplog.records if r.getMessage().startswith("Comp")])
    assert got[0] == [m.split(". Argument mapping")[0] + "." for m in got[1]]
    assert got[0] == [
        "Compiling jit(<lambda>) with global shapes and types (ShapedArray(float32[]),)."
    ]


# ----------------------------------------------------------------------------- precision


def test_default_matmul_precision_shows_in_the_jaxpr():
    texts = []
    for m, np_ in LIBS:
        with m.default_matmul_precision("highest"):
            a = np_.ones((2, 2))
            texts.append(str(m.make_jaxpr(np_.dot)(a, a)))
        texts.append(str(m.make_jaxpr(np_.dot)(a, a)))  # restored: no precision
    assert texts[:2] == texts[2:]
    assert "Precision.HIGHEST" in texts[0] and "precision" not in texts[1]


def test_config_update_validates_like_jax():
    for m in (didax, jax):
        with pytest.raises(ValueError, match="new enum value must be None or in"):
            m.config.update("jax_default_matmul_precision", "foo")
        m.config.update("jax_default_matmul_precision", "float32")
        assert m.config.jax_default_matmul_precision == "float32"
        m.config.update("jax_default_matmul_precision", None)


def test_states_read_and_restore():
    for name in ("debug_nans", "debug_infs", "log_compiles", "explain_cache_misses"):
        state = getattr(didax, name)
        assert state.value is False
        with state(True):
            assert state.value is True and getattr(didax.config, "jax_" + name) is True
        assert state.value is False
    with didax.enable_x64(True):
        assert dnp.ones(2).dtype == np.float64
    assert dnp.ones(2).dtype == np.float32


def test_absl_hooks_are_accepted():
    assert didax.config.parse_flags_with_absl() is None
    assert didax.config.config_with_absl() is None


# ----------------------------------------------------------------------------- numpy_rank_promotion

_X23, _X3 = np.ones((2, 3), np.float32), np.ones(3, np.float32)
_I23, _I3 = np.full((2, 3), 4, np.int32), np.full(3, 6, np.int32)
RANK_CASES = {
    "add": lambda lib, np_: np_.add(_X23, _X3),
    "operator *": lambda lib, np_: np_.asarray(_X23) * np_.asarray(_X3),
    "divide": lambda lib, np_: np_.divide(_X23, _X3),
    "maximum under jit": lambda lib, np_: lib.jit(np_.maximum)(_X23, _X3),
    "arctan2": lambda lib, np_: np_.arctan2(_X23, _X3),
    "float_power": lambda lib, np_: np_.float_power(_X23, _X3),
    "copysign": lambda lib, np_: np_.copysign(_X23, _X3),
    "fmod": lambda lib, np_: np_.fmod(_X23, _X3),
    "scalar operand": lambda lib, np_: np_.add(_X23, 1.0),
    "same rank, size 1": lambda lib, np_: np_.add(_X23, _X3[None]),
    "where": lambda lib, np_: np_.where(_X23 > 0, _X23, _X3),
    # functions whose JAX body broadcasts inside: JAX names the first op that checks (fmax's
    # `greater`, lcm's `floor_divide` or `multiply`), or none checks (heaviside's `_where`, gcd)
    "fmax": lambda lib, np_: np_.fmax(_X23, _X3),
    "fmin, lower rank first": lambda lib, np_: np_.fmin(_X3, _X23),
    "fmax under jit": lambda lib, np_: lib.jit(np_.fmax)(_X3, _X23),
    "heaviside": lambda lib, np_: np_.heaviside(_X23, _X3),
    "heaviside, lower rank first": lambda lib, np_: np_.heaviside(_X3, _X23),
    "lcm": lambda lib, np_: np_.lcm(_I23, _I3),
    "lcm, lower rank first": lambda lib, np_: np_.lcm(_I3, _I23),
    "lcm under jit": lambda lib, np_: lib.jit(np_.lcm)(_I23[:1], _I3),  # shapes no case traced
    "gcd": lambda lib, np_: np_.gcd(_I3, _I23),
}


def _rank_outcome(lib, np_, case: str, mode: str) -> tuple[str, str]:
    with warnings.catch_warnings(record=True) as caught, lib.numpy_rank_promotion(mode):
        warnings.simplefilter("always")
        try:
            out = np.asarray(RANK_CASES[case](lib, np_))
        except ValueError as e:
            return "ValueError", str(e)
    said = [str(w.message) for w in caught if "rank promotion" in str(w.message)]
    return "value", f"{out.shape} {said}"


@pytest.mark.parametrize("mode", ["allow", "warn", "raise"])
@pytest.mark.parametrize("case", list(RANK_CASES))
def test_numpy_rank_promotion_matches_jax(case, mode):
    got, want = (_rank_outcome(lib, np_, case, mode) for lib, np_ in LIBS)
    assert got == want


def test_numpy_rank_promotion_option_validates_like_jax():
    for lib, _ in LIBS:
        assert lib.numpy_rank_promotion.value == "allow"
        with pytest.raises(
            ValueError, match=r"new enum value must be in \['allow', 'warn', 'raise'\]"
        ):
            lib.config.update("jax_numpy_rank_promotion", "bogus")
        with pytest.raises(TypeError, match="requires an argument"):
            lib.numpy_rank_promotion()
        lib.config.update("jax_numpy_rank_promotion", "raise")
        try:
            with pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'"):
                lib.numpy.add(_X23, _X3)
        finally:
            lib.config.update("jax_numpy_rank_promotion", "allow")


# ----------------------------------------------------------------- jax_disable_most_optimizations

_OPTIMIZING = (  # the debug options JAX 0.10.2's option sets
    "xla_backend_optimization_level",
    "xla_llvm_disable_expensive_passes",
    "xla_test_all_input_layouts",
)


@pytest.fixture
def optimizations_option() -> Any:
    """Restores `jax_disable_most_optimizations` in both libraries to the session's value."""
    before = [lib.config.values["jax_disable_most_optimizations"] for lib, _ in LIBS]
    yield
    for (lib, _), value in zip(LIBS, before, strict=True):
        lib.config.update("jax_disable_most_optimizations", value)


@pytest.mark.parametrize("off", [False, True])
def test_disable_most_optimizations_compiles_with_jax_options(
    off, optimizations_option, monkeypatch
):
    from didax.runtime import executable
    from jax._src import compiler

    for lib, _ in LIBS:
        lib.config.update("jax_disable_most_optimizations", off)
    passed = []

    def compile_and_load(*args: Any) -> Any:
        passed.append(args[2])  # (program, devices, options[, host callbacks])
        return original(*args)

    original = executable._compile_and_load
    monkeypatch.setattr(executable, "_compile_and_load", compile_and_load)
    assert float(didax.jit(lambda x: x * 3.0 + off)(1.0)) == 3.0 + off  # a new program
    theirs = compiler.get_compile_options(num_replicas=1, num_partitions=1)
    [options] = passed
    mine = options.executable_build_options.debug_options
    theirs = theirs.executable_build_options.debug_options
    assert [getattr(mine, name) for name in _OPTIMIZING] == [
        getattr(theirs, name) for name in _OPTIMIZING
    ]
    assert (mine.xla_backend_optimization_level == 0) == off


@pytest.mark.parametrize("value", ["1", "0", "true", "off"])
def test_disable_most_optimizations_starts_from_the_environment_as_jax(value):
    import subprocess
    import sys

    code = (
        "import didax, jax, json; "
        "print(json.dumps([lib.config.values['jax_disable_most_optimizations'] "
        "for lib in (didax, jax)]))"
    )
    env = {**os.environ, "JAX_DISABLE_MOST_OPTIMIZATIONS": value, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    mine, theirs = json.loads(done.stdout.splitlines()[-1])
    assert mine == theirs == (value in ("1", "true"))


def test_inf_and_nan_come_silently_as_in_jax():
    # Eager didax computes with NumPy, which warns on log(0), x / 0, sqrt(-1); JAX computes
    # the same values silently, and so does didax (nan_checks.py's warnings filter). The
    # user's own NumPy code still warns. In a fresh process: pytest sets its own filters.
    script = (
        "import numpy as np, didax, didax.numpy as jnp\n"
        "print(jnp.log(0.0), jnp.array(1.0) / 0.0, jnp.sqrt(-1.0), jnp.log(jnp.zeros(2)))\n"
        "print(didax.jit(jnp.log)(0.0), didax.grad(jnp.sqrt)(0.0))\n"
        "np.log(np.zeros(1))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["-inf", "inf", "nan", "[-inf", "-inf]", "-inf", "inf"]
    warned = [line for line in out.stderr.splitlines() if "Warning" in line]
    assert warned == ["<string>:4: RuntimeWarning: divide by zero encountered in log"], warned
