"""Control flow (layer 4): cond and switch, while_loop and fori_loop, scan, the linear
solves, custom derivatives; `common` holds what their rules share. This `__init__` imports
nothing."""
