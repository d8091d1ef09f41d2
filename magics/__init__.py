"""didax's IPython extension: `%load_ext didax` registers `%jaxpr`, `%grad`, `%vmap`, `%jit`.

Layer 6. `didax.load_ipython_extension` (core/__init__.py) imports this package only when
IPython loads the extension, so `import didax` never imports IPython. `reports` computes,
`display` renders, `magics` is the IPython glue.
"""

from __future__ import annotations

from typing import Any

from didax.magics.magics import MAGIC_NAMES, DidaxMagics

__all__ = ["DidaxMagics", "load_ipython_extension", "unload_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics with a running IPython shell."""
    ipython.register_magics(DidaxMagics)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the magics again (`%unload_ext didax`)."""
    manager = ipython.magics_manager
    for kind in ("line", "cell"):
        table = manager.magics[kind]
        for name in MAGIC_NAMES:
            if isinstance(getattr(table.get(name), "__self__", None), DidaxMagics):
                del table[name]
    manager.registry.pop(DidaxMagics.__name__, None)
