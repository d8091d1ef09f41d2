"""Several processes, one set of devices. Like `jax.distributed` (`didax.distributed`
re-exports it).

Layer 1, the runtime floor, after client.py: `initialize` fills the client's
`global_state`, which the client is made from, and refuses once the client has started. The
same program runs in every process; `initialize` (called first, before any computation)
connects them through jaxlib's distributed runtime: process 0 also runs the coordination
service at `coordinator_address`, every process connects a client to it, and the runtime then
makes a CPU client that knows the devices of all processes (`didax.devices()`, ids 0..N-1
process by process) and runs cross-process collectives over TCP with gloo. A `pmap` over every
device then psums across processes; each process passes and gets back its own slice (leading
axis = `local_device_count()`).
"""

from __future__ import annotations

from collections.abc import Sequence

from didax.runtime.client import global_state, jaxlib_module, started

__all__ = ["global_state", "initialize", "is_initialized", "shutdown"]


def initialize(
    coordinator_address: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
    local_device_ids: int | Sequence[int] | None = None,
    *,
    initialization_timeout: int = 300,
    heartbeat_timeout_seconds: int = 100,
    shutdown_timeout_seconds: int = 300,
) -> None:
    """Join this process to the others. Like `jax.distributed.initialize`, without cluster
    auto-detection: pass `coordinator_address` ("host:port" of process 0),
    `num_processes` and `process_id`. `local_device_ids` is accepted (CPU devices all
    belong to their process); ask for N CPU devices per process as usual (XLA_FLAGS or
    `config.update("jax_num_cpu_devices", N)`).

    Raises:
      RuntimeError: called twice, or after the client started (any computation, or
        `devices()`).
      ValueError, TypeError: a missing or invalid argument, as JAX's.
    """
    if started():
        raise RuntimeError(
            "didax.distributed.initialize() must be called before any didax calls that might "
            "initialise the XLA backend. This includes any computation, but also calls to "
            "didax.devices, didax.device_put, and others."
        )
    if global_state.client is not None:
        raise RuntimeError("distributed.initialize should only be called once.")
    if coordinator_address is None:
        raise ValueError("coordinator_address should be defined.")
    if num_processes is None:
        raise ValueError("Number of processes must be defined.")
    if process_id is None:
        raise ValueError("The process id of the current process must be defined.")
    if not isinstance(process_id, int):
        raise TypeError(
            "process_id must be a nonnegative int. "
            f"Got process_id={process_id} of type {type(process_id)}."
        )
    if not isinstance(num_processes, int):
        raise TypeError(
            "num_processes must be a positive int. "
            f"Got num_processes={num_processes} of type {type(num_processes)}."
        )
    if not 0 <= process_id < num_processes:
        raise ValueError(
            "process_id and num_processes must be nonnegative, with process_id < "
            f"num_processes. Got process_id={process_id}, num_processes={num_processes}."
        )
    xla = jaxlib_module()
    if process_id == 0:  # the coordinator, listening on every address at that port
        port = coordinator_address.rsplit(":", 1)[1]
        global_state.service = xla.get_distributed_runtime_service(
            f"[::]:{port}",
            num_processes,
            heartbeat_timeout=heartbeat_timeout_seconds,
            shutdown_timeout=shutdown_timeout_seconds,
        )
    client = xla.get_distributed_runtime_client(
        coordinator_address,
        process_id,
        init_timeout=initialization_timeout,
        heartbeat_timeout=heartbeat_timeout_seconds,
        use_compression=True,
    )
    client.connect()  # waits for every process
    global_state.client = client
    global_state.process_id = process_id
    global_state.num_processes = num_processes
    global_state.coordinator_address = coordinator_address


def is_initialized() -> bool:
    """Whether `initialize` has connected this process. Like
    `jax.distributed.is_initialized`."""
    return global_state.client is not None


def shutdown() -> None:
    """Leave the distributed runtime (nothing happens when not initialized). Like
    `jax.distributed.shutdown`."""
    if global_state.client is not None:
        global_state.client.shutdown()
        global_state.client = None
    if global_state.service is not None:
        global_state.service.shutdown()
        global_state.service = None
