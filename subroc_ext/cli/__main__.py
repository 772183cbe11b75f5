"""``python -m subroc_ext.cli``: the ``subroc-ext`` command."""

from . import main

raise SystemExit(main())
