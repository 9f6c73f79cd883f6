"""``python -m logicrules``: the command line of :mod:`logicrules.cli`."""

import sys

from logicrules.cli import main

if __name__ == "__main__":
    sys.exit(main())
