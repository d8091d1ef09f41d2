"""Rule tables: `RuleTable`, the standard tables every interpreter reads (`impl_rules`,
`abstract_eval_rules`, `jvp_rules`, `transpose_rules`, `vmap_rules`, `lowering_rules`, and
`vma_rules`, `sharding_rules`, `eager_rules`), the rule signatures, the `LoweringContext`
lowering rules see, and the primitive sets `effectful` and `own_program`.

Layer 1, just before `core`, which re-exports every name here: rules register as
`core.jvp_rules.register(...)`, as STYLE.md §3 shows. A table is keyed by `core.Primitive`
(hashed by identity); nothing here needs more of a primitive than its hash and its name.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from didax.array import ShapedArray

R = TypeVar("R", bound=Callable)


class RuleTable(Generic[R]):
    """One interpreter's rules, keyed by primitive."""

    def __init__(self, interpreter: str, missing: str | None = None) -> None:
        self.interpreter = interpreter
        # The NotImplementedError's message for a primitive without a rule (`{}` is its
        # name): JAX's wording for the tables JAX has, else "no <interpreter> rule for ...".
        self.missing = missing or f"no {interpreter} rule for '{{}}'"
        self._rules: dict[Any, R] = {}  # keyed by `core.Primitive` (hashed by identity)
        # Registration checks then inserts, so it locks; lookups are single dict reads.
        self._lock = threading.Lock()

    def register(self, prim: Any, rule: R | None = None, *, replace: bool = False) -> Any:
        def add(rule: R) -> R:
            with self._lock:
                if prim in self._rules and not replace:
                    raise ValueError(
                        f"{self.interpreter} rule for '{prim}' already registered; "
                        "pass replace=True to redefine it"
                    )
                self._rules[prim] = rule
            return rule

        return add if rule is None else add(rule)

    def __getitem__(self, prim: Any) -> R:
        rule = self._rules.get(prim)
        if rule is None:
            raise NotImplementedError(self.missing.format(prim))
        return rule

    def __contains__(self, prim: Any) -> bool:
        return prim in self._rules

    def primitives(self) -> list[Any]:
        return list(self._rules)


ImplRule = Callable[..., list]  # (*np.ndarray, **params) -> [np.ndarray]
AbstractEvalRule = Callable[..., list]  # (*ShapedArray, **params) -> [ShapedArray]
JvpRule = Callable[..., tuple]  # (primals, tangents, **params) -> (primals_out, tangents_out)
# (cts, *operands, **params) -> [ct or None per operand]. `cts` has one cotangent per output;
# `backward_pass` skips an equation whose output cotangents are all zero, so the rule of a
# single-output primitive never sees a `Zero` (a multiple-output rule may, for some outputs).
# Linear operands are `UndefinedPrimal`s; the rule returns None for the others.
TransposeRule = Callable[..., list]
VmapRule = Callable[..., tuple]  # (axis_size, vals, dims, **params) -> (vals_out, dims_out)
LoweringRule = Callable[..., list]  # (ctx, *ir.Value, **params) -> [ir.Value]
# (*operands, **params) -> the single result, or NotImplemented to decline. An optional
# shortcut past the eval interpreter, consulted by `Primitive.bind` only while nothing is
# traced: it must agree with the impl rule where it accepts. `lax` registers one per
# elementwise op.
EagerRule = Callable[..., Any]

# The standard tables raise JAX 0.10.2's messages for a missing rule.
impl_rules: RuleTable[ImplRule] = RuleTable("impl", "Evaluation rule for '{}' not implemented")
abstract_eval_rules: RuleTable[AbstractEvalRule] = RuleTable(
    "abstract_eval", "Abstract evaluation for '{}' not implemented"
)
jvp_rules: RuleTable[JvpRule] = RuleTable("jvp", "Differentiation rule for '{}' not implemented")
transpose_rules: RuleTable[TransposeRule] = RuleTable(
    "transpose", "Transpose rule (for reverse-mode differentiation) for '{}' not implemented"
)
vmap_rules: RuleTable[VmapRule] = RuleTable("vmap", "Batching rule for '{}' not implemented")
# (JAX adds "for platform cpu"; lowering here does not depend on the platform)
lowering_rules: RuleTable[LoweringRule] = RuleTable(
    "lowering", "MLIR translation rule for primitive '{}' not found"
)
# Inside a `shard_map(check_vma=True)` body an aval says along which mesh axes its value
# varies (`ShapedArray.vma`). By default a primitive's operands are first made to vary along
# the union of their axes (the staging trace inserts `pvary` equations) and its results vary
# along it. A primitive with a vma rule instead gets from it the axes each operand must vary
# along, and its abstract-eval rule gives its results' vma itself (collectives, `pvary`).
# (vmas: list[frozenset], **params) -> [frozenset per operand]
VmaRule = Callable[..., list]
vma_rules: RuleTable[VmaRule] = RuleTable("vma")
# Sharding in types: an operand split over a mesh's `Explicit` axes has an aval with a
# `spec` (per dimension, the axes splitting it; `sharded_aval.ShardedArray`). A primitive's sharding
# rule gives its results' specs; one with none is elementwise (typed_sharding.py).
# (avals_in, avals_out, **params) -> [spec (a tuple of axis tuples) or None per result]
ShardingRule = Callable[..., list]
sharding_rules: RuleTable[ShardingRule] = RuleTable("sharding")
eager_rules: RuleTable[EagerRule] = RuleTable("eager")


@dataclass(frozen=True)
class LoweringContext:
    """What a lowering rule sees besides its operands (`ir.Value`s), made by
    `interpreters/lowering.py` for each equation:

    - `hlo`, `ir`: jaxlib's StableHLO op builders and MLIR core (`ctx.hlo.sine(x)`,
      `ctx.ir.DenseI64ArrayAttr`); loaded on the first compile, so `lax` never imports jaxlib.
    - `avals_in`, `avals_out`: the equation's operand and result types.
    - `tensor_type(aval)`, `constant(value, dtype)`: MLIR types and (deduplicated) constants.
    - `lower_jaxpr(closed_jaxpr, args)`: lower a nested jaxpr at the current insertion point
      on `ir.Value` arguments and return its results (control flow bodies, nested jit).
    - `add_host_callback(fn)`: register a Python function the compiled program calls on the
      host (`debug_print`); returns its index, which the program's custom call names.
    """

    hlo: Any
    ir: Any
    avals_in: tuple[ShapedArray, ...]
    avals_out: tuple[ShapedArray, ...]
    module: Any  # lowering.ModuleBuilder: the module being built

    def tensor_type(self, aval: ShapedArray) -> Any:
        return self.module.tensor_type(aval)

    def constant(self, value: Any, dtype: Any = None) -> Any:
        return self.module.constant(value, dtype)

    def lower_jaxpr(self, closed_jaxpr: Any, args: Sequence[Any]) -> list[Any]:
        return self.module.lower_jaxpr(closed_jaxpr, args)

    def add_host_callback(self, fn: Any) -> int:
        self.module.host_callbacks.append(fn)
        return len(self.module.host_callbacks) - 1

    def replace(self, **changes: Any) -> LoweringContext:
        return replace(self, **changes)


# Primitives with an effect (a print): dead-code elimination keeps their equations even when
# nothing reads their outputs.
effectful: set[Any] = set()

# Primitives that cannot be lowered inside a program for one device (`shard_map`: it needs
# its mesh's devices): `jit` partitions a program holding one over the mesh when it can
# (compile/jit.py) and otherwise evaluates it equation by equation, each of them
# running its own program.
own_program: set[Any] = set()
