"""`didax.default_device` (the context manager and `config.update("jax_default_device", d)`)
and committed Arrays on 4 CPU devices, checked against JAX 0.10.2 run the same way
(`scripts/placement_cases.py`, on the session's 4-device workers): where each result lands
(device ids), whether it is committed, its value, and the errors' types and messages."""

from __future__ import annotations


def test_uncommitted_results_land_on_the_default_device(placement):
    mine, theirs = placement("context")
    assert mine == theirs
    # under the context: eager, asarray, device_put(x), jit of host values, on device 1
    assert mine["ones"][:2] == mine["jit_numpy"][:2] == mine["device_put"][:2] == [[1], False]
    assert mine["after"][:2] == [[1], False] and mine["after_jit"][:2] == [[0], False]


def test_committed_arrays_keep_their_device(placement):
    mine, theirs = placement("committed")
    assert mine == theirs
    assert mine["put"][:2] == mine["jit_under_other"][:2] == mine["eager"][:2] == [[2], True]


def test_config_option_and_platform_name(placement):
    mine, theirs = placement("config_update")
    assert mine == theirs
    assert mine["ones"][0] == [3] and mine["reset"][0] == [0]


def test_jit_compiles_again_for_another_default_device(placement):
    # the first device's cached program is not reused under another default device
    mine, theirs = placement("jit_cache")
    assert mine == theirs
    assert [mine[k][0] for k in ("first", "under", "under_again", "back", "other")] == [
        [0],
        [2],
        [2],
        [0],
        [3],
    ]


def test_errors(placement):
    mine, theirs = placement("errors")
    assert mine == theirs
    assert mine["gpu"][0] == "RuntimeError" and mine["integer"][0] == "ValueError"
    assert mine["jit_incompatible"][0] == mine["eager_incompatible"][0] == "ValueError"


def test_aot_and_donating_calls(placement):
    mine, theirs = placement("aot_and_donation")
    assert mine == theirs
    assert mine["compiled"][0] == mine["donated"][0] == [2]
    assert mine["donated_committed"][:2] == mine["compiled_committed"][:2] == [[3], True]
