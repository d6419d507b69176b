"""Layer 8 (beside ``checks``): reference lists that name papers (a language model's
answers) resolved against a dataset's papers into a TREC run, with a resolution report.

``normalise`` (titles and identifiers), ``citations`` (where a title sits in a citation
string, a title's parts), ``generated`` (reading the lists and a catalogue), ``index`` (the
title and identifier index, exact then blocked fuzzy), ``near`` (abbreviations, and the near
misses of real titles), ``resolve`` (:func:`resolve`) and ``result`` (:class:`Resolution`).
Imports nothing heavy here.
"""

THRESHOLD = 90.0
"""The fuzzy match's threshold on ``fuzz.ratio`` (0-100) of normalised titles; its
precision and recall on 40,000 references made from real titles
(``benchmarks/bench_resolve_quality.py``) and on a labelled set of 1,000 GENERATED ones
(``scripts/resolve_threshold.py``) are in the resolve guide."""

REPORT_SUFFIXES = {
    ".json": "json",
    ".csv": "decisions",
    ".txt": "table",
    ".html": "page",
    ".htm": "page",
    ".md": "page",
}
"""What a resolution report file holds, by suffix: everything (JSON), the decision for
every reference (CSV), the printed report (``.txt``), or, as every command's ``--report``,
the page (``.html`` or ``.md``: :func:`citeval_irm.make_report` of the resolution: the
scores, how the lists were resolved, the rate by popularity with its plot, the checks)."""
