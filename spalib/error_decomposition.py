"""Can a metric beat the humans?  Wei & Jia's (2021) bias-variance-noise decomposition.

A system-level human score is an unbiased but noisy estimate of a system's quality; a metric's
score is biased but steady.  Wei & Jia compare them by the 0-1 error of their *pairwise
predictions* (which of two systems is better), estimated with independent bootstraps of each
system's judgement rows (:mod:`spalib.bootstrap`), and split that error with Domingos's (2000)
bias-variance-noise decomposition: :func:`decompose_pairwise_error`.  The perfect annotator and
the power analysis of the same paper are in :mod:`spalib.annotators`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from spalib._core.validation import flag_iv, real_array_iv

__all__ = ["decompose_pairwise_error", "ErrorDecomposition"]


@dataclass(frozen=True)
class ErrorDecomposition:
    """Domingos's decomposition of the 0-1 error of pairwise predictions.

    ``error = bias + variance + noise`` exactly (``noise`` is the remainder, as in Wei & Jia's
    Table 1, where it is printed as "c0 Noise").  The ``pair_*`` arrays hold the same terms per
    pair; ``raw_noise``, ``raw_variance``, ``c0`` and ``c1`` are the unweighted terms and their
    weights, so that ``mean(c0 * raw_noise)`` is Domingos's own noise term.  ``pairs`` labels the
    pairs (the columns of labelled inputs), or is None for arrays.
    """

    error: float
    bias: float
    variance: float
    noise: float
    pair_error: np.ndarray
    pair_bias: np.ndarray
    pair_variance: np.ndarray
    pair_noise: np.ndarray
    optimal_label: np.ndarray
    main_prediction: np.ndarray
    raw_noise: np.ndarray
    raw_variance: np.ndarray
    c0: np.ndarray
    c1: np.ndarray
    pairs: pd.Index | None = None

    def by_pair(self) -> pd.DataFrame:
        """The terms of every pair (``error``, ``bias``, ``variance``, ``noise``), indexed by the
        pairs when the inputs were labelled (e.g. from :meth:`SystemBootstrap.predictions` with a
        pair frame); their mean over any set of pairs is the decomposition of those pairs.
        """
        return pd.DataFrame({"error": self.pair_error, "bias": self.pair_bias,
                             "variance": self.pair_variance, "noise": self.pair_noise}, index=self.pairs)


def _binary_matrix_iv(x, name: str):
    """0/1 predictions as int8, and their pairs (the columns of a DataFrame, the index of a Series)."""
    pairs = x.columns if isinstance(x, pd.DataFrame) else x.index if isinstance(x, pd.Series) else None
    if pairs is not None and not pairs.is_unique:
        raise ValueError(f"`{name}` names a pair twice: {list(pairs[pairs.duplicated()])[:3]}")
    array = np.asarray(x)
    if array.dtype == bool:
        array = array.astype(np.int8)
    array = real_array_iv(array, name, ndim=(1, 2))
    if array.size == 0:
        raise ValueError(f"`{name}` must be a non-empty (n_trials, n_pairs) array, or (n_pairs,) for a constant; "
                         f"got shape {array.shape}")
    if not np.isin(array, (0, 1)).all():
        raise ValueError(f"`{name}` must hold only 0 and 1")
    return array.astype(np.int8), pairs


def _decompose_iv(predictions, labels, no_bias, notebook_order):
    flag_iv(no_bias, "no_bias")
    flag_iv(notebook_order, "notebook_order")
    predictions, predicted_pairs = _binary_matrix_iv(predictions, "predictions")
    labels, labelled_pairs = _binary_matrix_iv(labels, "labels")
    pairs = predicted_pairs if predicted_pairs is not None else labelled_pairs
    if predicted_pairs is not None and labelled_pairs is not None and not predicted_pairs.equals(labelled_pairs):
        if len(predicted_pairs) != len(labelled_pairs) or predicted_pairs.symmetric_difference(labelled_pairs).size:
            raise ValueError("`predictions` and `labels` are labelled by different pairs")
        order = labelled_pairs.get_indexer(predicted_pairs)  # the same pairs in another order
        labels = labels[..., order]
    try:
        predictions, labels = np.broadcast_arrays(np.atleast_2d(predictions), np.atleast_2d(labels))
    except ValueError:
        raise ValueError(f"`predictions` {predictions.shape} and `labels` {labels.shape} must have the same "
                         f"shape (a 1-D array is a constant for every trial)") from None
    if pairs is not None and len(pairs) != predictions.shape[1]:
        raise ValueError(f"{len(pairs)} pair labels for {predictions.shape[1]} pairs")
    return ((labels, predictions) if notebook_order else (predictions, labels)), pairs


def decompose_pairwise_error(predictions, labels, *, no_bias: bool = False,
                             notebook_order: bool = False) -> ErrorDecomposition:
    r"""Bias, variance and noise of pairwise predictions scored against noisy labels.

    Parameters
    ----------
    predictions : array_like or DataFrame of 0/1, shape (n_trials, n_pairs)
        The estimator's prediction in each bootstrap trial (1: the first system is better).
        A 1-D array (or a Series) is a constant prediction (the same in every trial).
    labels : array_like or DataFrame of 0/1, shape (n_trials, n_pairs)
        The human labels of the same trials (from an independent resample).  Labelled inputs
        (from :meth:`spalib.SystemBootstrap.predictions` with a pair frame) are matched by pair,
        and the result keeps the pairs.
    no_bias : bool
        Take the optimal label as the estimator's main prediction (Wei & Jia do this for unbiased
        estimators: the human and the optimal predictor).
    notebook_order : bool
        Swap the two inputs, as the authors' notebooks do by unpacking ``(human, metric)`` as
        ``(metric, human)``.  This reproduces the published Table 1 columns: "c1 Var" is then
        the human labels' noise and "c0 Noise" the metric's weighted variance.  ``error`` and
        ``bias`` are the same either way.

    Returns
    -------
    ErrorDecomposition

    Notes
    -----
    With labels :math:`T` and predictions :math:`Y` (trials × pairs): the optimal label
    :math:`y^*_p` is the majority of :math:`T_{\cdot p}` and the main prediction :math:`y^m_p`
    the majority of :math:`Y_{\cdot p}` (a tie counts as 0).  Then

    .. math::

        \mathrm{Err} = \overline{[Y \ne T]}, \quad
        \mathrm{Bias} = \overline{[y^m_p \ne y^*_p]}, \quad
        c_1\mathrm{Var} = \overline{c_{1p} \Pr(Y_{\cdot p} \ne y^m_p)}, \quad
        c_0\mathrm{Noise} = \mathrm{Err} - \mathrm{Bias} - c_1\mathrm{Var},

    with :math:`c_{1p} = 1` if :math:`y^m_p = y^*_p` and :math:`-1` otherwise, and
    :math:`c_{0p} = 2\Pr(Y_{\cdot p} = y^*_p) - 1` weighting the raw noise
    :math:`\Pr(T_{\cdot p} \ne y^*_p)`.

    References
    ----------
    Domingos, P. (2000). A unified bias-variance decomposition and its applications. ICML.
    Wei, J. T.-Z. and Jia, R. (2021). The statistical advantage of automatic NLG metrics at the
    system level. ACL. Section 4.1 and Table 1.

    Examples
    --------
    >>> Y = [[1, 1, 0], [1, 1, 0], [0, 1, 0], [1, 1, 1], [1, 1, 0]]
    >>> T = [[1, 0, 1], [1, 0, 0], [1, 1, 1], [0, 0, 1], [1, 0, 1]]
    >>> d = decompose_pairwise_error(Y, T)
    >>> round(d.error, 4), round(d.bias, 4), round(d.variance, 4), round(d.noise, 4)
    (0.6, 0.6667, 0.0, -0.0667)
    >>> d.by_pair()["error"].tolist()
    [0.4, 0.8, 0.6]
    """
    (predictions, labels), pairs = _decompose_iv(predictions, labels, no_bias, notebook_order)
    optimal = (labels.mean(axis=0) > 0.5).astype(np.int8)
    main = optimal if no_bias else (predictions.mean(axis=0) > 0.5).astype(np.int8)
    pair_error = (predictions != labels).mean(axis=0)
    pair_bias = (main != optimal).astype(float)
    raw_variance = (predictions != main).mean(axis=0)
    c1 = np.where(main == optimal, 1.0, -1.0)
    pair_variance = c1 * raw_variance
    pair_noise = pair_error - pair_bias - pair_variance
    error, bias, variance = pair_error.mean(), pair_bias.mean(), pair_variance.mean()
    return ErrorDecomposition(
        error=float(error), bias=float(bias), variance=float(variance), noise=float(error - bias - variance),
        pair_error=pair_error, pair_bias=pair_bias, pair_variance=pair_variance, pair_noise=pair_noise,
        optimal_label=optimal, main_prediction=main,
        raw_noise=(labels != optimal).mean(axis=0), raw_variance=raw_variance,
        c0=2 * (predictions == optimal).mean(axis=0) - 1, c1=c1, pairs=pairs,
    )
