"""Simulated WMT-like scores with known truth, and a lab that checks what the book's tests promise.

:func:`simulate_task` draws the segment scores of ``S`` systems on ``L`` segments from a model
whose truth is known, so that size (how often a test says "significant" when nothing differs),
power and coverage can be measured rather than assumed:

- system ``s`` has a true quality ``q_s``; segment ``l`` a difficulty ``d_l ~ N(0, segment_sd²)``;
- the latent human score is ``q_s + d_l + e_sl``, with ``e_sl ~ N(0, human_sd²)`` the output's own
  deviation from its system's quality; it is reported as is (``human="continuous"``), as an
  MQM-like penalty (``human="mqm"``: ``-min(cap, round(weight * max(0, -latent)))``, so most good
  translations tie at 0), or as the mean of DA-like judgements on 0-100 (``human="da"``,
  :class:`DAModel`: per-annotator offsets, repeats by the same or by different annotators);
- metric ``k`` scores ``slope_k * (q_s + d_l) + b_ks + n_skl`` with a bias per system ``b_ks`` and
  noise ``n_skl ~ N(0, noise_sd_k²)`` whose correlation with ``e_sl`` of the same cell is
  ``error_correlation_k`` (metrics and humans misjudge the same hard outputs; two metrics'
  noises then correlate ``rho_1 * rho_2``).

The truth (:class:`SimulationTruth`) is what infinitely many segments would show: the human
order of the systems is the order of ``q`` (every reported human score is increasing in the
latent one), a metric's system scores are ``slope_k * q_s + b_ks`` up to a constant, and its
pairwise accuracy is the share of system pairs that these order as ``q`` does.

:func:`simulate_replications` draws many such tasks at once; :func:`pair_test_pvalues`,
:func:`metric_test_pvalues` and :func:`correlation_test_pvalues` run one test in every
replication inside one jitted loop (each replication with its own random draws, identical for
any thread count), and :func:`rejection_rates` turns p-values into rates with Monte-Carlo
standard errors.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from spalib._core import engine, meta, signs as sign_kernels, simulation_kernels
from spalib._core.vocabulary import ALTERNATIVES, PERM_META_METRICS, SCHEMES, Alternative, PermMetaMetric, Scheme
from spalib._core.validation import (
    choice_iv,
    flag_iv,
    int_iv,
    labels_iv,
    positive_int_iv,
    probability_iv,
    real_array_iv,
    real_iv,
    renamed_keyword,
    rescaled_rows,
    rng_iv,
)
from spalib.metametrics import EarlyStopping
from spalib.multiple_testing import monte_carlo_pvalue

__all__ = ["DAModel", "MetricModel", "SimulatedReplications", "SimulatedTask", "SimulationTruth",
           "correlation_test_pvalues", "metric_test_pvalues", "pair_test_pvalues", "rejection_rates",
           "promise_ledger", "simulate_replications", "simulate_task"]

HUMAN_SCALES = ("continuous", "mqm", "da")


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
class DAModel:
    """How DA-like judgements on 0-100 are drawn (``human="da"``).

    A judgement of a cell with latent score ``x`` by annotator ``a`` is
    ``round(offset + scale * x + o_a + eps)`` clipped to 0-100, with the annotator's offset
    ``o_a ~ N(0, annotator_sd²)`` (drawn once for a pool of ``n_annotators``) and a fresh
    ``eps ~ N(0, judgement_sd²)``.  Every cell is judged ``repeats`` times, by one annotator
    (``same_annotator=True``) or by different ones; the human score is their mean.
    """

    scale: float = 10.0
    offset: float = 50.0
    n_annotators: int = 20
    annotator_sd: float = 8.0
    judgement_sd: float = 10.0
    repeats: int = 1
    same_annotator: bool = False

    def __post_init__(self):
        real_iv(self.scale, "scale", low=0.0, low_open=True)
        real_iv(self.offset, "offset")
        real_iv(self.annotator_sd, "annotator_sd", low=0.0)
        real_iv(self.judgement_sd, "judgement_sd", low=0.0)
        n = int_iv(self.n_annotators, "n_annotators", low=2)
        repeats = positive_int_iv(self.repeats, "repeats")
        if not isinstance(self.same_annotator, (bool, np.bool_)):
            raise ValueError(f"`same_annotator` must be a bool; got {self.same_annotator!r}")
        if not self.same_annotator and repeats > n:
            raise ValueError(f"{repeats} repeats by different annotators need at least {repeats} annotators; got {n}")


@dataclass(frozen=True)
class SimulationTruth:
    """What infinitely many segments would show.

    Attributes
    ----------
    quality : Series
        The true quality of each system (the human order).
    difficulty : Series or ndarray
        Each segment's drawn difficulty ``d_l`` (shared by every system and metric); replications
        x segments for :func:`simulate_replications`.
    metric_system_scores : DataFrame
        Systems x metrics: each metric's system score in the limit, ``slope * q + bias`` (up to a
        constant shared by every system).
    pairwise_accuracy : Series
        Each metric's pairwise accuracy in the limit: the share of system pairs its limit scores
        order as ``quality`` does (a tie on both sides agrees, a tie on one side does not).
    variance : Series or None
        DA-like judgements only: the variance of a perfect judgement across outputs
        (``"output"``: ``scale² Var(q + d + e)``, every system weighing the same),
        of the drawn annotators' offsets (``"annotator"``, ddof 1: the expected half squared
        difference of two different annotators), of one judgement's own noise with the rounding
        (``"judgement"``: ``judgement_sd² + 1/12``), and the share of judgements clipped at 0 or
        100 (where the components are only approximate).
    """

    quality: pd.Series
    difficulty: object
    metric_system_scores: pd.DataFrame
    pairwise_accuracy: pd.Series
    variance: pd.Series | None = None


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
    judgements : DataFrame or None
        DA-like judgements (``human="da"``), one row each: system, segment, repeat, annotator,
        score (``spalib.perfect_annotator(j["score"], j[["system", "segment"]],
        annotators=j["annotator"])``).
    """

    human: pd.DataFrame
    metrics: dict
    truth: SimulationTruth
    settings: dict = field(default_factory=dict)
    judgements: pd.DataFrame | None = None


