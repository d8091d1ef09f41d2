"""The lowering extension API (`core.LoweringContext`), as a notebook user or a higher-order
primitive (cond, while, scan) uses it: StableHLO builders and types through `ctx`, and
`ctx.lower_jaxpr` to lower a nested jaxpr inline, in the current block or in a region."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
from didax import core
from didax.interpreters import staging


def test_a_user_primitive_with_its_own_lowering_rule() -> None:
    cube_p = core.Primitive("cube")
    cube_p.def_impl(lambda x: [np.asarray(x) ** 3])
    cube_p.def_abstract_eval(lambda x: [x])

    @core.lowering_rules.register(cube_p)
    def _cube_lowering(ctx, x):
        assert ctx.avals_in[0].shape == (3,) and ctx.avals_out[0].dtype == np.float32
        return [ctx.hlo.multiply(x, ctx.hlo.multiply(x, x))]

    x = np.array([1.0, 2.0, -3.0], np.float32)
    np.testing.assert_array_equal(np.asarray(didax.jit(lambda x: cube_p.bind(x))(x)), x**3)
    assert "cube" in didax.jit(lambda x: cube_p.bind(x)).lower(x).compile().as_text()


def _closed(fn, *avals):
    return staging.trace_to_jaxpr(fn, list(avals))


def test_lower_jaxpr_inline_in_a_user_higher_order_primitive() -> None:
    # apply_twice[jaxpr=f] x = f(f(x)): its rule lowers the jaxpr twice at the call site
    twice_p = core.Primitive("apply_twice", multiple_results=True)
    twice_p.def_abstract_eval(lambda *avals, jaxpr: list(jaxpr.out_avals))
    twice_p.def_impl(
        lambda *xs, jaxpr: [
            np.asarray(v)
            for v in didax.eval_jaxpr(
                jaxpr.jaxpr, jaxpr.consts, *didax.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs)
            )
        ]
    )

    @core.lowering_rules.register(twice_p)
    def _twice_lowering(ctx, *args, jaxpr):
        return ctx.lower_jaxpr(jaxpr, ctx.lower_jaxpr(jaxpr, list(args)))

    c = np.array([1.0, 2.0], np.float32)
    aval = core.ShapedArray((2,), np.float32)
    body = _closed(lambda x: [jnp.sin(x) * 2.0 + c], aval)

    def f(x):
        return twice_p.bind(x, jaxpr=body)

    x = np.array([0.5, -0.25], np.float32)
    want = np.sin(np.sin(x) * 2 + c) * 2 + c
    np.testing.assert_allclose(np.asarray(didax.jit(f)(x)[0]), want, rtol=1e-6)
    text = didax.jit(f).lower(x).as_text()
    assert text.count("stablehlo.sine") == 2
    assert text.count("dense<[1.000000e+00, 2.000000e+00]>") == 1  # one constant per block


def test_lower_jaxpr_inside_regions() -> None:
    # pick[branches=(f, g)] i x: a stablehlo.case whose regions lower the branch jaxprs,
    # as the control-flow primitives do
    pick_p = core.Primitive("pick", multiple_results=True)
    pick_p.def_abstract_eval(lambda i, *avals, branches: list(branches[0].out_avals))

    @core.lowering_rules.register(pick_p)
    def _pick_lowering(ctx, index, *args, branches):
        out_types = [ctx.tensor_type(a) for a in ctx.avals_out]
        case = ctx.hlo.CaseOp(out_types, index, len(branches))
        for region, branch in zip(case.regions, branches, strict=True):
            block = region.blocks.append()
            with ctx.ir.InsertionPoint(block):
                ctx.hlo.return_(ctx.lower_jaxpr(branch, list(args)))
        return list(case.results)

    aval = core.ShapedArray((2,), np.float32)
    c = np.array([10.0, 20.0], np.float32)
    branches = (_closed(lambda x: [x + c + 1.0], aval), _closed(lambda x: [x * c + 1.0], aval))

    def f(i, x):
        return pick_p.bind(i, x + 1.0, branches=branches)[0]

    x = np.array([1.0, 2.0], np.float32)
    jf = didax.jit(f)
    np.testing.assert_array_equal(np.asarray(jf(np.int32(0), x)), x + 1 + c + 1)
    np.testing.assert_array_equal(np.asarray(jf(np.int32(1), x)), (x + 1) * c + 1)
    assert jf.compilations == 1
