"""`didax.sharding`: meshes of devices, partition specs, and where each block of an array
lives. Like `jax.sharding`.

Layer 5: re-exports only. The classes live in the runtime floor (`didax.runtime.sharding`),
which the engine imports directly.
"""

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

__all__ = [
    "AxisType",
    "DuplicateSpecError",
    "IndivisibleError",
    "Mesh",
    "NamedSharding",
    "P",
    "PartitionSpec",
    "Shard",
    "SingleDeviceSharding",
    "make_array_from_callback",
    "make_mesh",
    "visualize_array_sharding",
]
