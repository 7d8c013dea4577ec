"""``python -m spalib``: the ``spalib`` command (see :mod:`spalib.cli`)."""

from spalib.cli import main

raise SystemExit(main())
