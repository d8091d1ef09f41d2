"""The gap between `jax.numpy` 0.10.2 and `didax.numpy`: none. Every public callable of
`jax.numpy` exists in `didax.numpy` (issue 24 closed the gap); the recorded list
(`numpy_missing_names.txt`, next to this file) is empty and must stay so."""

from __future__ import annotations

import types
from pathlib import Path

import didax.numpy as dnp
import pytest

jax = pytest.importorskip("jax")
pytestmark = pytest.mark.oracle

RECORDED = Path(__file__).with_name("numpy_missing_names.txt")


def missing_names() -> list[str]:
    return sorted(
        name
        for name in dir(jax.numpy)
        if not name.startswith("_")
        and callable(getattr(jax.numpy, name))
        and not hasattr(dnp, name)
    )


def test_every_public_jax_numpy_callable_exists():
    assert missing_names() == []
    assert RECORDED.read_text().split() == []


def test_missing_numpy_names_do_not_grow():
    missing = missing_names()
    recorded = RECORDED.read_text().split()
    print(f"{len(missing)} jax.numpy names missing from didax.numpy:", " ".join(missing))
    new = sorted(set(missing) - set(recorded))
    assert not new, f"names lost from didax.numpy: {new}"
    assert len(missing) <= len(recorded)


def test_recorded_list_is_current():
    # a name added to didax.numpy leaves the list too, so the recorded figure stays honest
    gone = sorted(set(RECORDED.read_text().split()) - set(missing_names()))
    assert not gone, f"now in didax.numpy, delete from {RECORDED.name}: {gone}"


def test_no_extra_public_names():
    # The other direction: the family modules (creation, promotion, ...) share helpers with
    # public-in-package names (`promote`, `canonical_axes`); none of them is exported
    extra = sorted(
        name
        for name in dir(dnp)
        if not name.startswith("_")
        and not isinstance(getattr(dnp, name), types.ModuleType)
        and not hasattr(jax.numpy, name)
    )
    assert extra == ["OPERATORS"]  # the operator table `core.operator_table` holds
