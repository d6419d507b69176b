"""Layer 8 (beside ``checks``): reference lists that name papers (a language model's
answers) resolved against a dataset's papers into a TREC run, with a resolution report.

``normalise`` (titles and identifiers), ``generated`` (reading the lists and a catalogue),
``index`` (the title and identifier index, exact then blocked fuzzy), ``resolve``
(:func:`resolve`) and ``result`` (:class:`Resolution`). Imports nothing heavy here.
"""

THRESHOLD = 90.0
"""The fuzzy match's threshold on ``fuzz.ratio`` (0-100) of normalised titles; its
precision and recall on a labelled set of 1,000 GENERATED references are in the README
(``scripts/resolve_threshold.py``)."""

REPORT_SUFFIXES = {".json": "json", ".csv": "decisions", ".md": "markdown", ".txt": "table"}
"""What a resolution report file holds, by suffix: everything (JSON), the decision for
every reference (CSV), or the printed report."""
