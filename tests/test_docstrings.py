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


@pytest.mark.parametrize("module, name, function", PUBLIC, ids=[f"{m}.{n}" for m, n, _ in PUBLIC])
def test_every_parameter_is_documented_under_its_own_name(module, name, function):
    doc = inspect.getdoc(function) or ""
    block = doc.split("\nParameters\n----------\n", 1)[-1].split("\nReturns\n-------\n", 1)[0]
    documented = set()
    for line in block.splitlines():
        if line and not line.startswith(" "):
            documented |= {part.strip() for part in line.split(" : ")[0].split(",")}
    parameters = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    missing = [p for p in parameters if p not in documented and f"*{p}" not in documented]
    assert not missing, f"{module}.{name} does not document {missing}"
