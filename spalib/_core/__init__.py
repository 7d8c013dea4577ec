"""spalib's private core, grouped by concern; public modules import private names only from here.

- :mod:`~spalib._core.validation`: the argument checks every public function is built from.
- :mod:`~spalib._core.rng`: SplitMix64 streams and the random streams of a resampling test.
- :mod:`~spalib._core.align`: aligning human and metric scores by system and segment.
- :mod:`~spalib._core.sign_matrix`: the shared sign matrix and the check of the arguments that
  make one.
- :mod:`~spalib._core.engine`: the one resampling engine, a loop over metric pairs.
- Kernels (numba, no validation): :mod:`~spalib._core.signs` (sign-flip nulls and p-values),
  :mod:`~spalib._core.meta` (SPA and pairwise agreement), :mod:`~spalib._core.perm_both`,
  :mod:`~spalib._core.bootstrap`, :mod:`~spalib._core.rank_kernels`,
  :mod:`~spalib._core.corpus_kernels`, :mod:`~spalib._core.ter_kernels` (sacrebleu's TER shift
  search), :mod:`~spalib._core.annotator_kernels`.
"""
