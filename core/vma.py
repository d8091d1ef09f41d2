"""Varying manual axes (check_vma): the type logic of a `shard_map(check_vma=True)` body.

Layer 1, after jaxpr. Inside such a body each value's aval says along which mesh axes it
varies (`aval.vma`, JAX's `{V:x}`; the aval class is `array.VaryingArray`). This module holds
every rule of that type system, so a reader finds it in one place:
- the frames: whether a check_vma body is being traced, and a mesh axis's order;
- the join: the axes each operand of a primitive must vary along (a primitive's `vma_rules`
  entry, or the union of its operands'), and the type of its results (`join`);
- the casts between invariant and varying values, `pvary` and the check_vma `psum`, which
  didax.parallel declares here once at import (`set_casts`, the extension point the staging
  and transpose interpreters read: they import no collective);
- the checks: equal types in control flow (and JAX's `pcast` hint), a collective's axes
  (`collective_rule`), shard_map's outputs against their out_specs (`check_outputs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from didax import core
from didax.core import ShapedArray
from didax.jaxpr import ClosedJaxpr, Jaxpr
from didax.runtime.sharding import Mesh, PartitionSpec

# ----------------------------------------------------------------------------- frames


def in_check_vma_body() -> bool:
    """Whether a check_vma shard_map's axes are bound (its body is being traced)."""
    return any(getattr(m.global_data, "mesh_axes", None) for m in core.trace_state().stack)


def mesh_axes_of(name: Any) -> tuple | None:
    """The mesh's axis names when the innermost frame binding `name` is a check_vma
    shard_map's (its values' types say whether they vary along it), else None."""
    for main in reversed(core.trace_state().stack):
        data = main.global_data
        if isinstance(data, core.AxisSize) and data.name == name:
            return data.mesh_axes
    return None


def checked_axes(names: Sequence[Any]) -> frozenset:
    """Those of `names` that are check_vma shard_map axes."""
    return frozenset(n for n in names if not isinstance(n, int) and mesh_axes_of(n) is not None)


def mesh_order(aval: ShapedArray, names: Sequence[Any]) -> tuple:
    """The order `names` print in: the mesh's (JAX orders varying axes by the mesh)."""
    return aval.mesh_axes or mesh_axes_of(names[0]) or tuple(names)


def in_order(axes: Any, order: Sequence[Any]) -> tuple:
    return tuple(a for a in order if a in axes)


# ----------------------------------------------------------------------------- casts


@dataclass(frozen=True)
class Casts:
    """The casts of a check_vma shard_map body between a value the same on every device
    along mesh axes and one that varies along them (JAX's `pvary` and check_vma `psum`)."""

    pvary: core.Primitive  # invariant -> varying along `axes`: a cast, no computation
    psum_invariant: core.Primitive  # varying -> invariant along `axes`: the sum


_casts: Casts | None = None  # set once, at import of didax.parallel.collectives


def set_casts(casts: Casts) -> None:
    """Declare the varying-axes casts (called once, by `didax.parallel.collectives`)."""
    global _casts
    _casts = casts


def casts() -> Casts:
    """The varying-axes casts the staging and transpose interpreters insert."""
    if _casts is None:
        raise NotImplementedError("no varying-axes casts declared: `import didax` first")
    return _casts


def pvary_params(axes: frozenset) -> dict[str, Any]:
    # the axes in the mesh's order, as JAX's pvary orders them
    return {"axes": in_order(axes, mesh_axes_of(next(iter(axes))))}


def invariant_as(aval: ShapedArray, ct: Any) -> Any:
    """`ct`, summed over the mesh axes it varies along and `aval` (its variable's type) does
    not: the cotangent of a value the same on every device is the sum of every device's
    (what transposing JAX's `pvary` gives; didax inserts `pvary` below the jvp trace, so a
    linear jaxpr may not hold it)."""
    ct_aval = core.get_aval(ct)
    extra = ct_aval.vma - aval.vma
    if not extra:
        return ct
    return casts().psum_invariant.bind(ct, axes=in_order(extra, ct_aval.mesh_axes))


# ----------------------------------------------------------------------------- the join


def join(
    primitive: core.Primitive, avals: Sequence[ShapedArray], params: dict[str, Any]
) -> tuple[list[frozenset], frozenset | None]:
    """JAX's rule for a primitive applied in a check_vma body: the axes each operand must
    vary along (an operand varying along fewer gets a `pvary` first, as a literal `2.0`
    times a varying array does in JAX's `auto_pcast`), and the axes its results vary along
    (None when its abstract evaluation types them itself: collectives, higher-order ones)."""
    vmas = [a.vma for a in avals]
    rule = core.vma_rules._rules.get(primitive)
    if rule is not None:
        return rule(vmas, **params), None
    if any(holds_jaxpr(v) for v in params.values()):
        return vmas, None  # higher-order: its bodies are typed with its operands' types
    union = frozenset().union(*vmas)
    return [union] * len(avals), union


