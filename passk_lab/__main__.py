"""``python -m passk_lab``: the same as the ``passk-lab`` command."""

import sys

from passk_lab.cli import main

if __name__ == "__main__":
    sys.exit(main())
