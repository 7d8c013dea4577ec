"""Corrections for many tests: one rule, used wherever the book counts significant results."""

from __future__ import annotations

import numpy as np
import pandas as pd

from spalib._core.validation import real_array_iv


def holm_adjusted(pvalues):
    r"""Holm's step-down adjusted p-values of a family of tests.

    Parameters
    ----------
    pvalues : array_like or pandas.Series
        The family's p-values, 1-D, each in [0, 1], none missing.

    Returns
    -------
    numpy.ndarray or pandas.Series
        The adjusted p-values, in the input's order (a Series keeps its index). A test is
        significant at level ``alpha`` after the correction exactly when its adjusted p-value is
        at most ``alpha``.

    Notes
    -----
    With the :math:`m` p-values sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`, the adjusted
    value of :math:`p_{(i)}` is :math:`\min(1, \max_{j \le i} (m - j + 1)\, p_{(j)})`. Comparing
    it with ``alpha`` is Holm's procedure: :math:`p_{(1)}` against :math:`\alpha/m`, the next
    against :math:`\alpha/(m-1)`, and so on, stopping at the first failure. The chance of any
    false rejection stays at or below ``alpha`` whatever the dependence between the tests.

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6(2), 65-70, 1979.

    Examples
    --------
    >>> import spalib
    >>> spalib.holm_adjusted([0.01, 0.04, 0.03, 0.005]).round(3).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    values = real_array_iv(pvalues, "pvalues", ndim=1)
    if values.size == 0:
        raise ValueError("`pvalues` is empty; Holm's correction needs at least one p-value")
    if ((values < 0) | (values > 1)).any():
        raise ValueError(f"`pvalues` must lie in [0, 1]; got values from {values.min()} to {values.max()}")
    order = np.argsort(values, kind="stable")
    steps = (values.size - np.arange(values.size)) * values[order]
    adjusted = np.empty_like(values)
    adjusted[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
    return pd.Series(adjusted, index=pvalues.index) if isinstance(pvalues, pd.Series) else adjusted
