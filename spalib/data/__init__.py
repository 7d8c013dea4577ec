"""Readers for the published meta-evaluation data, exactly as released.

Where the data lives
--------------------
:func:`data_root` picks the folder: ``$SPALIB_DATA`` if set, else ``../shared/data`` beside the
project when it exists, else a user cache folder filled by ``python -m spalib.data download NAME``.
Every reader accepts a file as ``NAME`` or ``NAME.gz``.

What the readers promise
------------------------
Tidy pandas objects; ``NaN`` exactly where a file says ``None``; and a ``ValueError`` naming the
file and line for anything malformed (wrong field count, non-numeric score, unknown, missing or
repeated system, a row given twice, wrong number of lines).  Nothing is dropped silently: where
a reader filters, it says what it filtered (:func:`complete_segments` returns the counts,
:func:`read_mqm_tsv` refuses source-error rows unless asked to drop them).
"""

from __future__ import annotations

from spalib.data._download import DATASETS
from spalib.data.mqm import MQM_WEIGHTS, mqm_weight, read_mqm_avg_seg_scores, read_mqm_tsv, score_mqm
from spalib.data.mtme import (MTME_META, EvalSet, MetaInfo, MetricInputs, SegmentTask, complete_segments, from_long,
                              load_mtme, metric_inputs, read_seg_score_file, segment_task, write_metric_inputs,
                              write_seg_score_file)
from spalib.data.summeval import (SUMMEVAL_DIMENSIONS, SUMMEVAL_GROUPS, SUMMEVAL_METRIC_FILES, SummEval,
                                   load_summeval)
from spalib.data.paths import DATA_ENV, book_table, data_root, dataset_path, download, resolve_root, write_manifest
from spalib.data.wmt import (WMT13_LPS, WMT_TOEN_DA_LPS, ToEnglishDA, ToEnglishTexts, da_output_names, load_wmt12,
                             load_wmt13_da, load_wmt13_texts, load_wmt17_da, load_wmt17_testset, load_wmt20_da,
                             load_wmt_da_judgements, load_wmt_da_seg_scores, load_wmt_toen_da, load_wmt_toen_texts,
                             prepare_statistics, read_williams_results, read_worker_mean_sd)

__all__ = [
    "data_root", "dataset_path", "resolve_root", "download", "write_manifest", "DATASETS", "DATA_ENV", "book_table",
    "EvalSet", "load_mtme", "MTME_META", "complete_segments", "read_seg_score_file", "segment_task",
    "SegmentTask", "MetaInfo", "from_long", "write_seg_score_file", "metric_inputs", "write_metric_inputs",
    "MetricInputs",
    "load_wmt12", "read_williams_results", "WMT13_LPS", "load_wmt13_da", "load_wmt13_texts",
    "load_wmt17_da", "load_wmt17_testset",
    "load_wmt20_da", "load_wmt_da_judgements", "load_wmt_da_seg_scores", "read_worker_mean_sd", "WMT_TOEN_DA_LPS",
    "ToEnglishTexts", "load_wmt_toen_texts", "da_output_names", "ToEnglishDA", "load_wmt_toen_da", "prepare_statistics",
    "read_mqm_tsv", "score_mqm", "mqm_weight", "MQM_WEIGHTS", "read_mqm_avg_seg_scores",
    "SummEval", "load_summeval", "SUMMEVAL_DIMENSIONS", "SUMMEVAL_GROUPS", "SUMMEVAL_METRIC_FILES",
]
