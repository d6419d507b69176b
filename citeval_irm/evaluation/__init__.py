"""Layer 7, evaluation: ``evaluate``, the one scoring of a chunk of whole queries and
the one merge into its result, the query population, short rankings, and the
ir-measures provider.

Imports the layers below it: base, printing, datasets, reading, scoring, papers.
"""
