"""Lowering: a jaxpr to one StableHLO module, which XLA compiles.

Layer 3 (autodidax part 3, "Adding jit": where autodidax calls xla_client's HLO builders, we
build StableHLO with jaxlib's MLIR bindings, as JAX does). `lower_jaxpr_to_module` makes a
module whose public `main` takes the jaxpr's inputs and returns its outputs. Each equation is
lowered by its primitive's rule in `core.lowering_rules`, `rule(ctx, *operands, **params) ->
[ir.Value]`, where `ctx` is a `core.LoweringContext` (StableHLO builders, avals, and this
module's helpers). Constants (closed-over arrays, literals) are emitted once per block and
reused. Nested jaxprs lower inline through `ctx.lower_jaxpr`, or as a private function
(`call_function`, used by nested jit). jaxlib is loaded on the first lowering, not at import.

Locations: each equation's ops carry `loc("<op name>"("<function>"("<file>":line:col to :end)))`
-- a NameLoc naming the equation around the user's source (a NameLoc of the function around a
FileLineColLoc), as JAX writes them; XLA copies them into the optimized HLO's metadata
(`op_name`, and `stack_frame_id` into its FileLocations table). The op name is JAX's name
stack and primitive (`jit(f)/sin`, `jit(f)/jit(g)/cos`) with each segment that stands for an
equation followed by `#` and the equation's index in its jaxpr: `jit(f)/sin#3` is equation 3
of f's jaxpr; `jit(f)/jit(g)#2/cos#0` equation 0 of the jaxpr of equation 2 (a nested jit);
`jit(f)/cond#4/sin#0` equation 0 of a branch of the cond of equation 4 (the path names no
branch or body). So the `#` indices, read left to right, are the equation's index path. A
nested jit lowers once, as a private function whose ops are named relative to it; XLA's
inliner puts the call's name before them, so each call site gets its own path. XLA drops
what follows an `@` in an op name, hence `#`. `Lowered.as_text(debug_info=True)` shows the
locations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, typed_sharding
from didax import source_info as si
from didax.config import config
from didax.core import ShapedArray, ShardedArray
from didax.jaxpr import ClosedJaxpr, Literal
from didax.runtime import client
from didax.runtime.sharding import AxisType, partial_manual_text


class LoweringError(ValueError):
    """A primitive's lowering rule failed, or the module did not verify."""


