"""The interpreters (layer 3): jvp, vmap, staging (make_jaxpr), partial_eval, transpose,
lowering. One module each; rules live with the primitives, not here."""