@dataclass(frozen=True)
class SimulatedReplications:
    """Many simulated tasks of one model: arrays replications x systems x segments.

    Attributes
    ----------
    human : ndarray
    metrics : dict of name -> ndarray
    systems : Index
    truth : SimulationTruth
    settings : dict
    """

    human: np.ndarray
    metrics: dict
    systems: pd.Index
    truth: SimulationTruth
    settings: dict = field(default_factory=dict)

    def task(self, replication: int) -> SimulatedTask:
        """Replication ``replication`` as frames, for any spalib function."""
        r = int_iv(replication, "replication", low=0, high=self.human.shape[0] - 1)
        segments = pd.RangeIndex(self.human.shape[2], name="segment")
        frames = {n: pd.DataFrame(m[r], index=self.systems, columns=segments) for n, m in self.metrics.items()}
        truth = SimulationTruth(self.truth.quality,
                                pd.Series(self.truth.difficulty[r], index=segments, name="difficulty"),
                                self.truth.metric_system_scores, self.truth.pairwise_accuracy, self.truth.variance)
        return SimulatedTask(pd.DataFrame(self.human[r], index=self.systems, columns=segments), frames, truth,
                             {**self.settings, "replication": r})


def _simulate_iv(quality, n_segments, metrics, segment_sd, human_sd, human, mqm_weight, mqm_cap, da, rng):
    q = real_array_iv(quality, "quality", ndim=1)
    if q.size < 2:
        raise ValueError(f"`quality` needs at least 2 systems; got {q.size}")
    systems = list(labels_iv(quality.index, "quality.index")) if isinstance(quality, pd.Series) \
        else [f"sys{s}" for s in range(q.size)]
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
    if not isinstance(da, DAModel):
        raise TypeError(f"`da` must be a DAModel; got {type(da).__name__}")
    return (q, systems, n_segments, dict(segment_sd=segment_sd, human_sd=human_sd, human=human, mqm_weight=mqm_weight,
                                         mqm_cap=mqm_cap, da=da), rng_iv(rng))


def _bias(model: MetricModel, n_systems: int) -> np.ndarray:
    """A metric's fixed offset per system (zeros when it has none)."""
    return np.zeros(n_systems) if model.bias is None else np.asarray(model.bias, dtype=float)


def _limit_pairwise_accuracy(quality: np.ndarray, scores: np.ndarray) -> float:
    i, j = np.triu_indices(quality.size, 1)
    return float(np.mean(np.sign(quality[i] - quality[j]) == np.sign(scores[i] - scores[j])))


def _draw(rng, q, n_segments, n_replications, metrics, segment_sd, human_sd, human, mqm_weight, mqm_cap, da):
    """Every array of ``n_replications`` test sets (replications x systems x segments), drawn in a
    fixed order: difficulties, human noise, DA judgements, then each metric in the order given.
    """
    shape = (n_replications, q.size, n_segments)
    difficulty = rng.normal(0.0, segment_sd, size=(n_replications, n_segments))
    truth = q[None, :, None] + difficulty[:, None, :]
    standard_noise = rng.standard_normal(shape)
    latent = truth + human_sd * standard_noise
    judgements = None
    if human == "mqm":
        reported = -np.minimum(mqm_cap, np.round(mqm_weight * np.maximum(0.0, -latent)))
    elif human == "da":
        judgements = _da_judgements(rng, latent, da)
        reported = judgements["score"].mean(axis=-1)
    else:
        reported = latent
    scores = {}
    for name, model in metrics.items():
        bias = _bias(model, q.size)
        rho = model.error_correlation
        own = rng.standard_normal(shape)
        noise = model.noise_sd * (rho * standard_noise + np.sqrt(1.0 - rho * rho) * own)
        scores[name] = model.slope * truth + bias[None, :, None] + noise
    return difficulty, reported, scores, judgements


