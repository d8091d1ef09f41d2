"""The first-order primitives, one module per family (internal; the public names are
re-exported by the `didax.lax` facade).

Layer 2 package, like JAX's `jax._src.lax`. Family modules, in import order: rules (rule
factories), convert, shape (structural ops, reduce_sum, move_axis), creation (iota, full),
ad_helpers and vmap_helpers (the helpers jvp, transpose and vmap rules build on), concatenation
(slice, pad, concatenate, stack), comparison, elementwise/ (arithmetic, complex_parts,
transcendental), reductions, dot, bits (shifts,
xor, bitcast, threefry2x32), special (erf, erf_inv, nextafter), sorting (sort), slicing/
(gather, scatter, dynamic_slice). This
`__init__` imports nothing, so the engines (layer 3) and control flow (layer 4) can import a
family without running the facade, which itself imports control flow.
"""
