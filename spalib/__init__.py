"""spalib: statistics for the meta-evaluation of machine-translation metrics.

The companion library of the *spa-book*: paired permutation tests for every system pair, pairwise
accuracy and Soft Pairwise Accuracy, the Kendall family with ties, tie calibration, and the
Williams test, with readers for the published WMT data in :mod:`spalib.data`.
"""

__version__ = "0.1.0"
