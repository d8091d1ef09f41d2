"""Shared pytest set-up: makes the case table (`tests/op_cases.py`) importable as `op_cases`
from every test folder."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
