"""What is a judgement worth?  Wei & Jia's (2021) perfect annotator and power analysis.

- :func:`perfect_annotator` splits the variance of crowd judgements into the variance between
  outputs and the noise within one output (from outputs judged more than once), and so estimates
  how many crowd judgements one noiseless ("perfect") judgement is worth;
  :meth:`PerfectAnnotator.reliability` is the Spearman-Brown reliability of a mean of judgements
  (Graham, Mathur & Baldwin 2015 average repeated DA judgements of a segment to this end);
- :func:`judgements_for_power` gives the judgements a two-sample t-test needs to detect a
  difference between two systems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from spalib._core.annotator_kernels import _different_annotator_pairs
from spalib._core.validation import choice_iv, keys_iv, probability_iv, real_array_iv

__all__ = ["perfect_annotator", "PerfectAnnotator", "judgements_for_power"]


@dataclass(frozen=True)
class PerfectAnnotator:
    """Variance components of human judgements and the efficiency ratio of a perfect annotator.

    ``total_variance`` Var(H); ``within_variance`` E[Var(H|x)] pooled over outputs judged at least
    twice (or, with annotators, over pairs of judgements by different annotators);
    ``perfect_variance`` Var(P) = Var(H) - E[Var(H|x)]; ``ratio`` r = Var(H) / Var(P): one
    perfect judgement is worth ``r`` crowd judgements.  ``n_pairs`` counts the pairs behind the
    within variance when it comes from pairs (0 otherwise).
    """

    total_variance: float
    within_variance: float
    perfect_variance: float
    ratio: float
    n_judgements: int
    n_repeated_outputs: int
    n_pairs: int = 0

    def reliability(self, n_judgements):
        """Spearman-Brown: the correlation of two independent means of ``n_judgements`` per output,
        ``Var(P) / (Var(P) + E[Var(H|x)] / n)``.

        ``n_judgements`` is a positive number (or an array of them; the result has its shape).

        References
        ----------
        Spearman, C. (1910); Brown, W. (1910). British Journal of Psychology 3.
        Graham, Y., Mathur, N. and Baldwin, T. (2015). Accurate evaluation of segment-level
        machine translation metrics. NAACL-HLT. (The agreement of two means of repeated DA
        judgements of a segment, as the number of judgements grows.)
        """
        n = real_array_iv(n_judgements, "n_judgements")
        if not (n > 0).all():
            raise ValueError(f"`n_judgements` must be positive (judgements per output); got {n_judgements!r}")
        out = self.perfect_variance / (self.perfect_variance + self.within_variance / n)
        return float(out) if out.ndim == 0 else out


def perfect_annotator(scores, outputs, *, annotators=None, ddof: int = 1) -> PerfectAnnotator:
    r"""How much noise the judgements carry, from outputs judged more than once.

    Parameters
    ----------
    scores : array_like, shape (n,)
        One score per judgement.
    outputs : array_like, shape (n,), or DataFrame
        The judged output of each judgement: an id, or key columns (e.g. ``rows[["lp", "system",
        "sid"]]``); judgements of the same output are repeats.  No id may be missing.
    annotators : array_like, shape (n,), or DataFrame, optional
        Who gave each judgement (no id may be missing).  Given, the within-output variance comes
        only from pairs of judgements of one output by *different* annotators, as two independent
        collections would see it; a worker who repeats a judgement agrees with herself more than with others, so
        pooling her repeats makes the judgements look less noisy than they are.
    ddof : {1, 0}
        Delta degrees of freedom of every variance (Wei & Jia: 1 for WMT, 0 in their SummEval
        notebook).

    Returns
    -------
    PerfectAnnotator

    Notes
    -----
    :math:`V_H` is the sample variance of all scores; :math:`V_W = \sum_g (n_g - d)s_g^2 /
    \sum_g (n_g - d)` over outputs :math:`g` with :math:`n_g \ge 2`; :math:`V_P = V_H - V_W`
    and :math:`r = V_H / V_P` (law of total variance, Wei & Jia eq. 15-18).  With ``annotators``,
    :math:`V_W` is the mean of :math:`(x_a - x_b)^2 / 2` over pairs of judgements of one output by
    two different annotators (unbiased for the ddof-1 variance, so ``ddof`` must be 1).

    References
    ----------
    Wei, J. T.-Z. and Jia, R. (2021). Section 5.2 and Appendix C.

    Examples
    --------
    >>> pa = perfect_annotator([70, 80, 90, 50, 50, 20, 10, 30, 20, 40], [0, 0, 0, 1, 1, 2, 3, 3, 3, 3])
    >>> round(pa.within_variance, 4), round(pa.total_variance, 4), round(pa.ratio, 6)
    (116.6667, 737.7778, 1.187835)
    """
    scores = real_array_iv(scores, "scores", ndim=1)
    if ddof not in (0, 1) or isinstance(ddof, bool):
        raise ValueError(f"`ddof` must be 0 or 1; got {ddof!r}")
    if scores.size < 2:
        raise ValueError("`scores` needs at least two judgements")
    outputs = keys_iv(outputs, "outputs", scores.size)
    if annotators is not None:
        annotators = keys_iv(annotators, "annotators", scores.size)
        if ddof != 1:
            raise ValueError("`annotators` estimates the within variance from pairs, a ddof-1 estimate: use ddof=1")
    codes = outputs.factorize()[0]
    n = np.bincount(codes)
    repeated = n >= 2
    if not repeated.any():
        raise ValueError("no output is judged twice: the within-output variance cannot be estimated")
    n_pairs = 0
    if annotators is None:
        means = np.bincount(codes, weights=scores) / n
        squares = np.bincount(codes, weights=(scores - means[codes]) ** 2)
        within = squares[repeated].sum() / (n[repeated] - ddof).sum()
    else:
        order = np.argsort(codes, kind="stable")
        starts = np.concatenate(([0], np.cumsum(n))).astype(np.int64)
        half_squares, n_pairs = _different_annotator_pairs(scores[order], codes[order].astype(np.int64),
                                                           annotators.factorize()[0][order].astype(np.int64), starts)
        if n_pairs == 0:
            raise ValueError("no output is judged by two different annotators: "
                             "the within-output variance cannot be estimated")
        within = half_squares / n_pairs
    total = scores.var(ddof=ddof)
    if within >= total:
        raise ValueError(f"the within-output variance ({within:.4g}) is not below the total variance ({total:.4g}): "
                         f"the judgements carry no signal about the outputs")
    return PerfectAnnotator(float(total), float(within), float(total - within), float(total / (total - within)),
                            int(scores.size), int(repeated.sum()), int(n_pairs))


# --- power ----------------------------------------------------------------------------------

def _power_gap(n1, effect, alpha, power):
    df = 2 * n1 - 2
    crit = stats.t.isf(alpha / 2, df)
    nc = effect * np.sqrt(n1 / 2)
    lower = stats.nct.cdf(-crit, df, nc)
    if np.isnan(lower):  # scipy's deep lower tail can be NaN; by symmetry it is this upper tail
        lower = stats.nct.sf(crit, df, -nc)
    return stats.nct.sf(crit, df, nc) + lower - power


def _power_iv(delta, sigma, alpha, power, method):
    alpha, power = probability_iv(alpha, "alpha"), probability_iv(power, "power")
    if power <= alpha:
        raise ValueError(f"`power` ({power}) must be above `alpha` ({alpha}): a two-sided test rejects with "
                         "probability at least alpha whatever the number of judgements")
    method = choice_iv(method, "method", ("t", "normal"))
    delta, sigma = real_array_iv(delta, "delta"), real_array_iv(sigma, "sigma")
    for value, name in ((delta, "delta"), (sigma, "sigma")):
        if not (value > 0).all():
            raise ValueError(f"`{name}` must be positive and finite")
    try:
        delta, sigma = np.broadcast_arrays(delta, sigma)
    except ValueError:
        raise ValueError(f"`delta` {delta.shape} and `sigma` {sigma.shape} do not broadcast to one shape") from None
    return delta, sigma, alpha, power, method


def judgements_for_power(delta, sigma, *, alpha: float = 0.05, power: float = 0.95,
                         method: str = "t") -> float | np.ndarray:
    r"""Judgements needed to tell two systems apart with a two-sample t-test.

    Parameters
    ----------
    delta : float or array_like
        The difference in system quality to detect (e.g. DA points), positive.
    sigma : float or array_like
        The standard deviation of one judgement (e.g. the perfect annotator's, 19.27 on WMT19),
        positive; broadcast with ``delta``.
    alpha : float
        Two-sided significance level.
    power : float
        Probability of detecting the difference (Wei & Jia call it beta = 0.95); above ``alpha``,
        since the test rejects with probability at least ``alpha`` whatever the sample.
    method : {"t", "normal"}
        ``"t"``: the exact noncentral-t power equation (as statsmodels' ``TTestIndPower``);
        ``"normal"``: the normal approximation ``n1 = 2 ((z_{1-alpha/2} + z_power) sigma / delta)^2``.

    Returns
    -------
    float or ndarray
        Total judgements for both systems, ``2 n1`` (not rounded), broadcast over ``delta`` and
        ``sigma`` as a NumPy function is (a float for two scalars, else an array of the broadcast
        shape); at least 4, two per system, the smallest design with a variance estimate (a
        difference of many standard deviations needs no more).

    Notes
    -----
    ``n1`` solves :math:`P(|T| > t_{1-\alpha/2, 2n_1-2}) = \text{power}` for
    :math:`T \sim t_{2n_1-2}(\delta/\sigma \cdot \sqrt{n_1/2})`, equal variances and group sizes.
    An effect :math:`\delta/\sigma` so small that the normal approximation exceeds the float range
    (below about 1e-153) is an error.

    References
    ----------
    Wei, J. T.-Z. and Jia, R. (2021). Section 6.1 and Table 2.

    Examples
    --------
    >>> round(judgements_for_power(1, 19), 1), round(judgements_for_power(1, 19, method="normal"), 1)
    (18766.3, 18764.4)
    >>> judgements_for_power(30, 1)
    4.0
    """
    delta, sigma, alpha, power, method = _power_iv(delta, sigma, alpha, power, method)
    with np.errstate(over="ignore", under="ignore"):
        effect = delta / sigma
        normal = 2 * ((stats.norm.isf(alpha / 2) + stats.norm.ppf(power)) / effect) ** 2
    if not np.isfinite(normal).all():
        small = effect[~np.isfinite(normal)].flat[0]
        raise ValueError(f"`delta` / `sigma` = {small:.3g} is too small: the judgements needed exceed the float range")
    if method == "normal":
        out = 2 * np.maximum(normal, 2.0)
    else:
        flat = [2.0 if _power_gap(2.0, e, alpha, power) >= 0 else
                optimize.brentq(_power_gap, 2.0, 4 * n + 10, args=(e, alpha, power), xtol=1e-10, rtol=1e-14)
                for e, n in zip(effect.ravel(), normal.ravel())]
        out = 2 * np.reshape(flat, effect.shape)
    return float(out) if out.ndim == 0 else out
