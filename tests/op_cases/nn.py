"""Cases: `didax.nn`'s activations, `softmax`, `logsumexp` and `one_hot`."""

from __future__ import annotations

from op_cases.spec import Arr, F, I, M, S, Table, V

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases

# --- didax.nn
for name in ("relu", "sigmoid", "softmax", "log_softmax"):
    for shape in (S, V, M):
        if name in ("softmax", "log_softmax") and shape == S:
            continue
        add("nn", name, Arr(shape, F, "nonzero"))
    # jax.nn.sigmoid is lax.logistic, which takes floats only; the others convert ints
    add(
        "nn", name, Arr(V, I), differentiable=False, raises=TypeError if name == "sigmoid" else None
    )
    add("nn", name, Arr(V, "bfloat16", "nonzero"), differentiable=False)
for name in ("softmax", "log_softmax"):
    add("nn", name, Arr(M), axis=0)
    add("nn", name, Arr((2, 3, 4)), axis=(0, 2))
    add("nn", name, Arr(M, F, "special"), differentiable=False)
add("nn", "relu", 1.5, differentiable=False)
add("nn", "relu", -2, differentiable=False)
add("nn", "sigmoid", 0.5, differentiable=False)
for kw in [{}, {"axis": 0}, {"axis": 1}, {"axis": -1, "keepdims": True}, {"axis": (0, 1)}]:
    add("nn", "logsumexp", Arr(M), **kw)
add("nn", "logsumexp", Arr(S))
add("nn", "logsumexp", Arr(V, I), differentiable=False)
add("nn", "logsumexp", Arr(V, F, "special"), differentiable=False)
# the rest of jax.nn's activations (issue 24), on floats away from their kinks
for name in (
    "celu",
    "elu",
    "gelu",
    "hard_sigmoid",
    "hard_silu",
    "hard_tanh",
    "leaky_relu",
    "log_sigmoid",
    "mish",
    "relu6",
    "selu",
    "silu",
    "soft_sign",
    "softplus",
    "sparse_plus",
    "sparse_sigmoid",
    "squareplus",
    "standardize",
):
    add("nn", name, Arr(V, F, "nonzero"))
add("nn", "log1mexp", Arr(V, F, "positive"))
add("nn", "glu", Arr((2, 4), F, "nonzero"))
add("nn", "gelu", Arr(V, F, "nonzero"), approximate=False)
add("nn", "one_hot", Arr(V, I, "index"), 3, differentiable=False)
