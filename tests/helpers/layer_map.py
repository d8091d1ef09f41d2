"""The layer map tests/test_layers.py checks the source against (STYLE.md §2): the folders
that make the package, the rank of each engine module (`ORDER`: a module imports only modules
of lower rank), what layer 6 (display, figures, widgets, magics) may use of the engine
(`PUBLIC`), the deliberate exceptions (`ALLOWED`) and the functions that may import (`HOOKS`).
A new module gets its place here."""

from __future__ import annotations

PACKAGES = {
    "core": "didax",
    "display": "didax.display",
    "magics": "didax.magics",
    "widgets": "didax.widgets",
}
# in import order; didax.figures (the course's diagrams) draws through didax.display
LAYER_6 = ("didax.display", "didax.figures", "didax.widgets", "didax.magics")

# Rank of each engine module: (layer, position in its layer's list). A module may import a
# module of lower rank only. Package `__init__`s of runtime/, primitives/, interpreters/,
# control_flow/, compile/ and parallel/ only hold a docstring; each sits before its modules.
ORDER: dict[str, tuple[int, int]] = {}


def _rank(layer: int, prefix: str, names: list[str]) -> None:
    """Rank `prefix + name` for each of `names`, in order, in `layer`."""
    for i, name in enumerate(names):
        ORDER[prefix + name] = (layer, i)


