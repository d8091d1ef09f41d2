"""`jax.example_libraries.stax`, JAX's own neural-network example library, run on didax: its
source with `jax` replaced by `didax` in its imports (`nn`'s activations and initializers,
`random`, `lax`, `numpy`). The same key gives the same parameters, the same outputs and the
same SGD steps as on JAX: dense, activation and normalization layers, and a convolutional
network with the three pooling layers (`lax.reduce_window`)."""

from __future__ import annotations

import re
import types

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jstax = pytest.importorskip("jax.example_libraries.stax")

pytestmark = pytest.mark.oracle


def _stax_on_didax() -> types.ModuleType:
    with open(jstax.__file__) as f:
        source = f.read()
    # only the import lines change: `from jax import lax` -> `from didax import lax`, ...
    source = re.sub(r"^(from|import) jax\b", r"\1 didax", source, flags=re.MULTILINE)
    module = types.ModuleType("stax_on_didax")
    exec(compile(source, "stax_on_didax", "exec"), module.__dict__)
    return module


def _model(stax):
    return stax.serial(
        stax.Dense(16),
        stax.Relu,
        stax.Dense(16),
        stax.Gelu,
        stax.Dense(16),
        stax.Elu,
        stax.Dense(16),
        stax.LeakyRelu,
        stax.Dense(16),
        stax.Selu,
        stax.Dense(16),
        stax.Softplus,
        stax.Dense(16),
        stax.Sigmoid,
        stax.Dense(4),
        stax.LogSoftmax,
    )


def _pooling_model(stax):
    return stax.serial(
        stax.Conv(4, (3, 3), padding="SAME"),
        stax.Relu,
        stax.MaxPool((2, 2), strides=(1, 1), padding="SAME"),
        stax.Conv(4, (2, 2)),
        stax.Tanh,
        stax.AvgPool((2, 2), padding="SAME"),
        stax.SumPool((2, 2), strides=(2, 2)),
        stax.Flatten,
        stax.Dense(4),
        stax.LogSoftmax,
    )


@pytest.mark.parametrize(
    "model, x_shape",
    [(_model, (5, 3)), (_pooling_model, (5, 7, 7, 2))],
    ids=["dense", "conv-pool"],
)
def test_stax_imports_and_trains_as_on_jax(model, x_shape) -> None:
    stax = _stax_on_didax()
    x = np.random.default_rng(0).normal(size=x_shape).astype(np.float32)
    labels = np.eye(4, dtype=np.float32)[[0, 1, 2, 3, 0]]

    results = {}
    for name, lib, np_lib, module in [("jax", jax, jnp, jstax), ("didax", didax, dnp, stax)]:
        init_fun, apply_fun = model(module)
        out_shape, params = init_fun(lib.random.key(1), (-1, *x_shape[1:]))

        def loss(params, apply_fun=apply_fun, np_lib=np_lib):
            return -np_lib.mean(np_lib.sum(apply_fun(params, x) * labels, axis=-1))

        step = lib.jit(
            lambda p, loss=loss, lib=lib: lib.tree.map(
                lambda w, g: w - 0.1 * g, p, lib.grad(loss)(p)
            )
        )
        # JAX's losses from one program (eagerly, each of its operations is a compile of its
        # own); didax's eagerly, the code path under test
        value = jax.jit(loss) if lib is jax else loss
        losses = []
        for _ in range(3):
            losses.append(float(value(params)))
            params = step(params)
        results[name] = (out_shape, lib.tree.leaves(params), losses)

    (jax_shape, jax_params, jax_losses), (shape, params, losses) = results["jax"], results["didax"]
    assert shape == jax_shape
    np.testing.assert_allclose(losses, jax_losses, rtol=1e-5)
    for got, want in zip(params, jax_params, strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)


def test_stax_batchnorm_as_on_jax() -> None:
    stax = _stax_on_didax()
    x = np.random.default_rng(1).normal(size=(6, 4)).astype(np.float32)
    outs = []
    for lib, module in [(jax, jstax), (didax, stax)]:
        init_fun, apply_fun = module.serial(module.Dense(8), module.BatchNorm(axis=(0,)))
        _, params = init_fun(lib.random.key(2), (-1, 4))
        outs.append(np.asarray(apply_fun(params, x)))
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-4, atol=1e-5)