def _da_judgements(rng, latent, da):
    """``da.repeats`` judgements of every cell: ``offset + scale * latent + annotator offset +
    judgement noise``, rounded and clipped to 0-100.  Repeats are by one annotator or by
    different ones (drawn without replacement from the pool).
    """
    offsets = rng.normal(0.0, da.annotator_sd, size=da.n_annotators)
    cells = latent.shape
    if da.same_annotator:
        who = np.repeat(rng.integers(0, da.n_annotators, size=cells)[..., None], da.repeats, axis=-1)
    else:
        who = np.argsort(rng.random(cells + (da.n_annotators,)), axis=-1)[..., :da.repeats]
    noise = rng.normal(0.0, da.judgement_sd, size=cells + (da.repeats,))
    raw = da.offset + da.scale * latent[..., None] + offsets[who] + noise
    return dict(score=np.clip(np.round(raw), 0.0, 100.0), annotator=who, offsets=offsets,
                clipped=float(np.mean((raw < 0) | (raw > 100))))


def _truth(q, index, difficulty, metrics, settings, judgements):
    limit = pd.DataFrame({name: model.slope * q + _bias(model, q.size) for name, model in metrics.items()},
                         index=index)
    pa = pd.Series({name: _limit_pairwise_accuracy(q, limit[name].to_numpy()) for name in metrics},
                   name="pairwise accuracy")
    variance = None
    if judgements is not None:
        da = settings["da"]
        # a perfect judgement is the expectation over annotators: offset + scale * latent (+ their mean)
        output = da.scale ** 2 * (q.var() + settings["segment_sd"] ** 2 + settings["human_sd"] ** 2)
        annotator = float(judgements["offsets"].var(ddof=1))
        judgement = da.judgement_sd ** 2 + 1 / 12                  # + the rounding to whole points
        variance = pd.Series({"output": output, "annotator": annotator, "judgement": judgement,
                              "clipped share": judgements["clipped"]}, name="variance")
    return SimulationTruth(pd.Series(q, index=index, name="quality"), difficulty, limit, pa, variance)


def simulate_task(quality, n_segments: int, metrics: dict, *, segment_sd: float = 1.0, human_sd: float = 1.0,
                  human: str = "continuous", mqm_weight: float = 5.0, mqm_cap: float = 25.0,
                  da: DAModel = DAModel(), rng=None) -> SimulatedTask:
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
        Standard deviations of the segment difficulty and of the outputs' own deviation ``e``.
    human : {"continuous", "mqm", "da"}
        How human scores are reported: the latent score; an MQM-like penalty
        ``-min(mqm_cap, round(mqm_weight * max(0, -latent)))`` (many ties at 0, a cap); or the
        mean of DA-like judgements on 0-100 (:class:`DAModel`: annotator offsets, repeats).
    mqm_weight, mqm_cap : float
        Of the MQM-like penalty.
    da : DAModel
        Of the DA-like judgements (``human="da"``).
    rng : None, int or numpy.random.Generator
        The random state.

    Returns
    -------
    SimulatedTask
        ``human`` and ``metrics`` frames (systems x segments), the DA ``judgements`` (long, one
        row per judgement) and the ``truth``.

    Notes
    -----
    With latent human scores ``x_sl = q_s + d_l + e_sl`` and metric noise
    ``n_skl = noise_sd_k * (rho_k * e_sl / human_sd + sqrt(1 - rho_k**2) * z_skl)``, ``z`` standard
    normal, each metric's noise has standard deviation ``noise_sd_k`` and correlation ``rho_k``
    with the outputs' deviation ``e`` of its cell.  The draws use the Generator in a fixed order
    (difficulties, ``e``, DA judgements, then each metric in the order given), so a seed gives
    the same task; :func:`simulate_replications` draws many tasks at once the same way.

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
    q, systems, n_segments, settings, rng = _simulate_iv(quality, n_segments, metrics, segment_sd, human_sd, human,
                                                         mqm_weight, mqm_cap, da, rng)
    sim, judgements = _replications(q, systems, n_segments, 1, metrics, settings, rng)
    long = None
    if judgements is not None:
        system, segment, repeat = np.indices(judgements["score"].shape[1:]).reshape(3, -1)
        long = pd.DataFrame({"system": sim.systems[system], "segment": segment, "repeat": repeat,
                             "annotator": judgements["annotator"][0].ravel(),
                             "score": judgements["score"][0].ravel()})
    return dataclasses.replace(sim.task(0), judgements=long, settings=dict(
        n_segments=n_segments, **settings, metrics=dict(metrics), seed=sim.settings["seed"]))


