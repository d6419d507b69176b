"""``python -m citeval_irm.cli``: the ``citeval`` command."""

import sys

from . import main

sys.exit(main())
