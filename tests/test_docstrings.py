"""Every public function documents itself in numpydoc: what it takes, gives, computes, cites, and an
example that runs (the examples are doctests, run by `make test`)."""

from __future__ import annotations

import inspect

import pytest

import spalib
import spalib.corpus_metrics
import spalib.data

PUBLIC = [(module.__name__, name, getattr(module, name))
          for module in (spalib, spalib.corpus_metrics, spalib.data)
          for name in module.__all__ if inspect.isfunction(getattr(module, name))]


@pytest.mark.parametrize("module, name, function", PUBLIC, ids=[f"{m}.{n}" for m, n, _ in PUBLIC])
def test_public_functions_have_complete_numpydoc(module, name, function):
    doc = "\n" + (inspect.getdoc(function) or "")
    sections = ["Returns", "Notes", "References", "Examples"]
    if inspect.signature(function).parameters:
        sections.insert(0, "Parameters")
    missing = [s for s in sections if f"\n{s}\n{'-' * len(s)}\n" not in doc]
    assert not missing, f"{module}.{name} lacks {missing}"
    assert ">>> " in doc