def simulate_replications(quality, n_segments: int, metrics: dict, n_replications: int, *,
                          segment_sd: float = 1.0, human_sd: float = 1.0, human: str = "continuous",
                          mqm_weight: float = 5.0, mqm_cap: float = 25.0, da: DAModel = DAModel(),
                          rng=None) -> SimulatedReplications:
    """Draw ``n_replications`` independent tasks of :func:`simulate_task`'s model at once.

    Parameters
    ----------
    quality : array_like or Series, shape (S,)
        The true quality of each system, as in :func:`simulate_task`.
    n_segments : int
        Segments per task.
    metrics : dict of name -> MetricModel
        The simulated metrics.
    n_replications : int
        Independent tasks to draw.
    segment_sd, human_sd : float
        As in :func:`simulate_task`.
    human : {"continuous", "mqm", "da"}
        As in :func:`simulate_task` (``"da"``: the mean of each cell's judgements).
    mqm_weight, mqm_cap : float
        Of the MQM-like penalty.
    da : DAModel
        Of the DA-like judgements.
    rng : None, int or numpy.random.Generator
        The random state.

    Returns
    -------
    SimulatedReplications
        Arrays replications x systems x segments, and the truth (difficulties per replication).

    Notes
    -----
    The systems, their qualities and the metrics' biases are the same in every replication;
    the segments, their difficulties and every noise are drawn afresh, with the draws of
    :func:`simulate_task` made for all replications at once (one array each).

    References
    ----------
    Morris, T. P., White, I. R. and Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11). (Replications, Monte-Carlo standard
    errors, size, power and coverage.)

    Examples
    --------
    >>> sim = simulate_replications([0.0, 0.0], 50, {"m": MetricModel()}, 1000, rng=2)
    >>> sim.human.shape, sim.metrics["m"].shape
    ((1000, 2, 50), (1000, 2, 50))
    """
    q, systems, n_segments, settings, rng = _simulate_iv(quality, n_segments, metrics, segment_sd, human_sd, human,
                                                         mqm_weight, mqm_cap, da, rng)
    n_replications = positive_int_iv(n_replications, "n_replications")
    return _replications(q, systems, n_segments, n_replications, metrics, settings, rng)[0]


def _replications(q, systems, n_segments, n_replications, metrics, settings, rng):
    """The draws of :func:`simulate_replications` (and of :func:`simulate_task`, one replication)
    with their truth, and the raw DA judgements (None unless ``human="da"``).
    """
    seed = engine.describe_seed(rng)          # before any draw: what reproduces the draws
    difficulty, reported, scores, judgements = _draw(rng, q, n_segments, n_replications, metrics, **settings)
    for name, values in (("the human scores", reported), *((f"metric {m!r}", v) for m, v in scores.items())):
        if not np.isfinite(values).all():   # every other function refuses inf: say why here
            raise ValueError(f"{name}: values overflow float64 (the qualities, slopes or SDs are too large)")
    index = pd.Index(systems, name="system")
    sim = SimulatedReplications(
        human=reported, metrics=scores, systems=index,
        truth=_truth(q, index, difficulty, metrics, settings, judgements),
        settings=dict(n_segments=n_segments, n_replications=n_replications, **settings, metrics=dict(metrics),
                      seed=seed),
    )
    return sim, judgements


# --- the lab: one test, many replications, each with its own draws --------------------------------

def _seed_from(rng) -> int:
    """One 63-bit key for the counter-based streams of every replication."""
    return int(rng_iv(rng).integers(0, 2 ** 63, dtype=np.int64))


def pair_test_pvalues(differences, *, n_resamples: int = 1000, rng=None) -> pd.DataFrame:
    """The paired permutation p-values of one system pair in every replication, by convention.

    Parameters
    ----------
    differences : array_like, shape (R, L)
        Per-segment score differences ``a - b`` of the pair, one row per replication.
    n_resamples : int
        Sign patterns per replication (each replication draws its own).
    rng : None, int or Generator
        The random state.

    Returns
    -------
    DataFrame, one row per replication
        ``ge``: ``#{T* >= T} / K``, spalib's and mt-metrics-eval's convention; ``plus_one``:
        ``(#{T* >= T} + 1) / (K + 1)`` (exact level); ``mid``: ties counted half; ``normal``:
        the normal approximation ``1 - Phi(T / sqrt(sum d^2))``; ``two_sided``: ``#{|T*| >= |T|} / K``.

    Notes
    -----
    ``ge`` equals :func:`spalib.pairwise_pvalues` given the replication's sign patterns
    (:func:`spalib._core.simulation_kernels.pair_signs`): the same count with the same
    tolerance.  Identical for any number of threads.

    References
    ----------
    Morris, T. P., White, I. R. and Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11).
    Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero. Statistical
    Applications in Genetics and Molecular Biology 9(1). (The ``plus_one`` convention.)

    Examples
    --------
    >>> sim = simulate_replications([0.0, 0.0], 40, {"m": MetricModel()}, 500, rng=0)
    >>> p = pair_test_pvalues(sim.human[:, 0] - sim.human[:, 1], n_resamples=200, rng=1)
    >>> list(p.columns)
    ['ge', 'plus_one', 'mid', 'normal', 'two_sided']
    """
    d = real_array_iv(differences, "differences", ndim=2)
    n_resamples = positive_int_iv(n_resamples, "n_resamples")
    seed = _seed_from(rng)
    ge, eq, two = simulation_kernels.pair_test_counts(np.ascontiguousarray(d), n_resamples, seed)
    scaled = rescaled_rows(d)   # the normal p-value ignores a row's scale
    normal = sign_kernels.normal_upper_pvalues(scaled.sum(axis=1), (scaled * scaled).sum(axis=1), False)
    return pd.DataFrame({"ge": ge / n_resamples, "plus_one": monte_carlo_pvalue(ge, n_resamples),
                         "mid": (ge - 0.5 * eq) / n_resamples, "normal": normal,
                         "two_sided": two / n_resamples})


