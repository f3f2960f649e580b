"""``python -m atlas``: the same as the ``atlas`` command (cli.py)."""
import sys

from .cli import main

sys.exit(main())
