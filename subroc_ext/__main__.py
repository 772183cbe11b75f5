"""``python -m subroc_ext``: the ``subroc-ext`` command, as ``python -m subroc_ext.cli``."""

from .cli import main

raise SystemExit(main())