@renamed_keyword("statistic", "meta_metric")
def metric_test_pvalues(replications: SimulatedReplications, first: str, second: str, *,
                        meta_metric: PermMetaMetric = "pa", permutation: Scheme = "both",
                        alternative: Alternative | tuple[Alternative, ...] = "greater",
                        n_resamples: int = 1000, early_stopping=None, rng=None) -> pd.DataFrame:
    """The test of two metrics that :func:`spalib.compare_metrics` runs, in every replication.

    Parameters
    ----------
    replications : SimulatedReplications
    first, second : str
        The two metrics' names.
    meta_metric : {"pa", "spa"}
        Pairwise accuracy, or SPA with normal-approximation p-values (``spa_method="normal"``).
    permutation : {"both", "inputs", "systems"}
        PERM-BOTH, PERM-INPUTS or PERM-SYSTEMS.
    alternative : {"greater", "two-sided"} or tuple of them
        As in :func:`spalib.compare_metrics`: ``"greater"`` tests the observed better metric
        against the other (its direction chosen after seeing the data).  A tuple (even of one)
        gives each alternative's p-value from the same draws: a comparison of the two free of
        the Monte-Carlo error of separate draws, at the cost of one test.  It cannot be
        combined with ``early_stopping``, which stops on one p-value.
    n_resamples : int
        Draws per replication.
    early_stopping : EarlyStopping, optional
        mt-metrics-eval's early stopping, on the p-value of the one ``alternative`` given.
    rng : None, int or Generator

    Returns
    -------
    DataFrame, one row per replication
        ``delta`` (``first`` minus ``second``), ``pvalue`` and ``draws`` used; for a tuple of
        alternatives, ``pvalue_greater`` and/or ``pvalue_two_sided`` in place of ``pvalue``, in
        the tuple's order.

    Notes
    -----
    Each replication runs the test as :func:`spalib.compare_metrics` does (z-scored metrics,
    the library's meta-metric and swap kernels, ``p = extreme / draws``), with its own swap
    stream; when the two scores tie, ``first`` is taken as the better.

    References
    ----------
    Morris, T. P., White, I. R. and Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11).
    Deutsch, D., Dror, R. and Roth, D. (2021). A statistical analysis of summarization evaluation
    metrics using resampling methods. TACL. (PERM-BOTH, PERM-INPUTS, PERM-SYSTEMS.)

    Examples
    --------
    >>> sim = simulate_replications([0, 0.2, 0.4], 30, {"a": MetricModel(), "b": MetricModel()}, 100, rng=0)
    >>> metric_test_pvalues(sim, "a", "b", n_resamples=50, rng=1).shape
    (100, 3)
    """
    if not isinstance(replications, SimulatedReplications):
        raise TypeError(f"`replications` must be a SimulatedReplications; got {type(replications).__name__}")
    for name, value in (("first", first), ("second", second)):
        if value not in replications.metrics:
            raise ValueError(f"`{name}` must name a simulated metric ({sorted(replications.metrics)}); got {value!r}")
    meta_metric = choice_iv(meta_metric, "meta_metric", PERM_META_METRICS)
    permutation = choice_iv(permutation, "permutation", SCHEMES)
    alternatives = _alternatives_iv(alternative)
    n_resamples = positive_int_iv(n_resamples, "n_resamples")
    if early_stopping is not None and not isinstance(early_stopping, EarlyStopping):
        raise TypeError(f"`early_stopping` must be None or an EarlyStopping; got {early_stopping!r}")
    if early_stopping is not None and not isinstance(alternative, str):
        raise ValueError("`early_stopping` stops on one p-value: give one `alternative`, not a tuple")
    human = real_array_iv(replications.human, "replications.human", ndim=3)
    if human.shape[1] < 2 or human.shape[2] < 1:
        raise ValueError(f"`replications.human` needs at least 2 systems and 1 segment; got shape {human.shape}")
    for name in (first, second):
        shape = np.shape(replications.metrics[name])
        if shape != human.shape:
            raise ValueError(f"`replications.metrics[{name!r}]` must have the human scores' shape {human.shape} "
                             f"(replications x systems x segments); got {shape}")
        real_array_iv(replications.metrics[name], f"replications.metrics[{name!r}]", ndim=3)
    seed = _seed_from(rng)
    stop = early_stopping or EarlyStopping(n_resamples, 0.0, 1.0)
    z_first, z_second = (np.stack([meta.zscored(m) for m in replications.metrics[name]]) for name in (first, second))
    delta, greater, two_sided, used = simulation_kernels.metric_test_counts(
        np.ascontiguousarray(rescaled_rows(human)), z_first, z_second,
        PERM_META_METRICS.index(meta_metric), SCHEMES.index(permutation), n_resamples,
        stop.block_size if early_stopping else n_resamples, stop.early_min if early_stopping else -1.0,
        stop.early_max if early_stopping else 2.0, alternative == "two-sided", seed)
    pvalues = {"greater": greater / used, "two-sided": two_sided / used}
    if isinstance(alternative, str):
        return pd.DataFrame({"delta": delta, "pvalue": pvalues[alternative], "draws": used})
    return pd.DataFrame({"delta": delta, **{"pvalue_" + a.replace("-", "_"): pvalues[a] for a in alternatives},
                         "draws": used})


