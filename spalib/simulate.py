"""Simulated WMT-like scores with known truth: what the tests of the book promise, checked.

:func:`simulate_task` draws the segment scores of ``S`` systems on ``L`` segments from a model
whose truth is known, so that size (how often a test says "significant" when nothing differs),
power and coverage can be measured rather than assumed:

- system ``s`` has a true quality ``q_s``; segment ``l`` a difficulty ``d_l ~ N(0, segment_sd²)``;
- the latent human score is ``q_s + d_l + e_sl`` with annotator noise ``e_sl ~ N(0, human_sd²)``;
  it is reported as is (``human="continuous"``) or as an MQM-like penalty (``human="mqm"``:
  ``-min(cap, round(weight * max(0, -latent)))``, so most good translations tie at 0);
- metric ``k`` scores ``slope_k * (q_s + d_l) + b_ks + n_skl`` with a bias per system ``b_ks`` and
  noise ``n_skl ~ N(0, noise_sd_k²)`` whose correlation with the human noise ``e_sl`` of the same
  cell is ``error_correlation_k`` (metrics and humans misjudge the same hard outputs).

The truth (:class:`SimulationTruth`) is what infinitely many segments would show: the human
order of the systems is the order of ``q`` (every reported human score is increasing in the
latent one), a metric's system scores are ``slope_k * q_s + b_ks`` up to a constant, and its
pairwise accuracy is the share of system pairs that these order as ``q`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from spalib._core import engine
from spalib._core.validation import choice_iv, positive_int_iv, real_array_iv, real_iv, rng_iv

__all__ = ["MetricModel", "SimulatedTask", "SimulationTruth", "simulate_task"]

HUMAN_SCALES = ("continuous", "mqm")


@dataclass(frozen=True)
class MetricModel:
    """How a simulated metric scores a (system, segment) cell.

    Attributes
    ----------
    noise_sd : float
        Standard deviation of the metric's own noise (0: the metric sees the truth).
    error_correlation : float
        Correlation, in ``[-1, 1]``, of that noise with the human annotator noise of the same cell.
    slope : float
        How strongly the metric follows true quality (positive: higher is better).
    bias : tuple of float, optional
        A fixed offset per system (default none): a metric that favours some systems.
    """

    noise_sd: float = 1.0
    error_correlation: float = 0.0
    slope: float = 1.0
    bias: tuple | None = None

    def __post_init__(self):
        real_iv(self.noise_sd, "noise_sd", low=0.0)
        real_iv(self.error_correlation, "error_correlation", low=-1.0, high=1.0)
        real_iv(self.slope, "slope", low=0.0, low_open=True)
        if self.bias is not None:
            real_array_iv(self.bias, "bias", ndim=1)


@dataclass(frozen=True)
class SimulationTruth:
    """What infinitely many segments would show.

    Attributes
    ----------
    quality : Series
        The true quality of each system (the human order).
    difficulty : Series
        Each segment's drawn difficulty ``d_l`` (shared by every system and metric).
    metric_system_scores : DataFrame
        Systems x metrics: each metric's system score in the limit, ``slope * q + bias`` (up to a
        constant shared by every system).
    pairwise_accuracy : Series
        Each metric's pairwise accuracy in the limit: the share of system pairs its limit scores
        order as ``quality`` does (a tie on both sides agrees, a tie on one side does not).
    """

    quality: pd.Series
    difficulty: pd.Series
    metric_system_scores: pd.DataFrame
    pairwise_accuracy: pd.Series


@dataclass(frozen=True)
class SimulatedTask:
    """Simulated segment scores and their truth, in the shape the rest of spalib takes.

    Attributes
    ----------
    human : DataFrame
        Systems x segments human scores (``spalib.compare_metrics(task.human, task.metrics)``).
    metrics : dict of name -> DataFrame
        Each metric's systems x segments scores.
    truth : SimulationTruth
    settings : dict
        The arguments that produced the task.
    """

    human: pd.DataFrame
    metrics: dict
    truth: SimulationTruth
    settings: dict = field(default_factory=dict)


def _simulate_task_iv(quality, n_segments, metrics, segment_sd, human_sd, human, mqm_weight, mqm_cap, rng):
    q = real_array_iv(quality, "quality", ndim=1)
    if q.size < 2:
        raise ValueError(f"`quality` needs at least 2 systems; got {q.size}")
    systems = list(quality.index) if isinstance(quality, pd.Series) else [f"sys{s}" for s in range(q.size)]
    n_segments = positive_int_iv(n_segments, "n_segments")
    if not isinstance(metrics, dict) or not metrics:
        raise ValueError("`metrics` must be a non-empty dict of name -> MetricModel")
    for name, model in metrics.items():
        if not isinstance(model, MetricModel):
            raise TypeError(f"metrics[{name!r}] must be a MetricModel; got {type(model).__name__}")
        if model.bias is not None and len(model.bias) != q.size:
            raise ValueError(f"metrics[{name!r}].bias has {len(model.bias)} values for {q.size} systems")
    segment_sd = real_iv(segment_sd, "segment_sd", low=0.0)
    human_sd = real_iv(human_sd, "human_sd", low=0.0)
    human = choice_iv(human, "human", HUMAN_SCALES)
    mqm_weight = real_iv(mqm_weight, "mqm_weight", low=0.0, low_open=True)
    mqm_cap = real_iv(mqm_cap, "mqm_cap", low=0.0, low_open=True)
    return q, systems, n_segments, segment_sd, human_sd, human, mqm_weight, mqm_cap, rng_iv(rng)


def _limit_pairwise_accuracy(quality: np.ndarray, scores: np.ndarray) -> float:
    i, j = np.triu_indices(quality.size, 1)
    return float(np.mean(np.sign(quality[i] - quality[j]) == np.sign(scores[i] - scores[j])))


def simulate_task(quality, n_segments: int, metrics: dict, *, segment_sd: float = 1.0, human_sd: float = 1.0,
                  human: str = "continuous", mqm_weight: float = 5.0, mqm_cap: float = 25.0,
                  rng=None) -> SimulatedTask:
    """Draw the segment scores of a WMT-like task whose truth is known.

    Parameters
    ----------
    quality : array_like or Series, shape (S,)
        The true quality of each system (a Series names the systems; else ``sys0``, ``sys1``, ...).
        Equal qualities make the null hypothesis true for that pair.
    n_segments : int
        Segments ``L`` scored by every system.
    metrics : dict of name -> MetricModel
        The simulated metrics.
    segment_sd, human_sd : float
        Standard deviations of the segment difficulty and of the human annotator noise.
    human : {"continuous", "mqm"}
        How human scores are reported: the latent score, or an MQM-like penalty
        ``-min(mqm_cap, round(mqm_weight * max(0, -latent)))`` (many ties at 0, a cap).
    mqm_weight, mqm_cap : float
        Of the MQM-like penalty.
    rng : None, int or numpy.random.Generator
        The random state.

    Returns
    -------
    SimulatedTask
        ``human`` and ``metrics`` frames (systems x segments) and the ``truth``.

    Notes
    -----
    With latent human scores ``x_sl = q_s + d_l + e_sl`` and metric noise
    ``n_skl = noise_sd_k * (rho_k * e_sl / human_sd + sqrt(1 - rho_k**2) * z_skl)``, ``z`` standard
    normal, each metric's noise has standard deviation ``noise_sd_k`` and correlation ``rho_k``
    with the human noise of its cell.  The draws use the Generator in a fixed order (difficulties,
    human noise, then each metric in the order given), so a seed gives the same task.

    References
    ----------
    Deutsch, D., Dror, R. and Roth, D. (2021). A statistical analysis of summarization evaluation
    metrics using resampling methods. TACL. (Simulations with known truth of the permutation
    schemes compared in this book.)

    Examples
    --------
    >>> task = simulate_task([0.0, 0.0, 0.5], 200, {"good": MetricModel(noise_sd=0.5)}, rng=1)
    >>> task.human.shape, float(task.truth.pairwise_accuracy["good"])
    ((3, 200), 1.0)
    """
    q, systems, n_segments, segment_sd, human_sd, human, mqm_weight, mqm_cap, rng = _simulate_task_iv(
        quality, n_segments, metrics, segment_sd, human_sd, human, mqm_weight, mqm_cap, rng)
    seed = engine.describe_seed(rng)          # before any draw: what reproduces the task
    n_systems = q.size
    difficulty = rng.normal(0.0, segment_sd, size=n_segments)
    truth = q[:, None] + difficulty[None, :]
    standard_noise = rng.standard_normal((n_systems, n_segments))
    latent = truth + human_sd * standard_noise
    if human == "mqm":
        reported = -np.minimum(mqm_cap, np.round(mqm_weight * np.maximum(0.0, -latent)))
    else:
        reported = latent
    segments = pd.RangeIndex(n_segments, name="segment")
    index = pd.Index(systems, name="system")
    frames, limit = {}, {}
    for name, model in metrics.items():
        bias = np.zeros(n_systems) if model.bias is None else np.asarray(model.bias, dtype=float)
        rho = model.error_correlation
        own = rng.standard_normal((n_systems, n_segments))
        noise = model.noise_sd * (rho * standard_noise + np.sqrt(1.0 - rho * rho) * own)
        frames[name] = pd.DataFrame(model.slope * truth + bias[:, None] + noise, index=index, columns=segments)
        limit[name] = model.slope * q + bias
    limit_scores = pd.DataFrame(limit, index=index)
    pa = pd.Series({name: _limit_pairwise_accuracy(q, limit_scores[name].to_numpy()) for name in metrics},
                   name="pairwise accuracy")
    return SimulatedTask(
        human=pd.DataFrame(reported, index=index, columns=segments),
        metrics=frames,
        truth=SimulationTruth(pd.Series(q, index=index, name="quality"),
                              pd.Series(difficulty, index=segments, name="difficulty"), limit_scores, pa),
        settings=dict(n_segments=n_segments, segment_sd=segment_sd, human_sd=human_sd, human=human,
                      mqm_weight=mqm_weight, mqm_cap=mqm_cap, metrics=dict(metrics), seed=seed),
    )
