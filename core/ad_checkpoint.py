"""`didax.ad_checkpoint`: rematerialization. Like `jax.ad_checkpoint`.

Layer 5, after `derivatives`: `checkpoint`/`remat` and the `remat2` primitive from
`control_flow/checkpoint.py`; `checkpoint_name` and the policies from
`control_flow/checkpoint_policies.py`; and, as in JAX, `saved_residuals` /
`print_saved_residuals`, which stage `vjp(f)` and say where each value it keeps for the
backward pass comes from (an argument, a constant, or the equation that computes it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax import api_util
from didax import source_info as si
from didax.api import make_jaxpr
from didax.compile.jit_primitive import jit_p
from didax.control_flow.checkpoint import checkpoint, remat, remat_p
from didax.control_flow.checkpoint_policies import checkpoint_name, checkpoint_policies, name_p
from didax.derivatives import vjp
from didax.jaxpr import Jaxpr, Literal
from didax.primitives.precision_barriers import reduce_precision_p
from didax.tree_util import tree_flatten, tree_leaves, tree_unflatten

__all__ = [
    "checkpoint",
    "checkpoint_name",
    "checkpoint_policies",
    "name_p",
    "print_saved_residuals",
    "remat",
    "remat_p",
    "saved_residuals",
]


def saved_residuals(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[tuple[Any, str]]:
    """(aval, where it comes from) for each residual `vjp(fn, ...)` saves at these arguments,
    in the order of the staged program. Like JAX's `saved_residuals` (in `jax._src.ad_checkpoint`:
    JAX 0.10.2 exports only `print_saved_residuals`)."""
    leaves, tree = tree_flatten((args, kwargs))
    n_out: list[int] = []

    def vjp_of_leaves(*leaves: Any) -> Any:
        def flat_fn(*leaves: Any) -> Any:
            a, kw = tree_unflatten(tree, leaves)
            return fn(*a, **kw)

        out, fn_vjp = vjp(flat_fn, *leaves)
        n_out.append(len(tree_leaves(out)))
        return out, fn_vjp

    jaxpr = make_jaxpr(vjp_of_leaves)(*leaves).jaxpr
    return _residual_sources(
        jaxpr, jaxpr.outvars[n_out[0] :], api_util.leaf_names(fn, args, kwargs)
    )


def _residual_sources(jaxpr: Jaxpr, res: Sequence[Any], names: Sequence[str]) -> list:
    # a saved value passes `reduce_precision` on its way out: its producer is the one before
    through = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns if e.primitive is reduce_precision_p}
    res_vars = {through.get(v, v) for v in res if not isinstance(v, Literal)}
    found = [(v.aval, "from a literal") for v in res if isinstance(v, Literal)]
    found += [(v.aval, "from a constant") for v in jaxpr.constvars if v in res_vars]
    found += [
        (v.aval, f"from the argument {name}")
        for v, name in zip(jaxpr.invars, names, strict=True)
        if v in res_vars
    ]
    for eqn in jaxpr.eqns:
        where = si.summarize(eqn.source_info)
        for v in (v for v in eqn.outvars if v in res_vars):
            if eqn.primitive is name_p:
                found.append((v.aval, f"named '{eqn.params['name']}' from {where}"))
            elif eqn.primitive is jit_p:
                found.append(
                    (v.aval, f"output of jitted function '{eqn.params['name']}' from {where}")
                )
            else:
                found.append((v.aval, f"output of {eqn.primitive.name} from {where}"))
    return found


def print_saved_residuals(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Print `saved_residuals(fn, *args, **kwargs)`, one per line. Like
    `jax.ad_checkpoint.print_saved_residuals`."""
    for aval, source in saved_residuals(fn, *args, **kwargs):
        print(f"{aval.str_short()} {source}")
