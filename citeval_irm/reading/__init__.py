"""Layer 4, reading: the one reader of runs and qrels (``io``), the columnar ``Run`` and
``Qrels`` (``tables``), the one tie policy (``ties``), and the sources of chunks of
whole queries any scoring is run over (``sources``: whole, streamed, sorted out of
core, on Dask).

Imports ``base`` and ``datasets`` (an ir_datasets id is a source of qrels).
"""
