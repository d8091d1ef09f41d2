"""The jvp rule factories (`rules.zero_jvp`, `ad_helpers.linear_jvp`,
`elementwise.partials_jvp`): a symbolic-zero tangent costs no equation."""

from __future__ import annotations

import didax
import numpy as np
import pytest
from didax import lax

X = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
Y = X[::-1] + 0.5


@pytest.mark.parametrize("op", [lax.max, lax.min], ids=["max", "min"])
@pytest.mark.parametrize("which", [0, 1])
def test_jvp_in_one_operand_stages_no_unused_equation(op, which) -> None:
    # the other operand's partial (a select of `eq`s) is skipped for its zero tangent, as
    # JAX's defjvp skips it; it used to be staged and then read by nothing (`_:` outputs)
    def f(a, b, t):
        if which == 0:
            return didax.jvp(lambda a: op(a, b), (a,), (t,))
        return didax.jvp(lambda b: op(a, b), (b,), (t,))

    closed = didax.make_jaxpr(f)(X, Y, X)
    assert " _:" not in str(closed), closed
    primal, tangent = f(X, Y, X)
    wins = (X > Y) if (op is lax.max) == (which == 0) else (X < Y)
    np.testing.assert_allclose(np.asarray(tangent), np.where(wins, X, 0.0))