def with_join(avals_out: Sequence[ShapedArray], vma: frozenset | None) -> list[ShapedArray]:
    """A first-order primitive's results, varying as its operands do."""
    if not vma:
        return list(avals_out)
    order = mesh_axes_of(next(iter(vma)))
    return [core.with_vma(a, vma, order) for a in avals_out]


def holds_jaxpr(v: Any) -> bool:
    """Whether a param value is (or holds) a jaxpr: a higher-order primitive's."""
    return isinstance(v, (Jaxpr, ClosedJaxpr)) or (
        isinstance(v, tuple) and any(isinstance(x, (Jaxpr, ClosedJaxpr)) for x in v)
    )


def collective_rule(key: str) -> core.VmaRule:
    """The vma rule of a collective over the axes `params[key]` names: its operand must
    vary along those of them that are check_vma axes."""

    def rule(vmas, **params):
        (vma,) = vmas
        names = params[key]
        names = tuple(names) if isinstance(names, (tuple, list)) else (names,)
        return [vma | checked_axes(names)]

    return rule


# ----------------------------------------------------------------------------- checks


def same_type(a: ShapedArray, b: ShapedArray) -> bool:
    """Equal shape and dtype (weak types may differ), varying along the same mesh axes."""
    return core.types_match(a, b) and a.vma == b.vma


def mismatch_reasons(a: ShapedArray, b: ShapedArray) -> list[str]:
    reasons = []
    if a.dtype != b.dtype:
        reasons.append("the dtypes do not match")
    if a.shape != b.shape:
        reasons.append("the shapes do not match")
    if a.vma != b.vma:
        reasons.append("the manual axis types do not match")
    return reasons


def pcast_advice(missing: frozenset, where: str) -> str:
    """JAX's advice for a value lacking the varying axes `missing`."""
    return f"applying `jax.lax.pcast(..., {tuple(missing)}, to='varying')`{where}"


def spec_axes(spec: PartitionSpec) -> frozenset:
    """The mesh axes `spec` splits along: those its blocks vary along."""
    return frozenset(a for d in range(len(spec)) for a in spec.axes_of(d))


def unmentioned(mesh: Mesh, spec: PartitionSpec) -> tuple[Any, ...]:
    """The mesh axes `spec` does not split along, in the mesh's order."""
    used = spec_axes(spec)
    return tuple(a for a in mesh.axis_names if a not in used)


def check_outputs(
    fn_name: str,
    mesh: Mesh,
    out_avals: Sequence[ShapedArray],
    out_specs: Sequence[Any],
    outer: Any = frozenset(),
) -> None:
    """With check_vma an output varying along an axis its out_spec leaves out (but those a
    shard_map around it is manual over, `outer`) is not the same on every device there:
    JAX's ValueError."""
    msgs = []
    for k, (aval, spec) in enumerate(zip(out_avals, out_specs, strict=True)):
        vma = aval.vma
        need = unmentioned(mesh, spec)
        if not any(a in vma for a in need if a not in outer):
            continue
        left_out = [a for a in need if a in vma]
        where = f"out_specs[{k}]" if len(out_specs) > 1 else "out_specs"
        if len(need) > 1:
            named = [a for a in mesh.axis_names if a not in need]
            got = [a for a in mesh.axis_names if a in vma]
            msgs.append(
                f"{where} is {spec} which implies that the corresponding output value is only "
                f"varying across mesh axes {{{','.join(map(str, named))}}} and not "
                f"{{{','.join(map(str, left_out))}}}, but it was inferred to be possibly "
                f"varying over {{{','.join(map(str, got))}}}"
            )
        else:
            msgs.append(
                f"{where} is {spec} which implies that the corresponding output value is "
                f"replicated across mesh axis '{need[0]}', but could not infer replication "
                "over any axes"
            )
    if len(msgs) > 1:  # JAX's bullets
        msgs = [f"* {m}" for m in msgs]
    if msgs:
        raise ValueError(
            f"shard_map applied to the function '{fn_name}' was given out_specs which "
            "require replication which can't be statically inferred given the mesh:\n\n"
            f"The mesh given has shape {tuple(mesh.axis_sizes)} with corresponding axis names "
            f"{mesh.axis_names}.\n\n" + "\n\n".join(msgs) + "\n\nCheck if these output "
            "values are meant to be replicated over those mesh axes. If not, consider revising "
            "the corresponding out_specs entries. If so, consider disabling the check by "
            "passing the check_vma=False argument to `jax.shard_map`."
        )
