"""didax: JAX's core, built from scratch in Python, for learning and inspecting how
programs are transformed and compiled.

`import didax, didax.numpy as jnp`; then `didax.make_jaxpr`, `didax.jvp`, `didax.vmap`, ...
In IPython, `%load_ext didax` adds the `%jaxpr`, `%grad`, `%vmap` and `%jit` magics.
This module only re-exports (layer 5).
"""

from didax import (  # noqa: F401
    core,
    debug,
    distributed,  # noqa: F401
    dtypes,
    errors,  # noqa: F401
    lax,  # noqa: F401
    nn,  # noqa: F401
    numpy,  # noqa: F401 - fills the operator table of Array and Tracer
    random,  # noqa: F401
    sharding,  # noqa: F401
    tree,  # noqa: F401
    tree_util,
)
from didax.api import device_get, device_put, eval_shape, jvp, make_jaxpr, typeof, vmap
from didax.array import Array, ShapeDtypeStruct
from didax.compile.jit import block_until_ready, jit
from didax.config import config
from didax.control_flow.custom_derivatives import custom_jvp
from didax.control_flow.custom_vjp import custom_vjp
from didax.core import ConcretizationTypeError, UnexpectedTracerError
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
from didax.jaxpr import ClosedJaxpr, Jaxpr, JaxprTypeError, eval_jaxpr, typecheck
from didax.parallel.pmap import pmap
from didax.parallel.shard_map import shard_map
from didax.runtime.client import (
    device_count,
    devices,
    local_device_count,
    local_devices,
    process_count,
    process_index,
)
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
    "custom_jvp",
    "custom_vjp",
    "block_until_ready",
    "make_array_from_callback",
    "make_mesh",
    "NamedSharding",
    "P",
    "reshard",
    "set_mesh",
    "config",
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
]


def load_ipython_extension(ipython):  # noqa: ANN001, ANN201
    """`%load_ext didax`: register the magics and the views. IPython is imported only here."""
    from didax.magics import magics  # noqa: PLC0415 - keeps `import didax` free of IPython

    magics.load_ipython_extension(ipython)


def unload_ipython_extension(ipython):  # noqa: ANN001, ANN201
    from didax.magics import magics  # noqa: PLC0415

    magics.unload_ipython_extension(ipython)