class ModuleBuilder:
    """One MLIR module under construction: its context, types, constants and functions.
    All methods run inside `with builder.context, ir.Location.unknown():`."""

    def __init__(self, name: str) -> None:
        rt = client.runtime()
        self.ir, self.hlo, self.func, self.sdy = rt.ir, rt.hlo, rt.func, rt.sdy
        self.context = client.new_context()
        self.host_callbacks: list[Any] = []  # Python functions the program calls (by index)
        self.name_stack: list[str] = []  # "jit(f)", "jit(g)": names ops in XLA's metadata
        # A replicated program's (pmap's) axis: its name and size; collectives over it lower
        # to cross-replica ops (`stablehlo.all_reduce`, ...). Empty: one device, no replicas.
        self.replica_axes: tuple[tuple[Any, int], ...] = ()
        # An SPMD program's devices (partition k runs on device k), for `mhlo.sharding`
        # annotations inside it (`with_sharding_constraint`). None: one device.
        self.device_assignment: tuple[Any, ...] | None = None
        # Set while a shard_map's body is lowered inside an SPMD program: its mesh, along
        # whose axes the body's collectives act between partitions (manual sharding), and
        # the axes it is manual over (those of the shard_maps around it too); along the
        # others ("free" axes) the partitioner still splits the body's values.
        self.manual_mesh: Any = None
        self.manual_axes: frozenset = frozenset()
        self._eqns: list[Any] = []  # the equations being lowered, outermost first
        self._types: dict[tuple[tuple[int, ...], np.dtype], Any] = {}
        self._element_types: dict[np.dtype, Any] = {}
        self._consts: dict[tuple, Any] = {}
        self._alive: list[Any] = []  # values whose id() keys a constant
        self._functions: dict[int, tuple[ClosedJaxpr, str]] = {}
        self._symbols: set[str] = {"main"}
        with self.context, self.ir.Location.unknown():
            self.module = self.ir.Module.create()
            self.module.operation.attributes["sym_name"] = self.ir.StringAttr.get(
                _symbol_name(name)
            )

    # ----- types
    def element_type(self, dtype: np.dtype) -> Any:
        t = self._element_types.get(dtype)
        if t is None:
            t = self._element_types[dtype] = client.element_type(self.ir, dtype)
        return t

    def tensor_type(self, aval: ShapedArray) -> Any:
        key = (aval.shape, aval.dtype)
        t = self._types.get(key)
        if t is None:
            t = self._types[key] = self.ir.RankedTensorType.get(
                aval.shape, self.element_type(aval.dtype)
            )
        return t

    # ----- constants
    def constant(self, value: Any, dtype: Any = None, *, shared: bool = True) -> Any:
        """A constant holding `value` (an array or scalar, of `dtype` if given), emitted once
        per block: later requests for the same value in the same block reuse it (not
        `shared`: a new one, as JAX emits a rule's own constants)."""
        if dtype is None:
            array = np.asarray(core.to_numpy(value))
        else:
            array = np.asarray(value, dtypes.canonicalize(dtype))
        if not shared:
            return self.hlo.constant(_dense_attr(self, array))
        block = self.ir.InsertionPoint.current.block
        if array.size <= 64:  # small: by content, so equal literals share one constant
            key: tuple = (block, array.dtype.str, array.shape, array.tobytes())
        else:  # large: by identity (the value is kept alive, so its id is not reused)
            key = (block, array.dtype.str, id(value))
            self._alive.append(value)
        const = self._consts.get(key)
        if const is None:
            const = self._consts[key] = self.hlo.constant(_dense_attr(self, array))
        return const

    # ----- jaxprs
    def lower_jaxpr(self, closed: ClosedJaxpr, args: Sequence[Any]) -> list[Any]:
        """Emit `closed` at the current insertion point on `args`; returns its outputs."""
        jaxpr = closed.jaxpr
        if len(args) != len(jaxpr.invars):
            raise LoweringError(
                f"lower_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}"
            )
        env: dict[Any, Any] = {}

        def read(atom: Any) -> Any:
            if isinstance(atom, Literal):
                return self.constant(atom.val, atom.aval.dtype)
            return env[atom]

        for v, val in zip(jaxpr.constvars, closed.consts, strict=True):
            env[v] = self.constant(val)
        for v, val in zip(jaxpr.invars, args, strict=True):
            env[v] = val
        for i, eqn in enumerate(jaxpr.eqns):
            operands = [read(x) for x in eqn.invars]
            segment = f"{eqn.primitive.name}#{i}"
            location = self.location(eqn, [*self.name_stack, segment])
            self.name_stack.append(segment)  # names what the rule lowers inline
            self._eqns.append(eqn)
            try:
                with location:
                    outs = self._lower_eqn(eqn, operands, "/".join(self.name_stack[:-1]))
            finally:
                self.name_stack.pop()
                self._eqns.pop()
            if eqn.primitive not in unconstrained_results:
                outs = [self.typed_annotation(val, v.aval) for val, v in zip(outs, eqn.outvars)]
            for v, val in zip(eqn.outvars, outs, strict=True):
                env[v] = val
        return [read(x) for x in jaxpr.outvars]

    def _lower_eqn(self, eqn: Any, operands: list[Any], prefix: str) -> list[Any]:
        prim = eqn.primitive
        try:
            rule = core.lowering_rules[prim]
        except NotImplementedError as e:  # "MLIR translation rule for primitive 'foo' not found"
            e.add_note(
                f"while lowering {prefix} to StableHLO: register one with "
                f"didax.core.lowering_rules.register({prim.name}_p, rule)"
            )
            raise
        ctx = core.LoweringContext(
            self.hlo,
            self.ir,
            tuple(x.aval for x in eqn.invars),
            tuple(v.aval for v in eqn.outvars),
            self,
        )
        try:
            outs = rule(ctx, *operands, **eqn.params)
        except (NotImplementedError, LoweringError):
            raise
        except Exception as e:
            types_in = ", ".join(a.str_short() for a in ctx.avals_in)
            types_out = ", ".join(a.str_short() for a in ctx.avals_out)
            raise LoweringError(
                f"lowering '{prim}' on ({types_in}) -> ({types_out}) "
                f"failed: {type(e).__name__}: {e}"
            ) from e
        outs = list(outs)
        if len(outs) != len(eqn.outvars):
            raise LoweringError(
                f"the lowering rule for '{prim}' returned {len(outs)} values "
                f"for {len(eqn.outvars)} outputs"
            )
        for out, v in zip(outs, eqn.outvars):
            if out.type != self.tensor_type(v.aval):
                raise LoweringError(
                    f"the lowering rule for '{prim}' returned a value of type "
                    f"{out.type} for an output of type {v.aval.str_short()}"
                )
        return outs

    def location(self, eqn: Any, names: Sequence[str]) -> Any:
        """The MLIR location of `eqn`'s ops, named `names` joined by `/` (see the module
        docstring)."""
        op_name = "/".join(names)
        info: si.SourceInfo | None = eqn.source_info
        if info is None:
            return self.ir.Location.name(op_name)
        line, end_line, col, end_col = info._position()
        line = info.code.co_firstlineno if line is None else line
        if end_line is None or end_col is None:
            file_loc = self.ir.Location.file(info.file, line, col or 0)
        else:
            file_loc = self.ir.Location.file(info.file, line, col or 0, end_line, end_col)
        return self.ir.Location.name(op_name, self.ir.Location.name(info.function, file_loc))

    def call_function(
        self,
        name: str,
        closed: ClosedJaxpr,
        args: Sequence[Any],
        arg_shardings: Sequence[str | None] = (),
        result_shardings: Sequence[str | None] = (),
    ) -> list[Any]:
        """Lower `closed` once as a private function of this module (named after `name`)
        and emit a call to it on `args`; returns the call's results. The HLO shardings
        `arg_shardings`/`result_shardings` (None: none) annotate the function's arguments
        and results, as `@Sharding` custom calls inside it (as JAX lowers a nested jit's
        shardings: XLA keeps no sharding attributes on a private function's signature)."""
        key = (id(closed), tuple(arg_shardings), tuple(result_shardings))
        found = self._functions.get(key)
        if found is None:
            symbol = self._fresh_symbol(name)
            # named relative to the function: XLA's inliner puts the call's name before
            outer, self.name_stack = self.name_stack, []
            try:
                with self.ir.Location.unknown():
                    self._build_function(
                        symbol,
                        closed,
                        public=False,
                        scope=None,
                        arg_shardings=arg_shardings,
                        result_shardings=result_shardings,
                    )
            finally:
                self.name_stack = outer
            self._functions[key] = found = (closed, symbol)  # keeps `closed` alive
        symbol = found[1]
        result_types = [self.tensor_type(a) for a in closed.out_avals]
        # the call is named as JAX names it, `jit(g)`, with the index of the calling equation
        names = list(self.name_stack)
        if names and self._eqns:
            names[-1] = f"jit({name})#{names[-1].rpartition('#')[2]}"
            location = self.location(self._eqns[-1], names)
        else:
            location = self.ir.Location.name("/".join([*names, f"jit({name})"]))
        with location:
            call = self.func.CallOp(result_types, self.ir.FlatSymbolRefAttr.get(symbol), list(args))
        return list(call.results)

    def sharding_annotation(self, x: Any, text: str, config: str = "") -> Any:
        """`x` marked to be split as `text` (`sharding_text`) says: Shardy's
        `sdy.sharding_constraint`, or XLA's `@Sharding` custom call for a GSPMD text, as JAX
        writes them (`config`: the custom call's backend_config, `unspecified_dims=[0]`)."""
        if text.startswith("#sdy"):
            return self.sdy.ShardingConstraintOp(x, self.ir.Attribute.parse(text)).result
        return self.spmd_call("Sharding", x, x.type, text, config)

    def spmd_call(self, target: str, x: Any, result_type: Any, text: str, config: str = "") -> Any:
        """XLA's SPMD custom call `target` (`Sharding`, `SPMDFullToShardShape`,
        `SPMDShardToFullShape`) on `x`, with the HLO sharding `text` and backend config
        `config`, as JAX writes them."""
        op = self.hlo.CustomCallOp(
            [result_type],
            [x],
            call_target_name=target,
            backend_config=self.ir.StringAttr.get(config),
        )
        op.attributes["mhlo.sharding"] = self.ir.StringAttr.get(text)
        return op.results[0]

    def call_built(self, name: str, result_types: list[Any], build: Any) -> list[Any]:
        """A private function of no arguments (named after `name`) whose body `build()`
        emits and returns, and a call to it here; returns the call's results."""
        symbol = self._fresh_symbol(name)
        with self.ir.InsertionPoint(self.module.body), self.ir.Location.unknown():
            fn = self.func.FuncOp(symbol, self.ir.FunctionType.get([], result_types))
        fn.attributes["sym_visibility"] = self.ir.StringAttr.get("private")
        with self.ir.InsertionPoint(fn.add_entry_block()):
            self.func.ReturnOp(build())
        call = self.func.CallOp(result_types, self.ir.FlatSymbolRefAttr.get(symbol), [])
        return list(call.results)

    def typed_annotation(self, x: Any, aval: ShapedArray) -> Any:
        """`x` constrained to the split its type says (sharding in types: JAX constrains each
        result of an `Explicit`-typed program), in a partitioned program outside a shard_map
        body; in a body manual over some of the mesh's axes only (with Shardy), left open to
        the partitioner along the others (`<@mesh, [{?}, {?}]>`, as JAX constrains each
        result there); `x` itself otherwise."""
        if self.manual_mesh is not None:
            if not self.free_axes():
                return x
            if config.read("jax_use_shardy_partitioner"):
                return self.sharding_annotation(x, self._free_text(aval))
            text = partial_manual_text(self.manual_mesh, self.manual_axes, aval.ndim)
            return self.sharding_annotation(x, text, unspecified_dims(aval.ndim))
        if type(aval) is not ShardedArray or self.device_assignment is None:
            return x
        if _is_constraint(x):  # (a rule that constrains its result: reshard)
            return x
        named = typed_sharding.named(aval)
        return self.sharding_annotation(x, sharding_text(named, aval.ndim, self.device_assignment))

    def _free_text(self, aval: ShapedArray) -> str:
        # a value in a body manual over some axes: open to the partitioner along free `Auto`
        # axes, split as its type says along free `Explicit` ones (closed), as JAX's
        mesh = self.manual_mesh
        types = dict(zip(mesh.axis_names, mesh.axis_types, strict=True))
        if any(types[a] is not AxisType.Explicit for a in self.free_axes()):
            return open_text(aval.ndim)
        named = typed_sharding.named(aval, mesh)
        return sharding_text(named, aval.ndim, self.device_assignment)

    def free_axes(self) -> tuple[Any, ...]:
        """The mesh axes a shard_map body being lowered is not manual over (none outside)."""
        if self.manual_mesh is None:
            return ()
        return tuple(a for a in self.manual_mesh.axis_names if a not in self.manual_axes)

    def _annotated(self, values: list[Any], texts: Sequence[str | None]) -> list[Any]:
        if not any(t is not None for t in texts):
            return values
        return [x if t is None else self.sharding_annotation(x, t) for x, t in zip(values, texts)]

    def _fresh_symbol(self, name: str) -> str:
        base = _symbol_name(name)
        symbol, i = base, 0
        while symbol in self._symbols:
            symbol, i = f"{base}_{i}", i + 1
        self._symbols.add(symbol)
        return symbol

    def _build_function(
        self,
        symbol: str,
        closed: ClosedJaxpr,
        *,
        public: bool,
        scope: str | None,
        arg_shardings: Sequence[str | None] = (),
        result_shardings: Sequence[str | None] = (),
    ) -> Any:
        arg_types = [self.tensor_type(a) for a in closed.in_avals]
        result_types = [self.tensor_type(a) for a in closed.out_avals]
        with self.ir.InsertionPoint(self.module.body):
            fn = self.func.FuncOp(symbol, self.ir.FunctionType.get(arg_types, result_types))
        fn.attributes["sym_visibility"] = self.ir.StringAttr.get("public" if public else "private")
        block = fn.add_entry_block()
        if scope is not None:
            self.name_stack.append(scope)
        try:
            with self.ir.InsertionPoint(block):
                args = self._annotated(list(block.arguments), arg_shardings)
                results = self.lower_jaxpr(closed, args)
                self.func.ReturnOp(self._annotated(results, result_shardings))
        finally:
            if scope is not None:
                self.name_stack.pop()
        return fn


