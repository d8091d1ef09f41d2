"""didax: JAX's core, built from scratch in Python, for learning and inspecting how
programs are transformed and compiled.

`import didax, didax.numpy as jnp`; then `didax.make_jaxpr`, `didax.jvp`, `didax.vmap`, ...
In IPython, `%load_ext didax` adds the `%jaxpr`, `%grad`, `%vmap` and `%jit` magics.
This module only re-exports (layer 5).
"""

from didax import (  # noqa: F401
    ad_checkpoint,
    core,
    custom_batching,  # noqa: F401
    custom_derivatives,  # noqa: F401
    debug,
    distributed,  # noqa: F401
    dtypes,
    errors,  # noqa: F401
    lax,  # noqa: F401
    nn,  # noqa: F401
    numpy,  # noqa: F401 - fills the operator table of Array and Tracer
    random,  # noqa: F401
    ref,  # noqa: F401
    sharding,  # noqa: F401
    tree,  # noqa: F401
    tree_util,
)
from didax.ad_checkpoint import checkpoint, checkpoint_policies, remat
from didax.api import (
    device_get,
    device_put,
    eval_shape,
    jvp,
    make_jaxpr,
    named_call,
    named_scope,
    typeof,
    vmap,
)
from didax.array import Array, ShapeDtypeStruct
from didax.compile import eager_split  # noqa: F401 - installs core's split evaluator
from didax.compile.caches import clear_caches
from didax.compile.jit import block_until_ready, jit
from didax.config import (
    config,
    debug_infs,
    debug_nans,
    default_device,
    default_matmul_precision,
    disable_jit,
    enable_x64,
    explain_cache_misses,
    log_compiles,
    numpy_rank_promotion,
    transfer_guard,
    transfer_guard_device_to_device,
    transfer_guard_device_to_host,
    transfer_guard_host_to_device,
)
from didax.control_flow.custom_derivatives import custom_jvp
from didax.control_flow.custom_gradient import closure_convert, custom_gradient
from didax.control_flow.custom_vjp import custom_vjp
from didax.control_flow.pure_callback import pure_callback
from didax.core import ConcretizationTypeError, UnexpectedTracerError
from didax.core import eval_context as ensure_compile_time_eval
from didax.derivatives import (
    grad,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    linear_transpose,
    linearize,
    value_and_grad,
    vjp,
)
from didax.dtypes import float0
from didax.jaxpr import ClosedJaxpr, Jaxpr, JaxprTypeError, eval_jaxpr, typecheck
from didax.parallel.pmap import pmap
from didax.parallel.shard_map import shard_map
from didax.primitives.debugging import effects_barrier
from didax.refs import Ref, empty_ref, free_ref, freeze, new_ref
from didax.runtime.client import (
    default_backend,
    device_count,
    devices,
    local_device_count,
    local_devices,
    process_count,
    process_index,
    process_indices,
)
from didax.runtime.placement import live_arrays
from didax.sharding import (
    NamedSharding,
    P,
    make_array_from_callback,
    make_mesh,
    reshard,
    set_mesh,
)

__version__ = "0.1.0"

__all__ = [
    "Array",
    "ShapeDtypeStruct",
    "ClosedJaxpr",
    "ConcretizationTypeError",
    "Jaxpr",
    "JaxprTypeError",
    "UnexpectedTracerError",
    "eval_jaxpr",
    "jvp",
    "make_jaxpr",
    "typecheck",
    "vmap",
    "pmap",
    "shard_map",
    "grad",
    "hessian",
    "jacfwd",
    "jacrev",
    "linear_transpose",
    "linearize",
    "value_and_grad",
    "vjp",
    "checkpoint",
    "checkpoint_policies",
    "remat",
    "closure_convert",
    "custom_gradient",
    "custom_jvp",
    "effects_barrier",
    "pure_callback",
    "custom_vjp",
    "block_until_ready",
    "make_array_from_callback",
    "make_mesh",
    "NamedSharding",
    "P",
    "reshard",
    "set_mesh",
    "config",
    "debug_infs",
    "debug_nans",
    "default_device",
    "default_matmul_precision",
    "numpy_rank_promotion",
    "transfer_guard",
    "transfer_guard_device_to_device",
    "transfer_guard_device_to_host",
    "transfer_guard_host_to_device",
    "disable_jit",
    "enable_x64",
    "explain_cache_misses",
    "log_compiles",
    "device_count",
    "device_get",
    "device_put",
    "eval_shape",
    "jacobian",
    "typeof",
    "devices",
    "local_device_count",
    "local_devices",
    "process_count",
    "process_index",
    "jit",
    "live_arrays",
    "clear_caches",
    "default_backend",
    "ensure_compile_time_eval",
    "float0",
    "named_call",
    "named_scope",
    "process_indices",
    "Ref",
    "empty_ref",
    "free_ref",
    "freeze",
    "new_ref",
]


def load_ipython_extension(ipython):  # noqa: ANN001, ANN201
    """`%load_ext didax`: register the magics and the views. IPython is imported only here."""
    from didax.magics import magics  # noqa: PLC0415 - keeps `import didax` free of IPython

    magics.load_ipython_extension(ipython)


def unload_ipython_extension(ipython):  # noqa: ANN001, ANN201
    from didax.magics import magics  # noqa: PLC0415

    magics.unload_ipython_extension(ipython)
