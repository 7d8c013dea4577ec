"""The words spalib's arguments take, declared once: each a ``Literal`` type for the signatures and
its values, in order, for the validators and the command line.
"""

from __future__ import annotations

from typing import Literal, get_args

MetaMetric = Literal["spa", "pa", "acc_eq", "pdp", "pearson"]
"""What a test between metrics scores them by: soft pairwise accuracy, pairwise accuracy of
system means, segment-level acc_eq with a calibrated tie threshold ("acc-t"), the pairwise
difference Pearson correlation within segments, or Pearson's r over all cells (WMT's
segment-level Pearson; on one score per system, its system-level Pearson)."""
PermMetaMetric = Literal["pa", "spa"]
"""The meta-metrics a PERM test (and the simulation lab) swaps cells for."""
SpaMethod = Literal["permutation", "normal"]
"""How SPA's own p-values are computed: sign patterns, or the normal approximation."""
PValueMethod = Literal["permutation", "normal", "exact"]
"""How a paired test's p-value is computed: sign patterns, the normal approximation, or all
``2**L`` patterns."""
Scheme = Literal["both", "inputs", "systems"]
"""What a PERM draw swaps between two metrics: cells, whole segments, or whole systems."""
Alternative = Literal["greater", "two-sided"]
"""Which null draws count as extreme: ``>= Δ`` (one-sided, in the observed direction) or
``|Δ*| >= |Δ|``."""
Grouping = Literal["none", "item", "system"]
"""Which pairs of cells a segment-level statistic compares: all of them, the systems of each
segment (item), or the segments of each system."""
Ties = Literal["ge", "mid"]
"""How a p-value counts null values equal to the observed one: fully, or one half (mid-p)."""
SignRecipe = Literal["bits", "mtme"]
"""How sign matrices are drawn: ``"bits"``, eight random signs per random byte from the ``rng``
Generator (fast, float64 sums); ``"mtme"``, mt-metrics-eval's recipe for an int seed
(``default_rng(seed).random((K, L), dtype=float32)``, +1 iff the uniform rounds to 1) with its
float32 arithmetic, so that p-values and SPA equal the toolkit's for that seed."""

META_METRICS: tuple[str, ...] = get_args(MetaMetric)
PERM_META_METRICS: tuple[str, ...] = get_args(PermMetaMetric)
SPA_METHODS: tuple[str, ...] = get_args(SpaMethod)
PVALUE_METHODS: tuple[str, ...] = get_args(PValueMethod)
SCHEMES: tuple[str, ...] = get_args(Scheme)
ALTERNATIVES: tuple[str, ...] = get_args(Alternative)
TIES: tuple[str, ...] = get_args(Ties)
GROUPINGS: tuple[str, ...] = get_args(Grouping)
SIGN_RECIPES: tuple[str, ...] = get_args(SignRecipe)
