"""rank_metrics on an executor (a local process pool, a Dask cluster, ``spalib rank --jobs``):
the same results as a serial run, draw for draw."""

from __future__ import annotations

import concurrent.futures
import multiprocessing

import numpy as np
import pandas as pd
import pytest

import spalib


def toy_tasks():
    rng = np.random.default_rng(0)
    tasks = {}
    for lp in ("xx-en", "yy-en", "en-zz"):
        human = rng.normal(size=(6, 40))
        metrics = {f"m{k}": pd.DataFrame(human + sd * rng.normal(size=human.shape))
                   for k, sd in enumerate((0.5, 1.0, 2.0))}
        tasks[lp] = (pd.DataFrame(human), metrics)
    return tasks


def rank(executor=None):
    return spalib.rank_metrics(toy_tasks(), meta_metrics=("spa", "pa", "acc_eq"), n_resamples=60, spa_resamples=80,
                               interval_resamples=50, rng=11, executor=executor)


def assert_same(a, b):
    pd.testing.assert_frame_equal(a.table(), b.table())
    assert list(a.comparisons) == list(b.comparisons)
    for key, comparison in a.comparisons.items():
        other = b.comparisons[key]
        pd.testing.assert_frame_equal(comparison.pvalues, other.pvalues)
        for pair, null in comparison.null_distributions.items():
            np.testing.assert_array_equal(null, other.null_distributions[pair])
    pd.testing.assert_frame_equal(a.average.pvalues, b.average.pvalues)


def test_a_process_pool_gives_the_serial_ranking():
    serial = rank()
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert_same(serial, rank(pool))


def test_a_dask_cluster_gives_the_serial_ranking():
    import distributed    # spalib's optional extra `cluster`, installed by requirements.txt
    serial = rank()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        assert_same(serial, rank(client.get_executor()))


def test_an_executor_without_submit_is_refused_by_name():
    with pytest.raises(TypeError, match="`executor` must be None or a concurrent.futures.Executor"):
        spalib.rank_metrics(toy_tasks(), meta_metrics="pa", n_resamples=10, interval_resamples=0, rng=1,
                            executor="four processes")


def test_the_command_line_with_jobs_prints_the_serial_table(capsys):
    from spalib.cli import main
    args = ["rank", "--test-set", "wmt23", "--lp", "he-en", "--lp", "zh-en", "--stat", "pa", "--k", "30",
            "--bootstrap", "20", "--format", "tsv", "--quiet", "--primary-only", "--no-qe"]
    assert main(args) == 0
    serial = capsys.readouterr().out
    assert main(args + ["--jobs", "2"]) == 0
    assert capsys.readouterr().out == serial
