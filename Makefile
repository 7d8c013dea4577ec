# Two commands do all the set-up on a fresh clone:  make book  and  make test.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
# The execution cache sees only code cells, and Sphinx re-reads only edited pages: when the library,
# the pins or a file the chapters read (published numbers, benchmark scripts and results) change,
# forget both so that every chapter runs again.
# numba's threading layer: OpenMP (its work queue where OpenMP is missing), with idle workers
# asleep at once (OMP_WAIT_POLICY=PASSIVE): spinning ones steal the two cores from PERM-BOTH's
# BLAS products, and the work queue, which does not spin either, runs the library's parallel
# loops slower (here: PA draws at zh-en's shape 6.7 vs 2.0 us, a one-draw call 102 vs 53 us,
# benchmarks/bench_rank.py 89 vs 86 s).  The library leaves the choice to its caller: the book,
# the tests, the CLI and the benchmarks make it here and there.
export NUMBA_THREADING_LAYER_PRIORITY ?= omp workqueue tbb
export OMP_WAIT_POLICY ?= PASSIVE
INPUTS_HASH = $(shell cat requirements.txt pyproject.toml $$(find spalib -name '*.py' | sort) \
	$$(find spalib/data/published spalib/data/results benchmarks -type f \( -name '*.csv' -o -name '*.json' -o -name '*.py' \) | sort) | sha256sum | cut -c1-16)

.PHONY: book test data check-html clean help kernels lab

# numba reuses a cached kernel while its own file is unchanged, even when a kernel it calls from
# another file has changed (a pull or a branch switch can do that): the book and the tests keep
# the compiled kernels in a folder of their own for each state of spalib's sources
SOURCES_HASH := $(shell cat $$(find spalib -name '*.py' | sort) | sha256sum | cut -c1-16)
KERNEL_CACHES := $(CURDIR)/_build/numba-cache
export NUMBA_CACHE_DIR ?= $(KERNEL_CACHES)/$(SOURCES_HASH)
kernels:
	@mkdir -p $(KERNEL_CACHES)
	@find $(KERNEL_CACHES) -mindepth 1 -maxdepth 1 ! -name '$(SOURCES_HASH)' -exec rm -rf {} +

help:
	@echo "make book        build _build/html, executing every chapter (creates $(VENV) if needed)"
	@echo "make test        run the test suite (fetches the data first if missing)"
	@echo "make check-html  open the built pages in headless Chromium and check them"
	@echo "make data        show (and download if missing) the data folder"
	@echo "make lab         open the chapters in JupyterLab (installs it into $(VENV) on first use)"

# uv installs the same versions as pip in a fraction of the time; pip installs them where uv can't
# (an index that only pip's configuration names, say).  Python compiles each module the first time
# it is imported and keeps the bytecode (here even where PYTHONDONTWRITEBYTECODE says not to):
# compiling every installed file up front instead (--compile-bytecode) took 16 s of a fresh
# book's build here, mostly for files the book never imports
export PYTHONDONTWRITEBYTECODE =
$(INSTALLED): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	if $(PY) -m pip install --quiet uv && $(VENV)/bin/uv pip install --quiet --python $(PY) \
	     -r requirements.txt; then :; else \
	  echo "uv could not install the requirements: pip installs them"; \
	  $(PY) -m pip install --quiet --upgrade pip && $(PY) -m pip install --quiet -r requirements.txt; fi
	touch $@

# python -m spalib.data ensure, where and prepare, in one process: each would import spalib
# (numba, pandas, scipy: 1.2 s) again
data: $(INSTALLED)
	$(PY) -c 'import sys; from spalib.data.__main__ import main; \
	sys.exit(main(["ensure"]) or main(["where"]) or main(["prepare"]))'

MATHJAX := _static/mathjax/tex-mml-chtml.js

# the parts of MathJax 3 the book's pages load (the combined TeX/CHTML file, TeX extensions
# loaded on demand, fonts, the menu), from the pip package: no CDN needed
$(MATHJAX): $(INSTALLED)
	$(PY) -c 'import mathjax, pathlib, shutil; \
	src = pathlib.Path(mathjax.__file__).parent / "static/mathjax/es5"; dst = pathlib.Path("_static/mathjax"); \
	[shutil.copytree(src / d, dst / d, dirs_exist_ok=True) for d in ("input/tex/extensions", "output/chtml/fonts", "ui", "a11y")]; \
	shutil.copy2(src / "tex-mml-chtml.js", dst / "tex-mml-chtml.js")'

book: $(INSTALLED) data $(MATHJAX) kernels
	@mkdir -p _build
	@if [ "$$(cat _build/.inputs-hash 2>/dev/null)" != "$(INPUTS_HASH)" ]; then \
	  echo "spalib, requirements or the chapters' input files changed: clearing the execution cache"; \
	  rm -rf _build/.jupyter_cache _build/.doctrees _build/jupyter_execute; echo "$(INPUTS_HASH)" > _build/.inputs-hash; fi
	@# the chapters side by side, one thread each, into the execution cache the build then reads
	$(PY) _ext/execute_chapters.py
	$(VENV)/bin/jupyter-book build . -W -n --keep-going
	test -f _build/html/index.html || { echo "no _build/html/index.html: the build failed"; exit 1; }

# JupyterLab, to run the chapters as notebooks: the book does not need it, so it is installed on
# first use, with jupytext, which opens the chapters' MyST files as notebooks
LAB_PACKAGES := jupyterlab jupytext
lab: $(INSTALLED) data kernels
	$(PY) -c 'import jupyterlab, jupytext' 2>/dev/null || { test -x $(VENV)/bin/uv \
	  && $(VENV)/bin/uv pip install --quiet --python $(PY) $(LAB_PACKAGES) \
	  || $(PY) -m pip install --quiet $(LAB_PACKAGES); }
	cd chapters && ../$(VENV)/bin/jupyter lab $(LAB_ARGS)

# the tests read the real data too: fetch it first, as `make book` does, whichever comes first
test: $(INSTALLED) data kernels
	$(VENV)/bin/ruff check spalib tests benchmarks _ext
	$(PY) -m pytest --doctest-modules spalib tests

check-html: $(INSTALLED)
	$(PY) -m pip install --quiet -r requirements-check.txt
	$(PY) tests/browser/check_html.py _build/html --screenshots _build/screenshots

clean:
	rm -rf _build _static/mathjax