# Primitives whose results JAX leaves unconstrained in a shard_map body manual over some
# axes only (collectives, the casts of varying types, nested shard_maps); their modules add
# them at import.
unconstrained_results: set[core.Primitive] = set()


def unspecified_dims(ndim: int) -> str:
    """The backend config of GSPMD's `@Sharding` leaving every dimension to the partitioner."""
    return f"unspecified_dims=[{','.join(map(str, range(ndim)))}]" if ndim else ""


def open_text(ndim: int) -> str:
    """Shardy's sharding of an `ndim`-d value left to the partitioner on every dimension."""
    return f"#sdy.sharding<@mesh, [{', '.join(['{?}'] * ndim)}]>"


def _is_constraint(x: Any) -> bool:
    op = x.owner  # (a block, for a function's argument a rule returns as it is)
    name = getattr(op, "name", None)
    return name == "sdy.sharding_constraint" or (
        name == "stablehlo.custom_call" and str(op.attributes["call_target_name"]) == '"Sharding"'
    )


def sharding_text(
    sharding: Any, ndim: int, devices: Sequence[Any], open_dims: Any = frozenset()
) -> str:
    """How a program on `devices` states that an `ndim`-d value is split as `sharding` (a
    NamedSharding) says: Shardy's `#sdy.sharding<@mesh, [{"x"}, {}]>` (`{"x", ?}`, `{?}`: a
    dimension in `open_dims`, left to the partitioner beyond the axes it names), or with
    `jax_use_shardy_partitioner` off, GSPMD's HLO sharding text."""
    if not config.read("jax_use_shardy_partitioner"):
        return sharding.hlo_text(ndim, devices)
    dims = []
    for d in range(ndim):
        names = [f'"{a}"' for a in sharding.spec.axes_of(d)] + (["?"] if d in open_dims else [])
        dims.append("{" + ", ".join(names) + "}")
    return f"#sdy.sharding<@mesh, [{', '.join(dims)}]>"


