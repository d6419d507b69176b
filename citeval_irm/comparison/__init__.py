"""Layer 9, comparison: ``compare`` and its paired tests, intervals and effect sizes,
the ``Comparison`` model, query facets, ``breakdown`` and ``results_table``.

Imports the layers below it (base up to checks).
"""