def _alternatives_iv(alternative) -> tuple:
    """``alternative`` of :func:`metric_test_pvalues` as a tuple of distinct alternatives."""
    if isinstance(alternative, str):
        return (choice_iv(alternative, "alternative", ALTERNATIVES),)
    if (isinstance(alternative, tuple) and alternative and all(a in ALTERNATIVES for a in alternative)
            and len(set(alternative)) == len(alternative)):
        return alternative
    raise ValueError(f"`alternative` must be one of {', '.join(map(repr, ALTERNATIVES))} or a tuple of distinct "
                     f"ones; got {alternative!r}")


def correlation_test_pvalues(human, first, second, *, n_resamples: int = 1000, rng=None) -> pd.DataFrame:
    """A paired permutation test of ``r(human, first) = r(human, second)`` in every replication.

    Parameters
    ----------
    human, first, second : array_like, shape (R, n)
        One row per replication: the human scores and the two metrics' of ``n`` items.
    n_resamples : int
        Draws per replication; each swaps the two metrics' scores of every item with
        probability 1/2.
    rng : None, int or Generator

    Returns
    -------
    DataFrame, one row per replication
        ``delta`` = ``r(h, first) - r(h, second)`` (Pearson) and the two-sided ``pvalue``
        ``#{|Δ*| >= |Δ|} / K``, over the ``K`` draws whose correlations are defined (a swap can
        leave a metric's row constant; with continuous scores none does).  A row that is
        constant before any swap is refused: its correlation is undefined.

    Notes
    -----
    Swapping the two metrics' scores of an item leaves the pair's joint distribution unchanged
    when the two metrics are exchangeable, the null hypothesis this test assumes; unlike the
    Williams test it assumes nothing about the scores' distribution.  A draw counts as extreme
    within the tie tolerance of the two correlations (``1e-11 * (|r_1| + |r_2|)``: the swap of
    every item gives ``-Δ`` in exact arithmetic), the library's rule for a tie.

    References
    ----------
    Morris, T. P., White, I. R. and Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11).
    Graham, Y. and Baldwin, T. (2014). Testing for significance of increased correlation with
    human judgment. EMNLP. (The Williams test this one stands beside.)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> h = rng.normal(size=(50, 20))
    >>> out = correlation_test_pvalues(h, h + rng.normal(size=h.shape), h + rng.normal(size=h.shape), rng=1)
    >>> out.shape
    (50, 2)
    """
    h = real_array_iv(human, "human", ndim=2)
    x = real_array_iv(first, "first", ndim=2)
    y = real_array_iv(second, "second", ndim=2)
    if not h.shape == x.shape == y.shape:
        raise ValueError(f"`human`, `first` and `second` must have one shape; got {h.shape}, {x.shape}, {y.shape}")
    if h.shape[1] < 3:
        raise ValueError(f"the correlations need at least 3 items; got {h.shape[1]}")
    for name, rows in (("human", h), ("first", x), ("second", y)):
        constant = np.flatnonzero(np.ptp(rows, axis=1) == 0)
        if constant.size:
            raise ValueError(f"`{name}` row {constant[0]} is constant: its correlation is undefined")
    n_resamples = positive_int_iv(n_resamples, "n_resamples")
    seed = _seed_from(rng)
    # the two metrics' rows share one scale, as a draw mixes them
    h, xy = rescaled_rows(h), rescaled_rows(np.stack([x, y], axis=1))
    x, y = xy[:, 0], xy[:, 1]
    delta, two, defined = simulation_kernels.correlation_difference_counts(
        np.ascontiguousarray(h), np.ascontiguousarray(x), np.ascontiguousarray(y), n_resamples, seed)
    with np.errstate(invalid="ignore"):
        pvalue = np.where(defined > 0, two / np.maximum(defined, 1), np.nan)
    return pd.DataFrame({"delta": delta, "pvalue": pvalue})


