"""``python -m verify`` is the ``verify`` command."""
import sys

from .cli import main

sys.exit(main())
