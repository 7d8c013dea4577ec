"""The slow run of ``chapters/williams.md``: its simulation of the Williams test's and Fisher's
r-to-z test's rejection rates, stored so that the chapter reads it.

The run is the chapter's own loop, with its seed (``SEED``) and in its order of random draws: one
Generator ``default_rng(SEED)``, and for each ρ23 in (0.8, 0.9, 0.95) and each Δ in
``linspace(0, 0.3, 7)`` whose three correlations can occur together, ``N_SIM`` = 2,000 data sets
of the 12 WMT12 es-en systems drawn from it in turn (``multivariate_normal``); on each data set,
one ``spalib.williams_test`` and one ``spalib.fisher_z_test``, one-sided at α = 0.05.

- ``spalib/data/results/williams_power.csv``: per setting and test, the rejection rate (columns
  ``ρ23``, ``Δ``, ``test``, ``rejection rate``), in the chapter's row order;
- ``spalib/data/results/williams_seconds.csv``: the seconds the run took (its CPU time).

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/williams.py

Under a minute.  One thread, so that the seconds it stores are one core's, as the book's.

The settings draw in turn from one Generator, so the first setting from a fresh Generator is the
same numbers as the first rows of the whole run; a later setting is too once the earlier
settings' data sets are drawn (``power_rows(..., tested=...)`` draws them all, and runs the tests
on the settings asked for).  The chapter runs the first setting again and checks it against the
file; ``tests/test_stored_williams.py`` reruns two later settings.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import data

RESULTS = _setup.RESULTS
OUT_POWER = os.path.join(RESULTS, "williams_power.csv")
OUT_SECONDS = os.path.join(RESULTS, "williams_seconds.csv")
SEED = 20140901            # the chapter's
ALPHA = 0.05
N_SIM, RHO12 = 2000, 0.9
RHO23 = (0.8, 0.9, 0.95)
DELTAS = np.linspace(0, 0.3, 7)


def n_systems() -> int:
    """The number of WMT12 es-en systems (the chapter's ``N_SYSTEMS``)."""
    human, _ = data.load_wmt12("es-en")
    return len(human)


def settings():
    """(ρ23, Δ, covariance) of each setting the chapter simulates, in its order; the settings
    whose three correlations cannot occur together are left out, as the chapter leaves them.
    """
    out = []
    for rho23 in RHO23:
        for delta in DELTAS:
            rho12, rho13 = RHO12, RHO12 - delta
            cov = np.array([[1, rho12, rho13], [rho12, 1, rho23], [rho13, rho23, 1]])
            if np.linalg.eigvalsh(cov).min() <= 0:
                continue
            out.append((rho23, delta, cov))
    return out


def rejection_rows(samples, rho23, delta, n):
    """The chapter's two rows of one setting: each test's rejection rate on ``samples``."""
    w = f = 0
    for x in samples:
        c = np.corrcoef(x, rowvar=False)
        r12_, r13_, r23_ = c[0, 1], c[0, 2], c[1, 2]
        w += spalib.williams_test(r12_, r13_, r23_, n).pvalue < ALPHA
        f += spalib.fisher_z_test(r12_, n, r13_, n).pvalue < ALPHA
    return [{"ρ23": rho23, "Δ": delta, "test": test, "rejection rate": k / N_SIM}
            for test, k in (("Williams", w), ("Fisher r-to-z", f))]


def power_rows(rng, n, tested=None):
    """The chapter's simulation from ``rng``: every setting's data sets drawn in turn, the tests
    run on the settings numbered in ``tested`` (None: all), their rows as a frame.
    """
    rows = []
    for k, (rho23, delta, cov) in enumerate(settings()):
        samples = rng.multivariate_normal(np.zeros(3), cov, size=(N_SIM, n))
        if tested is None or k in tested:
            rows += rejection_rows(samples, rho23, delta, n)
    return pd.DataFrame(rows)


def written(path, frame):
    """Write ``frame`` as CSV and check that it reads back exactly, as the chapter reads it."""
    frame.to_csv(path, index=False)
    back = pd.read_csv(path)
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    print(f"{os.path.basename(path)}: {os.path.getsize(path) / 1000:.1f} kB", flush=True)


def main():
    start = time.process_time()
    power = power_rows(np.random.default_rng(SEED), n_systems())
    seconds = time.process_time() - start
    print(f"the simulation: {seconds:.1f} s", flush=True)
    written(OUT_POWER, power)
    written(OUT_SECONDS, pd.DataFrame({"run": ["power"], "seconds": [seconds]}))


if __name__ == "__main__":
    main()
