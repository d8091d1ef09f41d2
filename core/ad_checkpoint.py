"""`didax.ad_checkpoint`: rematerialization. Like `jax.ad_checkpoint`.

Layer 5 (re-exports only): `checkpoint`/`remat` and the `remat2` primitive from
`control_flow/checkpoint.py`; `checkpoint_name` and the policies from
`control_flow/checkpoint_policies.py`.
"""

from didax.control_flow.checkpoint import checkpoint, remat, remat_p
from didax.control_flow.checkpoint_policies import checkpoint_name, checkpoint_policies, name_p

__all__ = ["checkpoint", "checkpoint_name", "checkpoint_policies", "name_p", "remat", "remat_p"]
