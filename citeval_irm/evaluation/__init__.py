"""Layer 7, evaluation: ``evaluate`` (the verb), what a run is evaluated with
(``settings``), which queries count (``population``), the one scoring of a chunk of whole
queries and the one merge into its result (``parts``), the engines (``engines``), short
rankings, and the ir-measures provider.

Imports the layers below it: base, printing, datasets, reading, scoring, papers.
"""
