"""Valid p-values for counting significant results: the Monte-Carlo +1, and Holm's correction for
many tests. One rule each, used wherever the book counts significant results.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from spalib._core.validation import real_array_iv


def monte_carlo_pvalue(extreme_draws, draws):
    r"""The Monte-Carlo p-value with its +1: ``(extreme_draws + 1) / (draws + 1)``.

    A permutation test that draws ``draws`` random patterns and counts ``extreme_draws`` null
    statistics at least as extreme as the observed one reports ``extreme_draws / draws`` (spalib's
    and mt-metrics-eval's convention). That ratio can reject a true null slightly more often than
    its level says. Counting the observed statistic as one more draw gives a p-value that never
    does, at every level and for any number of draws.

    Parameters
    ----------
    extreme_draws : array_like or pandas.Series
        Counts of null draws at least as extreme as the observed statistic: whole numbers in
        ``[0, draws]``, none missing.
    draws : int, array_like or pandas.Series
        The number of draws behind each count, at least 1; broadcast against ``extreme_draws``.

    Returns
    -------
    numpy.ndarray, float or pandas.Series
        The p-values, each in ``(0, 1]``; a Series keeps the index of ``extreme_draws``, and two
        scalars give a float.

    Notes
    -----
    If the observed statistic and the :math:`K` null draws are exchangeable and never tie, the observed one's
    rank among the :math:`K + 1` is uniform, so :math:`P(p \le \alpha) = \lfloor \alpha (K+1)
    \rfloor / (K+1) \le \alpha`. Without the +1, :math:`P(c/K \le \alpha) = (\lfloor \alpha K
    \rfloor + 1)/(K + 1)`, which exceeds :math:`\alpha` unless the fractional part of
    :math:`\alpha K` is at least :math:`1 - \alpha`: 0.0547 at :math:`\alpha = 0.05` and
    :math:`K = 200`.

    References
    ----------
    B. Phipson and G. K. Smyth, "Permutation p-values should never be zero", Statistical
    Applications in Genetics and Molecular Biology 9(1), 2010.

    Examples
    --------
    >>> import spalib
    >>> spalib.monte_carlo_pvalue([0, 9, 999], 999).tolist()
    [0.001, 0.01, 1.0]
    """
    counts = real_array_iv(extreme_draws, "extreme_draws")
    totals = real_array_iv(draws, "draws")
    try:
        counts, totals = np.broadcast_arrays(counts, totals)
    except ValueError:
        raise ValueError(f"`extreme_draws` of shape {np.shape(counts)} and `draws` of shape "
                         f"{np.shape(totals)} do not broadcast") from None
    if (totals < 1).any() or (totals != np.round(totals)).any():
        raise ValueError("`draws` must be whole numbers of at least 1")
    if (counts < 0).any() or (counts > totals).any() or (counts != np.round(counts)).any():
        raise ValueError("`extreme_draws` must be whole numbers in [0, draws]; to recover a count "
                         "from a p-value of K draws, round p * K")
    pvalues = (counts + 1) / (totals + 1)
    if isinstance(extreme_draws, pd.Series):
        return pd.Series(pvalues, index=extreme_draws.index)
    return float(pvalues) if pvalues.ndim == 0 else pvalues


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
