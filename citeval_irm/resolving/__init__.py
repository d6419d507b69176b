"""Layer 8 (beside ``checks``): reference lists that name papers (a language model's
answers) resolved against a dataset's papers into a TREC run, with a resolution report.

``normalise`` (titles and identifiers), ``generated`` (reading the lists and a catalogue),
``index`` (the title and identifier index, exact then blocked fuzzy), ``resolve``
(:func:`resolve`) and ``result`` (:class:`Resolution`). Imports nothing heavy here.
"""