def _sharding_attr(builder: ModuleBuilder, text: str) -> tuple[str, Any]:
    if text.startswith("#sdy"):
        return "sdy.sharding", builder.ir.Attribute.parse(text)
    return "mhlo.sharding", builder.ir.StringAttr.get(text)


def _mesh_op(builder: ModuleBuilder, mesh: Any) -> None:
    # `sdy.mesh @mesh = <["x"=2, "y"=2]>` with its `stablehlo.mesh` form, as JAX writes it
    ir = builder.ir
    axes = ", ".join(f'"{n}"={s}' for n, s in zip(mesh.axis_names, mesh.axis_sizes, strict=True))
    with ir.InsertionPoint(builder.module.body):
        op = builder.sdy.MeshOp("mesh", ir.Attribute.parse(f"#sdy.mesh<[{axes}]>"))
    listed = ", ".join(
        f'{{name = "{n}", size = {s} : i64}}'
        for n, s in zip(mesh.axis_names, mesh.axis_sizes, strict=True)
    )
    op.operation.attributes["stablehlo.mesh"] = ir.Attribute.parse(f"{{axes = [{listed}]}}")


def _symbol_name(name: str) -> str:  # "<lambda>" -> "_lambda", as JAX spells it
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name).rstrip("_") or "fn"


