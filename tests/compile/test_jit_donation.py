"""Buffer donation (`donate_argnums`/`donate_argnames`), as JAX 0.10.2 does it on CPU: each
output takes the first donated input of its shape and dtype (`tf.aliasing_output` on the
argument), XLA writes the output into that input's memory, and the donated Array is deleted
(using it raises RuntimeError). A donated input no output can use is kept, with JAX's
warning. NumPy arguments and eager Arrays' host values are never overwritten."""

from __future__ import annotations

import re
import warnings
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest


def _on_device(lib: Any, np_: Any, value: np.ndarray) -> Any:
    """An array that lives only on the device (a jitted call's result)."""
    return lib.jit(lambda: np_.asarray(value))()


def _libs() -> list[tuple[Any, Any]]:
    jax = pytest.importorskip("jax")
    import jax.numpy as jax_numpy

    return [(didax, dnp), (jax, jax_numpy)]


def _aliasing(text: str) -> list[int | None]:
    """`tf.aliasing_output` of each argument of `main`, from a lowered module's text."""
    header = next(line for line in text.splitlines() if "@main(" in line)
    args = re.findall(r"%arg\d+: tensor<[^>]*>( \{[^}]*\})?", header.split("->")[0])
    found = [re.search(r"tf.aliasing_output = (\d+)", a) for a in args]
    return [int(m.group(1)) if m else None for m in found]


LOWERINGS = [
    ("one to one", lambda x, y: x + y, (0,), ((3,), (3,))),
    ("first output of its type", lambda x, y: (y * 2, x), (0,), ((3,), (3,))),
    ("two donated, two outputs", lambda x, y: (x + y, x - y), (0, 1), ((3,), (3,))),
    ("shapes must match", lambda x, y: (x.sum(), y + 1), (0, 1), ((4,), (3,))),
    ("no output fits", lambda x: x.sum(), (0,), ((3,),)),
]


@pytest.mark.oracle
@pytest.mark.parametrize("name, fn, donate, shapes", LOWERINGS, ids=[c[0] for c in LOWERINGS])
def test_lowered_aliasing_matches_jax(name, fn, donate, shapes) -> None:
    texts = []
    for lib, np_ in _libs():
        args = [np_.ones(s, np.float32) for s in shapes]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            texts.append(lib.jit(fn, donate_argnums=donate).lower(*args).as_text())
    assert _aliasing(texts[0]) == _aliasing(texts[1])


@pytest.mark.oracle
def test_donated_array_is_deleted_and_its_memory_reused() -> None:
    for lib, np_ in _libs():
        x = _on_device(lib, np_, np.arange(1000, dtype=np.float32))
        memory = (
            x.unsafe_buffer_pointer() if lib is not didax else x._buffer.unsafe_buffer_pointer()
        )
        y = lib.jit(lambda a: a * 2.0, donate_argnums=0)(x)
        np.testing.assert_array_equal(np.asarray(y), np.arange(1000, dtype=np.float32) * 2)
        assert x.is_deleted(), lib.__name__
        out = y._buffer if lib is didax else y
        assert out.unsafe_buffer_pointer() == memory, f"{lib.__name__}: no aliasing"
        with pytest.raises(
            RuntimeError, match=r"Array has been deleted with shape=float32\[1000\]"
        ):
            np.asarray(x)
        with pytest.raises(RuntimeError, match="Array has been deleted"):
            x + 1


def test_a_donated_array_passed_again_raises_runtime_error() -> None:
    jf = didax.jit(lambda a: a + 1.0, donate_argnums=0)
    x = dnp.ones(3)
    jf(x)
    for call in (lambda: jf(x), lambda: didax.jit(lambda a: a - 1.0)(x), lambda: repr(x)):
        with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
            call()


@pytest.mark.oracle
def test_unusable_donation_warns_as_jax_and_keeps_the_input() -> None:
    messages = []
    for lib, np_ in _libs():
        x = _on_device(lib, np_, np.ones(3, np.float32))
        with pytest.warns(UserWarning, match="Some donated buffers were not usable") as record:
            lib.jit(lambda a: a.sum(), donate_argnums=0)(x)
        messages.append([str(w.message) for w in record if "donated" in str(w.message)])
        assert not x.is_deleted()
        np.testing.assert_array_equal(np.asarray(x), np.ones(3, np.float32))
    assert messages[0] == messages[1]


@pytest.mark.oracle
def test_donate_argnames_and_pytrees_delete_every_donated_leaf() -> None:
    for lib, np_ in _libs():
        params = {"w": _on_device(lib, np_, np.ones(2, np.float32)), "b": np_.zeros(2)}
        batch = _on_device(lib, np_, np.ones(2, np.float32))

        def step(params, batch):
            return {k: v - 0.1 * batch for k, v in params.items()}

        new = lib.jit(step, donate_argnames="params")(params, batch=batch)
        assert all(v.is_deleted() for v in params.values()), lib.__name__
        assert not batch.is_deleted()
        np.testing.assert_allclose(np.asarray(new["w"]), 0.9)


