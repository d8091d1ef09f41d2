"""Run by test_x64_oracle.py in a fresh process (JAX_ENABLE_X64 set or not): how each library
named on the command line reads the variable. Prints one line per library: the flag, the
default float dtype and the default integer dtype.

    python x64_from_env.py didax jax
"""

from __future__ import annotations

import importlib
import sys

for name in sys.argv[1:]:
    lib = importlib.import_module(name)
    np_ = importlib.import_module(f"{name}.numpy")
    print(lib.config.jax_enable_x64, np_.ones(2).dtype, np_.asarray(1).dtype)
