"""The shared sign matrix of the paired permutation tests, and the check of the arguments that make one."""

from __future__ import annotations

import numpy as np

from spalib._core import signs as sign_kernels
from spalib._core.validation import choice_iv, int_iv, is_seed, positive_int_iv, rng_iv
from spalib._core.vocabulary import SIGN_RECIPES


class SignMatrix:
    """A shared matrix of random signs: ``n_resamples`` patterns over ``n_segments``.

    ``packed`` holds the signs as bits (``uint8``, eight segments per byte, bit set = +1).
    ``reference`` holds the float32 ±1 matrix of the ``"mtme"`` recipe, which p-values multiply
    in float32 exactly as mt-metrics-eval does; its packed form is built only if a float64
    computation asks for it.  Both are validated here, before any kernel reads them.
    """

    def __init__(self, n_segments: int, *, packed: np.ndarray | None = None, reference: np.ndarray | None = None):
        n_segments = positive_int_iv(n_segments, "n_segments")
        if (packed is None) == (reference is None):
            raise ValueError("give either packed signs or the float32 sign matrix of the 'mtme' recipe")
        if packed is not None:
            packed = np.asarray(packed)
            if packed.dtype != np.uint8 or packed.ndim != 2 or packed.shape[1] != (n_segments + 7) // 8 \
                    or packed.shape[0] < 1:
                raise ValueError(f"`packed` must be a uint8 array of shape (n_resamples, {(n_segments + 7) // 8}) "
                                 f"for {n_segments} segments; got {packed.dtype} {packed.shape}")
            packed = np.array(packed, order="C")   # a copy: the caller's array may change later
        else:
            reference = np.asarray(reference)
            if reference.dtype != np.float32 or reference.ndim != 2 or reference.shape[1] != n_segments \
                    or reference.shape[0] < 1 or not np.isin(reference, (-1.0, 1.0)).all():
                raise ValueError(f"`reference` must be a float32 matrix of ±1 of shape (n_resamples, {n_segments}); "
                                 f"got {reference.dtype} {reference.shape}")
            reference = np.array(reference, order="C")
        object.__setattr__(self, "_n_segments", n_segments)
        object.__setattr__(self, "_packed", packed)
        object.__setattr__(self, "_reference", reference)
        for array in (packed, reference):
            if array is not None:
                array.flags.writeable = False   # checked once: nothing may change it afterwards

    def __setattr__(self, name, value):
        raise AttributeError(f"a SignMatrix cannot be changed once checked (setting {name!r}); draw a new one")

    @property
    def n_segments(self) -> int:
        """The number of segments the signs cover."""
        return self._n_segments

    @property
    def reference(self) -> np.ndarray | None:
        """The float32 ±1 matrix of the ``"mtme"`` recipe (read-only), or None."""
        return self._reference

    @property
    def recipe(self) -> str:
        """``"mtme"`` for mt-metrics-eval's float32 signs, else ``"bits"``."""
        return "mtme" if self.reference is not None else "bits"

    @property
    def n_resamples(self) -> int:
        """The number of sign patterns."""
        return (self._packed if self._packed is not None else self.reference).shape[0]

    @property
    def packed(self) -> np.ndarray:
        """The signs as bits, eight segments per byte."""
        if self._packed is None:
            packed = sign_kernels._pack_signs(self.reference)
            packed.flags.writeable = False
            object.__setattr__(self, "_packed", packed)   # the same signs, packed once on demand
        return self._packed

    def as_bits(self) -> SignMatrix:
        """The same signs for float64 arithmetic (the ``"bits"`` path), e.g. mt-metrics-eval's signs
        without its float32 rounding.
        """
        return SignMatrix(self.n_segments, packed=self.packed)


def signs_arguments_iv(n_resamples, rng, signs, *, count: str = "n_resamples"):
    """``n_resamples``, ``rng`` and ``signs``, checked whatever the path will use of them."""
    n_resamples = positive_int_iv(n_resamples, count)
    if isinstance(signs, SignMatrix):
        return n_resamples, rng_iv(rng), signs
    signs = choice_iv(signs, "signs", SIGN_RECIPES)
    if signs == "mtme":
        if not is_seed(rng):
            raise ValueError("signs='mtme' reproduces mt-metrics-eval's signs for an int seed (its default is 4): "
                             f"pass `rng` as an int; got {rng!r}")
        int_iv(rng, "rng", low=0)
        return n_resamples, int(rng), signs
    return n_resamples, rng_iv(rng), signs
