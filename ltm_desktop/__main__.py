"""Allow ``python -m ltm_desktop``."""

from ltm_desktop.cli import main

raise SystemExit(main())
