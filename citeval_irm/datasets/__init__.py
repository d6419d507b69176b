"""Citation-recommendation datasets for ir_datasets, registered on ``import citeval_irm``.

>>> import ir_datasets, citeval_irm
>>> dataset = ir_datasets.load("citeval/acl-200/test")
>>> dataset.queries_iter(), dataset.qrels_iter(), dataset.docs_store().get("N04-1019")

Ids: ``citeval/{acl-200,fulltextpeerread,refseer,arxiv}`` (docs) and ``.../{train,val,test}``
(docs, queries, qrels). ACL-200 downloads itself; the others are installed with
:func:`import_dataset` (``citeval import NAME DIR``) or read from the folder named by
``CITEVAL_<NAME>_DIR``. :func:`admissible_candidates` gives, per query, the candidates the
temporal protocol allows.
"""

from __future__ import annotations

from .admissible import UNKNOWN_YEAR_POLICIES, AdmissibleCandidates, admissible_candidates
from .hatten import CORPORA, DataNotFoundError, HattenCorpus, PublishedCounts, get_corpus
from .importing import ImportReport, import_dataset, validate_folder
from .records import CitationContext, CitationDoc, CitationQuery
from .registry import register
from .years import PaperDate, acl_anthology_date, arxiv_date, paper_date, paper_year

DATASET_IDS = tuple(register())


def ir_datasets_cli(argv: list[str]) -> int:
    """Run the ``ir_datasets`` command line (export, lookup, list, ...) with our datasets
    registered, since ir_datasets cannot discover them itself; return its exit status."""
    import ir_datasets

    register()
    try:
        ir_datasets.main(list(argv))
    except SystemExit as exc:  # ir_datasets exits on usage errors and unknown datasets
        return exc.code if isinstance(exc.code, int) else 1
    return 0


__all__ = [
    "CORPORA",
    "DATASET_IDS",
    "UNKNOWN_YEAR_POLICIES",
    "AdmissibleCandidates",
    "CitationContext",
    "CitationDoc",
    "CitationQuery",
    "DataNotFoundError",
    "HattenCorpus",
    "ImportReport",
    "PaperDate",
    "PublishedCounts",
    "acl_anthology_date",
    "admissible_candidates",
    "arxiv_date",
    "get_corpus",
    "import_dataset",
    "ir_datasets_cli",
    "paper_date",
    "paper_year",
    "register",
    "validate_folder",
]