def _dense_attr(builder: ModuleBuilder, array: np.ndarray) -> Any:
    ir = builder.ir
    array = np.asarray(array, order="C")  # (ascontiguousarray would make 0-d 1-d)
    tensor = builder.tensor_type(ShapedArray(array.shape, array.dtype))
    flat = array.reshape(-1)
    if flat.size and array.dtype.kind != "c" and _all_equal(flat):  # a splat: one element
        return ir.DenseElementsAttr.get_splat(tensor, _scalar_attr(builder, flat[:1]))
    if dtypes.bfloat16 is not None and array.dtype == dtypes.bfloat16:
        # MLIR reads bfloat16 from its raw 16 bits
        return ir.DenseElementsAttr.get(
            array.view(np.uint16), type=tensor.element_type, shape=list(array.shape)
        )
    return ir.DenseElementsAttr.get(array, type=tensor.element_type, shape=list(array.shape))


def _all_equal(flat: np.ndarray) -> bool:
    bits = flat.view(f"u{flat.dtype.itemsize}")  # bitwise, so that NaNs compare equal
    return bool((bits == bits[0]).all())


def _scalar_attr(builder: ModuleBuilder, array: np.ndarray) -> Any:
    ir = builder.ir
    element = builder.element_type(array.dtype)
    value = array[0].item()
    if array.dtype == np.bool_:
        return ir.BoolAttr.get(bool(value))
    if array.dtype.kind in "iu":
        return ir.IntegerAttr.get(element, int(value))
    return ir.FloatAttr.get(element, float(value))


