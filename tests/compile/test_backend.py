"""The jaxlib bridge: loaded only on first use (never by `import didax`, never `jax`),
device buffers of every dtype didax computes in, `device_put`, `devices`,
`block_until_ready`."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import didax
import didax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from didax import api_util, array_runtime, pretty, tree_util
from didax.interpreters import stepping
from didax.numpy import indexing
from didax.runtime import client, plugins

DTYPES = [
    np.float32,
    np.float16,
    ml_dtypes.bfloat16,
    np.int32,
    np.int8,
    np.uint8,
    np.uint32,
    np.bool_,
]


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_import_didax_loads_no_jaxlib_and_no_jax() -> None:
    modules = _run(
        "import sys, didax, didax.numpy; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('jaxlib', 'jax')))"
    )
    assert modules == "[]"


def test_import_didax_loads_no_logging_and_no_tempfile() -> None:
    # (~3 ms each of `import didax`'s ~150: loaded by the first log record, the first
    # compile's stderr filter; a log record still reaches the `didax` logger)
    modules = _run(
        "import sys, didax; loaded = [m for m in ('logging', 'tempfile') if m in sys.modules]\n"
        "import logging; logging.getLogger('didax').addHandler(h := logging.Handler())\n"
        "h.emit = lambda r: print(r.levelname, r.getMessage())\n"
        "from didax.config import log_warning; log_warning('recorded'); print(loaded)"
    )
    assert modules.splitlines() == ["WARNING recorded", "[]"]


def test_classes_made_at_import_by_the_hundred_are_not_dataclasses() -> None:
    # A frozen dataclass costs 0.3-0.6 ms to make (its methods are compiled from source):
    # these internal value classes are plain slotted classes instead (~12 of `import
    # didax`'s ~30 dataclasses, 5 ms of its ~150)
    plain = [
        *(pretty.Text, pretty.Break, pretty.Nest, pretty.Group, pretty.Concat),
        *(pretty.Annotation, tree_util._NodeType, api_util.ArgSpec, indexing._GatherPlan),
        *(stepping.Pause, stepping.Bound, plugins.Plugin),
    ]
    assert [c for c in plain if dataclasses.is_dataclass(c) or "__slots__" not in vars(c)] == []


def test_compiling_and_running_never_imports_jax() -> None:
    out = _run(
        "import sys, numpy as np, didax, didax.numpy as jnp\n"
        "f = didax.jit(lambda x: (jnp.sin(x) * 2, x.astype(jnp.bfloat16) "
        "if hasattr(jnp, 'bfloat16') else x))\n"
        "y = f(np.ones(3, np.float32))\n"
        "c = f.lower(np.ones(3, np.float32)).compile(); c.as_text(); c.cost_analysis()\n"
        "np.asarray(y[0]); np.asarray(y[1]); didax.block_until_ready(y)\n"
        "didax.jvp(f, (np.ones(3, np.float32),), (np.ones(3, np.float32),))\n"
        "print('jaxlib' in sys.modules, 'jax' in sys.modules)"
    )
    assert out == "True False"


def test_jaxlib_version_is_the_pinned_one() -> None:
    import jaxlib.version  # only this test needs it

    assert jaxlib.version.__version__.split(".")[:2] == client.JAXLIB_VERSION.split(".")[:2]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (3,), (2, 0), (2, 3)])
def test_buffers_of_every_dtype_round_trip(dtype, shape) -> None:
    rng = np.random.default_rng(0)
    x = (
        (rng.random(shape) * 10).astype(dtype)
        if np.dtype(dtype) != np.bool_
        else (rng.random(shape) < 0.5)
    )
    out = didax.jit(lambda a: a)(x)
    assert out.dtype == np.dtype(dtype) and out.shape == shape
    np.testing.assert_array_equal(np.asarray(out), x)
    put = didax.device_put(x)
    assert put.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(didax.jit(lambda a: a)(put)), x)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_arithmetic_in_every_dtype(dtype) -> None:
    x = np.array([0, 1, 2, 3], dtype=dtype)
    y = np.array([3, 1, 0, 2], dtype=dtype)

    def f(a, b):
        return jnp.maximum(a, b), a == b, jnp.sum(a)

    got, want = didax.jit(f)(x, y), f(x, y)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(
            np.asarray(g).astype(np.float32), np.asarray(w).astype(np.float32)
        )


def test_device_put_devices_block_until_ready() -> None:
    (device,) = didax.devices()
    assert "cpu" in str(device).lower()
    x = np.arange(3, dtype=np.float32)
    a = didax.device_put(x)
    assert isinstance(a, didax.Array) and a._buffer is not None
    x[0] = 100.0  # device_put copied: the Array does not change
    assert float(a[0]) == 0.0
    assert didax.device_put(a) is a
    tree = {"a": didax.jit(jnp.sin)(a), "b": [a, 1.0]}
    assert didax.block_until_ready(tree) is tree


def test_eager_arrays_are_put_on_the_device_once() -> None:
    a = jnp.arange(4.0)
    f = didax.jit(lambda x: x * 2)
    f(a)
    buffer = a._buffer
    assert buffer is not None
    f(a)
    assert a._buffer is buffer


def test_results_feed_eager_operations() -> None:
    y = didax.jit(lambda x: x + 1.0)(np.zeros(3, np.float32))
    np.testing.assert_array_equal(np.asarray(jnp.exp(y)), np.exp(np.ones(3, np.float32)))
    assert (y * 2).dtype == np.float32 and y.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_closed_over_constants_of_every_dtype(dtype) -> None:
    small = (np.arange(4) % 3).astype(dtype)  # content-keyed constant
    large = (np.arange(100) % 7).astype(dtype)  # identity-keyed constant
    splat = np.ones((3, 3), dtype)  # stored as one element
    out = didax.jit(lambda x: (small, large, splat, x))(1.0)
    for got, want in zip(out, (small, large, splat), strict=False):
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(np.asarray(got), want)


def test_the_runtime_floor_installs_the_array_protocol_once() -> None:
    # `didax.runtime.sharding` declared it at import; a second runtime is refused
    x = didax.device_put(np.ones(3, np.float32))
    assert x.sharding == client.default_sharding() and x.devices() == {didax.devices()[0]}
    with pytest.raises(RuntimeError, match="already installed"):
        array_runtime.install_runtime(array_runtime.installed())
