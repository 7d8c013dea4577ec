"""spalib: statistics for the meta-evaluation of machine-translation metrics.

The companion library of the *spa-book*: paired permutation tests for every system pair, pairwise
accuracy and Soft Pairwise Accuracy, the significance of metric differences (PERM-BOTH,
significance clusters, bootstrap intervals and rankings averaged over tasks in
:mod:`spalib.ranking`), the Williams test for dependent correlations, and Wei & Jia's
bias-variance-noise decomposition of system-level pairwise error (with corpus BLEU, chrF and TER
recomputed from sacrebleu statistics in :mod:`spalib.corpus_metrics`), with readers for the
published WMT data in :mod:`spalib.data`.

Where each paper's method lives is tabled in the README and at the top of the API page.  Private
code is in :mod:`spalib._core` (validation, random streams, the resampling engine, numba kernels).
numba's threading layer is left to the caller: the Makefile, the ``spalib`` command and the
benchmarks choose OpenMP (the work queue where it is missing) with idle workers asleep at once
(``OMP_WAIT_POLICY=PASSIVE``), so that they do not spin after a parallel region.
"""

from spalib.correlation_tests import (
    CorrelationTestResult,
    WilliamsMatrix,
    fisher_z_test,
    williams_matrix,
    williams_test,
)
from spalib.annotators import PerfectAnnotator, judgements_for_power, perfect_annotator
from spalib.bootstrap import PairLabels, SystemBootstrap, bootstrap_system_scores, pair_labels, system_pairs
from spalib.error_decomposition import ErrorDecomposition, decompose_pairwise_error
from spalib.metametrics import (
    WMT_EARLY_STOPPING,
    EarlyStopping,
    MetricComparison,
    SoftPairwiseAccuracyResult,
    chance_levels,
    compare_metrics,
    pairwise_accuracy,
    pairwise_difference_pearson,
    significance_ranks,
    soft_pairwise_accuracy,
    spa_from_pvalues,
)
from spalib.multiple_testing import holm_adjusted, monte_carlo_pvalue
from spalib.reproduction import reproduction_ledger
from spalib.protocols import PROTOCOLS, Protocol, ProtocolResult, ProtocolTask, protocol, run_protocol
from spalib.rank_correlations import (
    KendallResult,
    PairsTestResult,
    TieCalibrationResult,
    kendall_tau,
    pairs_permutation_test,
    tie_calibration,
)
from spalib.ranking import AveragedComparison, MetricRanking, average_comparisons, metric_intervals, rank_metrics
from spalib.resampling import SIGN_RECIPES, SignMatrix, draw_signs, pairwise_pvalues
from spalib.simulate import (
    DAModel,
    MetricModel,
    SimulatedReplications,
    SimulatedTask,
    SimulationTruth,
    correlation_test_pvalues,
    metric_test_pvalues,
    pair_test_pvalues,
    RateDifference,
    promise_ledger,
    rate_difference,
    rate_se,
    rejection_rates,
    simulate_replications,
    simulate_task,
)

__all__ = [
    "pairwise_pvalues", "draw_signs", "SignMatrix", "SIGN_RECIPES",
    "pairwise_accuracy", "pairwise_difference_pearson", "soft_pairwise_accuracy", "spa_from_pvalues",
    "chance_levels", "compare_metrics",
    "significance_ranks",
    "MetricComparison",
    "SoftPairwiseAccuracyResult", "EarlyStopping", "WMT_EARLY_STOPPING",
    "williams_test", "fisher_z_test", "williams_matrix", "CorrelationTestResult", "WilliamsMatrix",
    "kendall_tau", "tie_calibration", "pairs_permutation_test", "KendallResult", "TieCalibrationResult",
    "PairsTestResult",
    "bootstrap_system_scores", "system_pairs", "pair_labels", "PairLabels", "decompose_pairwise_error",
    "perfect_annotator",
    "judgements_for_power", "SystemBootstrap", "ErrorDecomposition", "PerfectAnnotator",
    "rank_metrics", "metric_intervals", "average_comparisons", "MetricRanking", "AveragedComparison",
    "reproduction_ledger", "holm_adjusted", "monte_carlo_pvalue",
    "protocol", "run_protocol", "Protocol", "ProtocolTask", "ProtocolResult", "PROTOCOLS",
    "simulate_task", "simulate_replications", "MetricModel", "DAModel", "SimulatedTask", "SimulatedReplications",
    "SimulationTruth", "pair_test_pvalues", "metric_test_pvalues", "correlation_test_pvalues", "rejection_rates",
    "rate_se", "rate_difference", "RateDifference", "promise_ledger",
]
__version__ = "0.1.0"
