"""``python -m beacon``: the same as the ``beacon`` command."""

from ._cli import main

raise SystemExit(main())