def lower_jaxpr_to_module(
    closed: ClosedJaxpr,
    name: str,
    aliases: Sequence[int | None] = (),
    *,
    replica_axes: tuple[tuple[Any, int], ...] = (),
    device_assignment: Sequence[Any] | None = None,
    in_shardings: Sequence[str | None] = (),
    out_shardings: Sequence[str | None] = (),
    mesh: Any = None,
) -> ModuleBuilder:
    """The StableHLO module of `closed`: `main` takes its inputs, returns its outputs.
    `aliases[i]`, if given and not None, is the output that may reuse input i's buffer
    (a donated input: `tf.aliasing_output` on the argument, as JAX marks it).
    `replica_axes` ((name, size), as pmap binds it): the program runs once per replica and
    collectives over that axis act across replicas.
    `device_assignment` (N devices) makes an SPMD program (`mhlo.num_partitions = N`) whose
    arguments are split as the HLO shardings `in_shardings` say and whose outputs as
    `out_shardings` say (None: XLA chooses; no attribute; texts from `sharding_text`), as
    `sdy.sharding` attributes over `mesh` (an `sdy.mesh`) or GSPMD's `mhlo.sharding`, as JAX
    marks them; XLA's SPMD partitioner splits the program.
    Raises NotImplementedError for a primitive without a lowering rule and LoweringError
    (a ValueError) when a rule fails or the module does not verify."""
    builder = ModuleBuilder(f"jit_{name}" if not replica_axes else f"pmap_{name}")
    builder.replica_axes = tuple(replica_axes)
    if device_assignment is not None:
        builder.device_assignment = tuple(device_assignment)
    with builder.context, builder.ir.Location.unknown():
        ir = builder.ir
        i32 = ir.IntegerType.get_signless(32)
        attrs = builder.module.operation.attributes
        if replica_axes:  # as JAX's modules state it
            replicas = int(np.prod([size for _, size in replica_axes]))
            attrs["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, replicas)
            attrs["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, 1)
        elif device_assignment is not None:
            attrs["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, len(device_assignment))
            attrs["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
        if mesh is not None and config.read("jax_use_shardy_partitioner"):
            _mesh_op(builder, mesh)
        main = builder._build_function("main", closed, public=True, scope=f"jit({name})")
        arg_attrs: list[dict[str, Any]] = [{} for _ in closed.in_avals]
        for i, a in enumerate(aliases):
            if a is not None:
                arg_attrs[i]["tf.aliasing_output"] = ir.IntegerAttr.get(i32, a)
        for i, text in enumerate(in_shardings):
            if text is not None:
                key, value = _sharding_attr(builder, text)
                arg_attrs[i][key] = value
        if any(arg_attrs):
            main.attributes["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(d) for d in arg_attrs])
        if any(t is not None for t in out_shardings):
            main.attributes["res_attrs"] = ir.ArrayAttr.get(
                [
                    ir.DictAttr.get({} if t is None else dict([_sharding_attr(builder, t)]))
                    for t in out_shardings
                ]
            )
        _verify(builder)
    return builder


def _verify(builder: ModuleBuilder) -> None:
    try:
        builder.module.operation.verify()
    except Exception as e:  # noqa: BLE001 - jaxlib's MLIRError, whose diagnostics name the op
        raise LoweringError(
            f"the lowered module does not verify:\n{e}\n\n{module_text(builder)}"
        ) from None


def module_text(builder: ModuleBuilder, debug_info: bool = False) -> str:
    """The module as StableHLO text (as `jax.jit(f).lower(x).as_text()` prints it); with
    `debug_info`, each op's location (its op name and the user's source)."""
    with builder.context:
        if debug_info:
            return builder.module.operation.get_asm(enable_debug_info=True)
        return str(builder.module)
