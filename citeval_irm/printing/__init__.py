"""Layer 2, printing: the one escaping rule per output format, the printable base of
results, text / Markdown / LaTeX tables, the document model, its HTML and Markdown
renderer, plots.

Imports ``base`` only.
"""
