"""Layer 1, base: errors and warnings, closed sets of choices, options, the measure
parser, writing files, progress, locks, downloads, IR_DATASETS_HOME.

Imports nothing of the package outside ``base``; every layer may import it.
"""