_rank(
    1,
    "didax.",
    [
        "interrupts",
        "config",
        "nan_checks",
        "source_info",
        "dtypes",
        "array_runtime",
        "array",
        "ref_types",
        "sharded_aval",
        "rule_tables",
        "tracer_errors",
        "core",
        # the runtime floor: the PJRT client (and the distributed state it is made from),
        # joining processes, compiling and launching programs, meshes and shardings (which
        # install the `array_runtime.Runtime` protocol)
        "runtime",
        "runtime.plugins",
        "runtime.host_memory",
        "runtime.client",
        "runtime.transfer_guard",
        "runtime.placement",
        "runtime.distributed",
        "runtime.executable",
        "runtime.sharding",
        # the hand-inlined hot paths: eager closures, the jit key and call, the launch
        "fast_path",
        # pretty (the layout engine) before jaxpr (the IR and its printer)
        "pretty",
        "jaxpr",
        # the type rules of a check_vma shard_map body (varying manual axes)
        "vma",
        # sharding in types: the context mesh, results' splits over Explicit axes
        "typed_sharding",
        "tree_util",
        "api_util",
    ],
)
ORDER["didax.primitives"] = (2, -1)
_rank(
    2,
    "didax.primitives.",
    [
        "rules",
        "convert",
        "shape",
        "creation",
        "ad_helpers",
        "vmap_helpers",
        "concatenation",
        "tiling",
        "comparison",
        "elementwise.arithmetic",
        "elementwise.complex_parts",
        "elementwise.transcendental",
        "elementwise",
        "hyperbolic",
        "trigonometric",
        "reductions",
        "dot",
        "precision_barriers",
        "bits",
        "bit_counts",
        "special",
        "bessel",
        "sorting",
        "slicing.gather",
        "slicing.scatter",
        "slicing.dynamic_slice",
        "slicing",
        "selection",
        "debugging",
        "refs",
        "parallel",
        "linalg",
        "decompositions",
        "eig",
        "schur",
        "convolution",
        "windows",
        "cumulative",
        "sharding_rules",
    ],
)
ORDER["didax.interpreters"] = (3, -1)
_rank(
    3,
    "didax.interpreters.",
    ["staging", "discharge", "jvp", "vmap", "partial_eval", "transpose", "lowering", "stepping"],
)
# Layer 4, three packages in this order, each `__init__` only a docstring: control_flow
# (common holds the helpers cond, scan and while_loop share; custom_derivatives holds
# custom_jvp and what custom_vjp shares; while_loop uses scan: fori_loop with static bounds is
# a scan), compile (jit: its sharding constraints, AOT stages and sharded programs, its
# primitive, then the call path, eager operations on split Arrays) and parallel (the
# collectives, the spec helpers and checks, then shard_map and pmap, which are jitted
# programs).
_rank(
    4,
    "didax.",
    [
        "control_flow",
        "control_flow.common",
        "control_flow.ref_carries",
        "control_flow.custom_derivatives",
        "control_flow.custom_vjp",
        "control_flow.custom_gradient",
        "control_flow.python_loops",
        "control_flow.checkpoint_policies",
        "control_flow.checkpoint",
        "control_flow.cond",
        "control_flow.solves",
        "control_flow.scan",
        "control_flow.loops",
        "control_flow.while_loop",
        "control_flow.custom_batching",
        "control_flow.pure_callback",
        "control_flow.reducers",
        "compile",
        "compile.debugging",
        "compile.sharding_constraint",
        "compile.stages",
        "compile.jit_primitive",
        "compile.jit_refs",
        "compile.jit",
        "compile.eager_split",
        "compile.caches",
        "parallel",
        "parallel.collectives",
        "parallel.exchanges",
        "parallel.specs",
        "parallel.manual",
        "parallel.replicated",
        "parallel.shard_map",
        "parallel.pmap",
    ],
)
_rank(
    5,
    "",
    # didax.lax is the facade over primitives (layer 2) and control flow (layer 4)
    [
        "didax.lax.linalg",
        "didax.lax.incomplete_gamma",
        "didax.lax",
        "didax.api",
        "didax.derivatives",
        "didax.ad_checkpoint",
        "didax.custom_batching",
        "didax.custom_derivatives",
        "didax.debug",
        "didax.errors",
        "didax.sharding",
        "didax.distributed",
        "didax.numpy.axis_args",
        "didax.numpy.promotion",
        "didax.numpy.inner_jit",
        "didax.numpy.creation",
        "didax.numpy.dtype_functions",
        "didax.numpy.manipulation",
        "didax.numpy.ufuncs",
        "didax.numpy.reductions",
        "didax.numpy.products",
        "didax.numpy.methods",
        "didax.numpy.indexing",
        "didax.numpy.index_take",
        "didax.numpy.index_update",
        "didax.numpy.predicates",
        "didax.numpy.complex_parts",
        "didax.numpy.cumulative",
        "didax.numpy.sorting",
        "didax.numpy.tensor_products",
        "didax.numpy.signal",
        "didax.numpy.setops",
        "didax.numpy.mathfuncs",
        "didax.numpy.rearrange",
        "didax.numpy.diagonals",
        "didax.numpy.index_grids",
        "didax.numpy.constructors",
        "didax.numpy.statistics",
        "didax.numpy.calculus",
        "didax.numpy.float_parts",
        "didax.numpy.integer_math",
        "didax.numpy.array_edit",
        "didax.numpy.functional",
        "didax.numpy.host_io",
        "didax.numpy.linalg.solves",
        "didax.numpy.linalg.decompositions",
        "didax.numpy.linalg.norms",
        "didax.numpy.linalg.products",
        "didax.numpy.linalg",
        "didax.numpy.differences",
        "didax.numpy",
        "didax.numpy.stable",
        "didax.refs",
        "didax.ref",
        "didax.random.prng",
        "didax.random.samplers",
        "didax.random.gamma_primitive",
        "didax.random.distributions",
        "didax.random.discrete",
        "didax.random",
        "didax.nn.functions",
        "didax.nn.attention",
        "didax.nn.initializers",
        "didax.nn",
        "didax.tree",
        "didax.scipy.special",
        "didax.scipy.linalg",
        "didax.scipy.stats.bernoulli",
        "didax.scipy.stats.beta",
        "didax.scipy.stats.cauchy",
        "didax.scipy.stats.chi2",
        "didax.scipy.stats.dirichlet",
        "didax.scipy.stats.expon",
        "didax.scipy.stats.gamma",
        "didax.scipy.stats.laplace",
        "didax.scipy.stats.logistic",
        "didax.scipy.stats.multivariate_normal",
        "didax.scipy.stats.norm",
        "didax.scipy.stats.poisson",
        "didax.scipy.stats.t",
        "didax.scipy.stats.uniform",
        "didax.scipy.stats.truncnorm",
        "didax.scipy.stats.geom",
        "didax.scipy.stats.nbinom",
        "didax.scipy.stats.pareto",
        "didax.scipy.stats.gumbel_r",
        "didax.scipy.stats.gumbel_l",  # computes from gumbel_r's `standardized`
        "didax.scipy.stats",
        "didax.scipy",
        "didax.test_util",
        "didax.extend.core",
        "didax.extend",
        "didax.experimental.shard_map",
        "didax.experimental",
        "didax",
        "didax.course",  # the build-it-yourself notebook's checkers, over the public API
    ],
)

# Layer 6 (display/, magics/, widgets/) uses the public API only (+ didax.core, didax.jaxpr
# and didax.pretty to inspect and print jaxprs, and the stepping interpreter the Stepper
# drives), and its own modules in the order display -> widgets -> magics.
PUBLIC = {
    "didax",
    "didax.numpy",
    "didax.lax",
    "didax.nn",
    "didax.tree_util",
    "didax.random",
    "didax.tree",
    "didax.errors",
    "didax.sharding",
    "didax.core",
    "didax.jaxpr",
    "didax.pretty",
    "didax.interpreters",
    "didax.interpreters.stepping",
    "didax.api_util",  # arg_names: the one argument-name helper
}

# Known, deliberate exceptions: (importer, imported) -> why.
ALLOWED: dict[tuple[str, str], str] = {}

# Functions that may import: `import didax` must not import IPython.
HOOKS = {
    ("didax", "load_ipython_extension"),
    ("didax", "unload_ipython_extension"),
}