def rejection_rates(pvalues, alphas=(0.01, 0.05, 0.10)) -> pd.DataFrame:
    """How often each test rejects at each level, with its Monte-Carlo standard error.

    Parameters
    ----------
    pvalues : DataFrame or Series
        One column per test (a Series is one test), one row per replication; NaN is refused.
    alphas : sequence of float
        Levels; a test rejects when ``p <= alpha``.

    Returns
    -------
    DataFrame
        Index = test, columns ``(alpha, "rate")`` and ``(alpha, "se")`` with
        ``se = sqrt(rate (1 - rate) / R)``.

    Notes
    -----
    The standard error is the binomial one of ``R`` independent replications; a test with its
    own random draws per replication (as the lab's loops draw them) meets that assumption.

    References
    ----------
    Morris, T. P., White, I. R. and Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11).

    Examples
    --------
    >>> rates = rejection_rates(pd.Series([0.01, 0.2, 0.04, 0.7], name="t"), alphas=[0.05])
    >>> float(rates.loc["t", (0.05, "rate")]), float(rates.loc["t", (0.05, "se")])
    (0.5, 0.25)
    """
    frame = pvalues.to_frame() if isinstance(pvalues, pd.Series) else pvalues
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"`pvalues` must be a DataFrame or Series; got {type(pvalues).__name__}")
    try:
        values = frame.to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise TypeError("`pvalues` must hold numbers (p-values)") from None
    values = real_array_iv(values, "pvalues", ndim=2)
    if values.shape[0] == 0 or values.shape[1] == 0:
        raise ValueError(f"`pvalues` needs at least one replication and one test; got shape {values.shape}")
    if ((values < 0) | (values > 1)).any():
        raise ValueError("`pvalues` must lie in [0, 1]: they are p-values")
    levels = [probability_iv(a, "alphas") for a in np.atleast_1d(alphas)]
    if not levels:
        raise ValueError("`alphas` must give at least one level")
    out = {}
    for alpha in levels:
        rate = (values <= alpha).mean(axis=0)
        out[(alpha, "rate")] = rate
        out[(alpha, "se")] = rate_se(rate, values.shape[0])
    result = pd.DataFrame(out, index=frame.columns)
    result.columns.names = ["alpha", None]
    return result


def rate_se(rate, n):
    """The Monte-Carlo standard error of a rate measured on ``n`` independent draws or
    replications (a p-value, a rejection rate, a coverage): ``sqrt(rate (1 - rate) / n)``.

    Parameters
    ----------
    rate : float or array_like
        Rates in [0, 1].
    n : int or array_like
        How many independent draws each rate was measured on (positive).

    Returns
    -------
    float or ndarray (pandas inputs give a pandas result, aligned on the index)

    Notes
    -----
    The binomial standard error, as :func:`rejection_rates` reports it: the draws must be
    independent (a p-value's own Monte-Carlo draws, or replications with draws of their own).

    References
    ----------
    Morris, T. P., White, I. R. and Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11).

    Examples
    --------
    >>> rate_se(0.05, 2000)
    0.004873397172404482
    """
    for name, value in (("rate", rate), ("n", n)):
        if np.asarray(value).dtype.kind not in "iuf":
            raise TypeError(f"`{name}` must hold numbers; got {np.asarray(value).dtype}")
    values, counts = np.asarray(rate, dtype=float), np.asarray(n, dtype=float)
    if np.isnan(values).any() or ((values < 0) | (values > 1)).any():
        raise ValueError("`rate` must lie in [0, 1]")
    if np.isnan(counts).any() or (counts <= 0).any():
        raise ValueError("`n` must be positive")
    if isinstance(rate, (pd.Series, pd.DataFrame)) or isinstance(n, (pd.Series, pd.DataFrame)):
        return np.sqrt(rate * (1 - rate) / n)
    se = np.sqrt(values * (1 - values) / counts)
    return float(se) if se.ndim == 0 else se


@dataclass(frozen=True)
class RateDifference:
    """The difference of two Monte-Carlo rates (:func:`rate_difference`).

    Attributes
    ----------
    difference : float
        ``rate(first) - rate(second)``.
    se : float
        Its Monte-Carlo standard error.
    z : float
        ``difference / se`` (NaN when both are 0; infinite when only ``se`` is).
    paired : bool
        Whether the outcomes were paired by replication.
    """

    difference: float
    se: float
    z: float
    paired: bool