def test_numpy_arguments_and_eager_host_values_are_never_overwritten() -> None:
    jf = didax.jit(lambda a: a + 1.0, donate_argnums=0)
    host = np.ones(3, np.float32)
    np.testing.assert_array_equal(np.asarray(jf(host)), 2.0)
    np.testing.assert_array_equal(host, 1.0)  # NumPy arrays are not Arrays: not deleted
    value = np.full(3, 5.0, np.float32)
    eager = didax.Array(value)  # an eager Array over this NumPy value
    didax.device_put(eager)  # its value aliased on the device
    np.testing.assert_array_equal(np.asarray(jf(eager)), 6.0)
    assert eager.is_deleted()
    np.testing.assert_array_equal(value, 5.0)


def test_donating_and_plain_jit_objects_of_one_function_share_traces_not_donation() -> None:
    traces = []

    def f(a):
        traces.append(1)
        return a * 3.0

    plain, donating = didax.jit(f), didax.jit(f, donate_argnums=0)
    x, y = dnp.ones(2), dnp.ones(2)
    plain(x)
    plain(x)  # fast path
    donating(y)
    assert y.is_deleted() and not x.is_deleted()
    z = dnp.ones(2)
    donating(z)  # a donating call never takes the (shared) fast path
    plain(x)
    assert z.is_deleted() and not x.is_deleted()
    assert len(traces) == 1


@pytest.mark.oracle
def test_no_donation_inside_another_jit() -> None:
    # (under vmap and jvp JAX 0.10.2 donates the batched call's inputs; didax donates only
    # in a call of the jitted function itself, see jit's docstring)
    for lib, np_ in _libs():
        inner = lib.jit(lambda a: a * a, donate_argnums=0)
        outer = lib.jit(lambda a, inner=inner: inner(a) + 1.0)
        x = _on_device(lib, np_, np.ones(3, np.float32))
        np.testing.assert_array_equal(np.asarray(outer(x)), 2.0)
        assert not x.is_deleted(), lib.__name__


@pytest.mark.oracle
def test_aot_compiled_call_donates_too() -> None:
    for lib, np_ in _libs():
        compiled = lib.jit(lambda a: a + 1.0, donate_argnums=0).lower(np_.ones(3)).compile()
        x = _on_device(lib, np_, np.ones(3, np.float32))
        np.testing.assert_array_equal(np.asarray(compiled(x)), 2.0)
        assert x.is_deleted(), lib.__name__


def test_delete_and_is_deleted() -> None:
    x = dnp.arange(3.0)
    assert not x.is_deleted()
    x.delete()
    assert x.is_deleted() and x.shape == (3,) and x.dtype == np.float32
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        x.tolist()


# One Array passed twice to a donating call, eager (its donated copy was a buffer of its own
# and the call ran) or on the device: JAX's JaxRuntimeError from PJRT, and the Array kept.
TWICE = {
    "both_donated": lambda lib: lib.jit(lambda a, b: a + b, donate_argnums=(0, 1)),
    "first_donated": lambda lib: lib.jit(lambda a, b: a + b, donate_argnums=0),
    "second_donated": lambda lib: lib.jit(lambda a, b: a + b, donate_argnums=1),
    "pytree": lambda lib: lambda a, b: lib.jit(lambda p: p[0] + p[1], donate_argnums=0)((a, b)),
    "aot": lambda lib: (
        lambda a, b: lib.jit(lambda u, v: u + v, donate_argnums=0).lower(a, b).compile()(a, b)
    ),
}


@pytest.mark.oracle
@pytest.mark.parametrize("where", ["eager", "device"])
@pytest.mark.parametrize("case", TWICE)
def test_the_same_array_donated_and_passed_again_in_one_call_as_jax(case: str, where: str) -> None:
    messages = []
    for lib, np_ in _libs():
        x = np_.ones(3) if where == "eager" else _on_device(lib, np_, np.ones(3, np.float32))
        with pytest.raises(RuntimeError) as info:
            TWICE[case](lib)(x, x)
        assert type(info.value).__name__ == "JaxRuntimeError", info.value
        assert not x.is_deleted() and np.asarray(x).tolist() == [1.0, 1.0, 1.0]
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_the_same_numpy_array_twice_is_two_buffers_as_jax() -> None:
    x = np.ones(3, np.float32)  # each NumPy argument is copied to a buffer of its own
    out = didax.jit(lambda a, b: a + b, donate_argnums=(0, 1))(x, x)
    np.testing.assert_array_equal(np.asarray(out), 2.0)
    np.testing.assert_array_equal(x, 1.0)
