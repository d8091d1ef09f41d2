"""`didax.sharding`: meshes of devices, partition specs, and where each block of an array
lives. Like `jax.sharding`.

Layer 5: re-exports only. The classes live in the runtime floor (`didax.runtime.sharding`),
which the engine imports directly; the context mesh and sharding in types in
`didax.typed_sharding`, `reshard` in `didax.compile.sharding_constraint`.
"""

from didax.compile.sharding_constraint import reshard
from didax.runtime.client import SingleDeviceSharding
from didax.runtime.sharding import (
    AxisType,
    DuplicateSpecError,
    IndivisibleError,
    Mesh,
    NamedSharding,
    P,
    PartitionSpec,
    Shard,
    make_array_from_callback,
    make_mesh,
    visualize_array_sharding,
)
from didax.typed_sharding import (
    AbstractMesh,
    ShardingTypeError,
    get_abstract_mesh,
    get_mesh,
    set_mesh,
)

__all__ = [
    "AbstractMesh",
    "AxisType",
    "DuplicateSpecError",
    "IndivisibleError",
    "Mesh",
    "NamedSharding",
    "P",
    "PartitionSpec",
    "Shard",
    "ShardingTypeError",
    "SingleDeviceSharding",
    "get_abstract_mesh",
    "get_mesh",
    "make_array_from_callback",
    "make_mesh",
    "reshard",
    "set_mesh",
    "visualize_array_sharding",
]