def rate_difference(first, second, *, paired: bool = True) -> RateDifference:
    """The difference of two rates (rejections, coverage, findings) and its Monte-Carlo standard
    error.

    Parameters
    ----------
    first, second : array_like of bool or 0/1
        Each replication's outcome (1: the test rejected, the interval covered, ...), 1-D.
    paired : bool
        True: outcome ``i`` of both comes from the same replication (the same simulated test
        set), so they must have the same length.  False: independent replications.

    Returns
    -------
    RateDifference

    Notes
    -----
    Paired, the standard error is that of the mean of the differences ``d_i = first_i -
    second_i``: ``sqrt(var(d) / n)`` with the plug-in variance (``ddof=0``, as :func:`rate_se`'s
    binomial one).  Only the replications where the outcomes differ move it, so it is much
    smaller than the independent one when the two tests mostly agree.  Independent:
    ``sqrt(rate_se(r1, n1)**2 + rate_se(r2, n2)**2)``.

    References
    ----------
    Morris, T. P., White, I. R. and Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11). (Section 5.2: comparing methods on the
    same data sets.)

    Examples
    --------
    >>> d = rate_difference([1, 1, 0, 1], [1, 0, 0, 1])
    >>> float(d.difference), round(float(d.se), 4)
    (0.25, 0.2165)
    """
    flag_iv(paired, "paired")
    outcomes = []
    for name, value in (("first", first), ("second", second)):
        array = np.asarray(value)
        if array.ndim != 1 or array.size == 0:
            raise ValueError(f"`{name}` must be a non-empty 1-D sequence of outcomes; got shape {array.shape}")
        if array.dtype.kind not in "biuf" or not np.isin(array, (0, 1)).all():
            raise ValueError(f"`{name}` must hold outcomes: booleans or 0/1")
        outcomes.append(array.astype(np.float64))
    a, b = outcomes
    if paired:
        if a.size != b.size:
            raise ValueError(f"paired outcomes come from the same replications: `first` has {a.size}, "
                             f"`second` {b.size}")
        if (isinstance(first, pd.Series) and isinstance(second, pd.Series)
                and not first.index.equals(second.index)):
            raise ValueError("paired outcomes must have the same index (the same replications, in order)")
        d = a - b
        difference, se = float(d.mean()), float(d.std() / np.sqrt(d.size))
    else:
        difference = float(a.mean() - b.mean())
        se = float(np.sqrt(rate_se(a.mean(), a.size) ** 2 + rate_se(b.mean(), b.size) ** 2))
    z = difference / se if se > 0 else (np.nan if difference == 0 else np.copysign(np.inf, difference))
    return RateDifference(difference, se, float(z), paired)


PROMISE_VERDICTS = ("kept", "above", "below")


def promise_ledger(rows, *, max_z: float = 3.0) -> pd.DataFrame:
    """What each test promised beside what the simulation measured, with a verdict by rule.

    Parameters
    ----------
    rows : DataFrame
        Index = what was checked; columns ``promised`` (e.g. the level α, or a coverage of
        0.95, strictly between 0 and 1), ``measured`` (the simulated rate) and
        ``replications`` (how many independent replications it comes from).
    max_z : float > 0, finite, default 3
        How many standard errors a measured rate may stray from its promise and still keep it.

    Returns
    -------
    DataFrame
        ``rows`` with ``se`` (the Monte-Carlo standard error of a rate that keeps its promise,
        ``sqrt(promised (1 - promised) / replications)``), ``z = (measured - promised) / se``
        and ``verdict``: ``"kept"`` when ``|z| <= max_z``, else ``"above"`` or ``"below"`` (a size
        above its level rejects too often; a coverage below its level covers too rarely).

    Notes
    -----
    The rule is a two-sided z-test of "this rate equals its promise": the standard error is
    the one the promise implies, so a measured rate of 0 or 1 is judged too.  Three standard
    errors leave a rate that keeps its promise outside "kept" in about 0.3% of checks by the
    normal approximation; a ledger of many checks that should all hold whatever the seed needs
    more (four: 0.006%).  The binomial tails of a small rate from few replications are
    heavier (four standard errors at 0.05 from 2,000: about 0.01%).  A rate near its promise,
    not on it, gets either verdict by chance unless the replications are enough to tell the
    two apart.

    References
    ----------
    Morris, T. P., White, I. R. and Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11).

    Examples
    --------
    >>> rows = pd.DataFrame({"promised": [0.05, 0.05], "measured": [0.052, 0.11],
    ...                      "replications": [2000, 2000]}, index=["a", "b"])
    >>> promise_ledger(rows)["verdict"].tolist()
    ['kept', 'above']
    """
    if not isinstance(rows, pd.DataFrame):
        raise TypeError(f"`rows` must be a DataFrame; got {type(rows).__name__}")
    missing = [c for c in ("promised", "measured", "replications") if c not in rows.columns]
    if missing:
        raise ValueError(f"`rows` lacks the column(s) {missing}")
    allowed = real_iv(max_z, "max_z", low=0.0, low_open=True, high_open=True)
    promised = np.array([real_iv(v, f"rows['promised'][{k!r}]", low=0.0, high=1.0, low_open=True, high_open=True)
                         for k, v in rows["promised"].items()])
    measured = np.array([real_iv(v, f"rows['measured'][{k!r}]", low=0.0, high=1.0)
                         for k, v in rows["measured"].items()])
    replications = np.array([positive_int_iv(v, f"rows['replications'][{k!r}]")
                             for k, v in rows["replications"].items()])
    se = rate_se(promised, replications)
    z = (measured - promised) / se
    out = rows.copy()
    out["se"] = se
    out["z"] = z
    out["verdict"] = np.where(np.abs(z) <= allowed, "kept", np.where(z > 0, "above", "below"))
    return out
