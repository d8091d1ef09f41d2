"""Several processes, one set of devices. Like `jax.distributed` (`didax.distributed`
re-exports it).

Layer 1, the runtime floor, after client.py: `initialize` records its connection in the
client's `global_state` (`connected`; `shutdown` calls `disconnected`), which the client is
made from, and refuses once the client has started. The
same program runs in every process; `initialize` (called first, before any computation)
connects them through jaxlib's distributed runtime: process 0 also runs the coordination
service at `coordinator_address`, every process connects a client to it, and the runtime then
makes a CPU client that knows the devices of all processes (`didax.devices()`, ids 0..N-1
process by process) and runs cross-process collectives over TCP with gloo. A `pmap` over every
device then psums across processes; each process passes and gets back its own slice (leading
axis = `local_device_count()`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from didax.runtime.client import global_state, jaxlib_module, started

__all__ = ["global_state", "initialize", "is_initialized", "shutdown"]


def _fail_in_caller(*_status: Any) -> None:
    """The client's error callback (never runs). jaxlib's default one ends the process
    (`F... Terminating process because the JAX distributed service detected fatal errors`);
    given a Python function, jaxlib cannot pass it the C++ status (`std::bad_cast`): in
    the thread that waits in `connect`, that surfaces as a RuntimeError didax turns into
    its own; on jaxlib's error-polling thread it still ends the process."""


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

    Timeouts, in seconds (JAX's names and defaults; measured on jaxlib 0.10.2, CPU):
    - `initialization_timeout`: how long every process waits for all of them to connect;
      then this raises a RuntimeError (process 0 after that time, the others up to ~5 s
      later) and may be called again. JAX's process ends instead (measured: both processes
      alone, each waiting for the other's coordinator or peer, ended after 308 s).
    - `heartbeat_timeout_seconds`: how long a process may go silent before the others count
      it dead. jaxlib then ends every other process (its coordination service does, from a
      thread of its own: a collective waiting for the dead process waits until then, and no
      Python exception is possible); when the coordinator (process 0) dies, the others end
      at once.
    - `shutdown_timeout_seconds`: how long `shutdown` waits for every process to reach it.

    Raises:
      RuntimeError: called twice, or after the client started (any computation, or
        `devices()`); the processes did not all connect within `initialization_timeout`.
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
    service = None
    if process_id == 0:  # the coordinator, listening on every address at that port
        port = coordinator_address.rsplit(":", 1)[1]
        service = xla.get_distributed_runtime_service(
            f"[::]:{port}",
            num_processes,
            heartbeat_timeout=heartbeat_timeout_seconds,
            shutdown_timeout=shutdown_timeout_seconds,
            cluster_register_timeout=initialization_timeout,  # jaxlib's default: 1 h
        )
    client = xla.get_distributed_runtime_client(
        coordinator_address,
        process_id,
        init_timeout=initialization_timeout,
        heartbeat_timeout=heartbeat_timeout_seconds,
        shutdown_timeout=shutdown_timeout_seconds,
        missed_heartbeat_callback=_fail_in_caller,
        use_compression=True,
    )
    try:
        client.connect()  # waits for every process
    except RuntimeError as e:  # jaxlib's JaxRuntimeError, or the callback's failure
        _stop(client, service)
        raise RuntimeError(
            f"distributed.initialize: the {num_processes} processes did not all connect to "
            f"{coordinator_address} within initialization_timeout={initialization_timeout} s "
            f"(this is process {process_id}; see XLA's log above for which are missing)"
        ) from e
    global_state.connected(
        service, client, process_id, num_processes, coordinator_address, shutdown_timeout_seconds
    )


def is_initialized() -> bool:
    """Whether `initialize` has connected this process. Like
    `jax.distributed.is_initialized`."""
    return global_state.client is not None


def shutdown() -> None:
    """Leave the distributed runtime (nothing happens when not initialized). Like
    `jax.distributed.shutdown`: waits for every process to call it too.

    Raises:
      RuntimeError: not every process reached `shutdown` within `shutdown_timeout_seconds`
        (one died?). The runtime is left as it is: jaxlib ends this process when the
        missing one is counted dead (`heartbeat_timeout_seconds`). (JAX's process is
        ended there, at the shutdown or the heartbeat timeout, whichever comes first.)
    """
    client, service = global_state.client, global_state.service
    if client is None:
        return
    # Meet the others first, through the key-value store, whose waits fail as plain errors:
    # jaxlib's own shutdown barrier, failing, also hands the failure to its error-polling
    # thread, which may end the process before `client.shutdown()` raises.
    me, timeout = global_state.process_id, global_state.shutdown_timeout
    deadline = time.monotonic() + timeout
    client.key_value_set(f"didax_shutdown/{me}", "")
    for other in range(global_state.num_processes):
        left_ms = max(1, int((deadline - time.monotonic()) * 1000))
        try:
            client.blocking_key_value_get(f"didax_shutdown/{other}", left_ms)
        except RuntimeError as e:  # jaxlib's JaxRuntimeError: DEADLINE_EXCEEDED
            raise RuntimeError(
                f"distributed.shutdown: process {other} did not reach shutdown within "
                f"shutdown_timeout_seconds={timeout} s (this is process {me}; it stays "
                f"connected, and jaxlib ends it once process {other} has sent no heartbeat "
                "for heartbeat_timeout_seconds)"
            ) from e
    global_state.disconnected()
    _stop(client, service)


def _stop(client: Any, service: Any) -> None:
    """Shut the client, then the service, down, whatever the client's shutdown says."""
    try:
        client.shutdown()
    except RuntimeError:  # jaxlib's JaxRuntimeError, or the callback's failure
        pass
    finally:
        if service is not None:
            service.shutdown()
