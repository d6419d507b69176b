"""``python -m citeval_irm.cli``: the ``citeval`` command."""

from . import run

run()
