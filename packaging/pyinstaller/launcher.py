"""The frozen app's entry point: the same as the ``ltm-desktop`` console script."""

import sys

from ltm_desktop.cli import main

if __name__ == "__main__":
    sys.exit(main())
