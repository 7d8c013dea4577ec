"""Is one correlation with human judgement higher than another?  The Williams test.

The Williams test (Williams 1959; Steiger 1980, eq. 7) compares two *dependent* correlations
that share a variable — here ``r(human, metric 1)`` and ``r(human, metric 2)`` computed on the
same systems — taking into account how strongly the two metrics correlate with each other
(Graham & Baldwin 2014).  Fisher's r-to-z test is its counterpart for independent samples, and
the wrong test for metrics scored on the same data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from spalib._core.validation import (choice_iv, flag_iv, int_iv, labels_iv, probability_iv, real_array_iv, real_iv,
                                     rescaled)

__all__ = ["williams_test", "fisher_z_test", "williams_matrix", "CorrelationTestResult", "WilliamsMatrix"]


@dataclass(frozen=True)
class CorrelationTestResult:
    """``statistic`` (Williams: t with ``df`` degrees of freedom; Fisher: z) and ``pvalue``."""

    statistic: float
    pvalue: float
    df: float | None = None


_ALTERNATIVES = ("greater", "less", "two-sided")
_MAX_N = 2**53  # the largest integer a float holds exactly: every n is used in float arithmetic


def _correlation_iv(value, name: str) -> float:
    return real_iv(value, name, low=-1.0, high=1.0, low_open=True, high_open=True)


def _n_iv(value, name: str) -> int:
    return int_iv(value, name, low=4, high=_MAX_N)


def _df_iv(df) -> float | None:
    return None if df is None else real_iv(df, "df", low=0.0, low_open=True)


def _pvalue(statistic: float, alternative: str, sf, cdf) -> float:
    if alternative == "greater":
        return float(sf(statistic))
    if alternative == "less":
        return float(cdf(statistic))
    return float(min(1.0, 2 * sf(abs(statistic))))


def williams_test(r12, r13, r23, n, *, alternative: str = "greater", df: float | None = None) -> CorrelationTestResult:
    """Williams test of ``r12 = r13`` for dependent correlations sharing variable 1.

    Parameters
    ----------
    r12, r13 : float
        Correlations of the human scores with metric 1 and with metric 2, strictly between -1 and 1.
    r23 : float
        Correlation between the two metrics, strictly between -1 and 1.
    n : int
        Number of observations (systems) behind each correlation, at least 4 (and at most 2**53,
        the largest integer a float holds exactly).
    alternative : {"greater", "less", "two-sided"}
        ``"greater"``: metric 1 correlates more strongly with the humans than metric 2.
    df : float, optional
        Degrees of freedom of the t distribution, positive: ``n - 3`` (the paper and
        mt-metrics-eval) by default.  The stored example output of the authors' released R tool equals the p-value with
        ``n - 2`` (an older behaviour of the R ``psych`` package); pass ``df=n - 2`` to reproduce it.

    Returns
    -------
    CorrelationTestResult
        ``statistic`` (t), ``pvalue`` and ``df``.

    Notes
    -----
    With ``K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23`` (the determinant of the 3 x 3
    correlation matrix),

    ``t = (r12 - r13) sqrt((n - 1)(1 + r23)) / sqrt(2K (n - 1)/(n - 3) + (r12 + r13)^2 (1 - r23)^3 / 4)``.

    References
    ----------
    Williams, E. J. (1959). The comparison of regression variables. JRSS B 21.
    Graham, Y. and Baldwin, T. (2014). Testing for significance of increased correlation with
    human judgment. EMNLP.

    Examples
    --------
    WMT12 es-en, AMBER against BLEU (Graham & Baldwin's example data):

    >>> res = williams_test(0.880651168828011, 0.760352368043568, 0.947389661501826, 12)
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (2.687028, 0.012459)
    """
    r12, r13, r23 = _correlation_iv(r12, "r12"), _correlation_iv(r13, "r13"), _correlation_iv(r23, "r23")
    n = _n_iv(n, "n")
    alternative = choice_iv(alternative, "alternative", _ALTERNATIVES)
    df = _df_iv(df)
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    if k <= 0:
        raise ValueError(f"the correlations ({r12}, {r13}, {r23}) are inconsistent: the determinant of their "
                         f"correlation matrix is {k:.3g}, not positive")
    dof = n - 3 if df is None else df
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(
        2 * k * (n - 1) / (n - 3) + (r12 + r13) ** 2 / 4 * (1 - r23) ** 3)
    p = _pvalue(t, alternative, lambda x: stats.t.sf(x, dof), lambda x: stats.t.cdf(x, dof))
    return CorrelationTestResult(float(t), p, dof)


def fisher_z_test(r1, n1, r2, n2, *, alternative: str = "greater") -> CorrelationTestResult:
    """Fisher r-to-z test of ``r1 = r2`` for correlations from **independent** samples.

    Parameters
    ----------
    r1, r2 : float
        The two correlations, strictly between -1 and 1.
    n1, n2 : int
        The sizes of the two samples, at least 4 (and at most 2**53).
    alternative : {"greater", "less", "two-sided"}
        ``"greater"``: ``r1`` is the larger.

    Returns
    -------
    CorrelationTestResult
        ``statistic`` (z) and ``pvalue``.

    Notes
    -----
    ``z = (atanh r1 - atanh r2) / sqrt(1/(n1 - 3) + 1/(n2 - 3))``, standard normal under the null.
    For two metrics scored on the same systems the samples are dependent: use :func:`williams_test`.

    References
    ----------
    Fisher, R. A. (1921). On the "probable error" of a coefficient of correlation deduced from a
    small sample. Metron 1.

    Examples
    --------
    >>> res = fisher_z_test(0.6, 100, 0.4, 120)
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (1.962582, 0.024847)
    """
    r1, r2 = _correlation_iv(r1, "r1"), _correlation_iv(r2, "r2")
    n1, n2 = _n_iv(n1, "n1"), _n_iv(n2, "n2")
    alternative = choice_iv(alternative, "alternative", _ALTERNATIVES)
    z = (np.arctanh(r1) - np.arctanh(r2)) / np.sqrt(1 / (n1 - 3) + 1 / (n2 - 3))
    return CorrelationTestResult(float(z), _pvalue(z, alternative, lambda x: special.ndtr(-x), special.ndtr))


@dataclass(frozen=True)
class WilliamsMatrix:
    """Williams tests between every pair of metrics.

    ``correlations``: each metric's correlation with the humans (absolute if asked), sorted from
    highest to lowest; ``metric_correlations``: metric x metric correlations in that order;
    ``pvalues.loc[a, b]``: one-sided p-value that ``a`` correlates more strongly with the humans than
    ``b``, filled for ``a`` above ``b`` in the order (the direction the paper tests), NaN elsewhere.
    """

    correlations: pd.Series
    metric_correlations: pd.DataFrame
    pvalues: pd.DataFrame
    n: int

    def significant_share(self, alpha: float = 0.05) -> float:
        """Share of metric pairs whose difference is significant at ``p <= alpha``.

        Parameters
        ----------
        alpha : float
            The significance level, strictly between 0 and 1.

        Returns
        -------
        float
            The share of the tested pairs (``a`` above ``b``) with ``p <= alpha``.
        """
        alpha = probability_iv(alpha, "alpha")
        upper = self.pvalues.to_numpy()[np.triu_indices(len(self.pvalues), 1)]
        return float(np.mean(upper <= alpha))


def _williams_matrix_iv(human, metrics, correlation, absolute, df):
    correlation = choice_iv(correlation, "correlation", ("pearson", "spearman"))
    absolute = flag_iv(absolute, "absolute")
    df = _df_iv(df)
    values = real_array_iv(human, "human", allow_nan=True, ndim=1)
    human = pd.Series(values, index=human.index if isinstance(human, pd.Series) else None)
    if isinstance(metrics, Mapping) and not isinstance(metrics, pd.DataFrame):
        for name, scores in metrics.items():
            real_array_iv(scores, f"metrics[{name!r}]", allow_nan=True, ndim=1)
        series = {name: scores for name, scores in metrics.items() if isinstance(scores, pd.Series)}
        if any(not scores.index.equals(next(iter(series.values())).index) for scores in series.values()):
            for name, scores in series.items():     # aligned by label: the labels must be unique
                labels_iv(scores.index, f"metrics[{name!r}] index")
        lengths = {len(scores) for scores in metrics.values() if not isinstance(scores, pd.Series)}
        if len(lengths) > 1:
            raise ValueError(f"`metrics` holds score vectors of different lengths {sorted(lengths)}")
        frame = pd.DataFrame(dict(metrics))
    elif isinstance(metrics, pd.DataFrame):
        frame = metrics
    else:
        raise TypeError(f"`metrics` must be a DataFrame or a dict of Series; got {type(metrics).__name__}")
    labels_iv(frame.columns, "metrics")
    for name in frame.columns:
        real_array_iv(frame[name], f"metrics[{name!r}]", allow_nan=True)
    if not frame.index.equals(human.index):     # aligned by label: the labels must be unique
        labels_iv(human.index, "human index")
        labels_iv(frame.index, "metrics index")
        if set(frame.index) != set(human.index):
            raise ValueError("`human` and `metrics` cover different items: "
                             f"{sorted(map(str, set(human.index) ^ set(frame.index)))[:5]}")
        frame = frame.loc[human.index]
    missing = [name for name in frame.columns if frame[name].isna().any()]
    if missing or human.isna().any():
        raise ValueError(f"`human` and `metrics` must not contain missing values (missing in: "
                         f"{', '.join(map(str, missing)) or 'human'})")
    if frame.shape[1] < 2:
        raise ValueError("`metrics` needs at least two metrics")
    if len(human) < 4:
        raise ValueError(f"`human` and `metrics` need at least 4 systems (the test has n - 3 degrees of "
                         f"freedom); got {len(human)}")
    constant = ["`human`"] * (human.nunique() < 2) + [f"`metrics[{name!r}]`" for name in frame.columns
                                                    if frame[name].nunique() < 2]
    if constant:
        raise ValueError(f"{', '.join(constant)}: constant scores have no correlation")
    return human, frame, correlation, absolute, df


def williams_matrix(human, metrics, *, correlation: str = "pearson", absolute: bool = True,
                    df: float | None = None) -> WilliamsMatrix:
    """The Williams significance matrix of Graham & Baldwin (2014, Figure 2).

    Parameters
    ----------
    human : Series or array_like
        Human scores, one per system (at least 4 systems).
    metrics : DataFrame or dict of Series
        Metric scores, one column per metric (at least two), rows aligned with ``human`` by label
        (unique labels) unless the two indexes are identical.
    correlation : {"pearson", "spearman"}
        The correlation (the test's null distribution assumes Pearson's).
    absolute : bool
        Take every correlation in absolute value (the paper's choice), so that error metrics such as
        TER, which correlate negatively, are compared with the others.
    df : float, optional
        Degrees of freedom of every test (default ``n - 3``; see :func:`williams_test`).

    Returns
    -------
    WilliamsMatrix
        The correlations, sorted; the metric-metric correlations; the p-values.

    Notes
    -----
    Cell ``(a, b)`` for ``a`` above ``b`` is ``williams_test(r(h, a), r(h, b), r(a, b), n).pvalue``,
    the one-sided p-value that ``a`` correlates more strongly with the humans.  Each score vector
    is multiplied by a power of two (exact) before the correlations, so that huge or tiny scores
    give the same correlations as moderate ones.

    References
    ----------
    Graham, Y. and Baldwin, T. (2014). Testing for significance of increased correlation with human
    judgment. EMNLP.

    Examples
    --------
    >>> h = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> m = pd.DataFrame({"close": [1.1, 2.0, 2.9, 4.2, 5.0, 6.1], "far": [2.0, 1.0, 3.5, 3.0, 6.0, 5.0]})
    >>> round(float(williams_matrix(h, m).pvalues.loc["close", "far"]), 3)
    0.005
    """
    human, frame, correlation, absolute, df = _williams_matrix_iv(human, metrics, correlation, absolute, df)
    names = list(frame.columns)
    scores = np.column_stack([rescaled(human.to_numpy(dtype=float))]
                             + [rescaled(frame[name].to_numpy(dtype=float)) for name in names])
    corr = pd.DataFrame(scores).corr(method=correlation).to_numpy()
    if absolute:
        corr = np.abs(corr)
    with_human = pd.Series(corr[0, 1:], index=frame.columns).sort_values(ascending=False, kind="stable")
    order = list(with_human.index)
    between = pd.DataFrame(corr[1:, 1:], index=frame.columns, columns=frame.columns).loc[order, order]
    n = len(human)
    p = np.full((len(order), len(order)), np.nan)
    for i, a in enumerate(order):
        for j in range(i + 1, len(order)):
            b = order[j]
            try:
                p[i, j] = williams_test(with_human[a], with_human[b], between.loc[a, b], n, df=df).pvalue
            except ValueError as err:
                raise ValueError(f"Williams test of {a!r} against {b!r}: {err}") from None
    return WilliamsMatrix(with_human, between, pd.DataFrame(p, index=order, columns=order), n)
