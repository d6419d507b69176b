"""Citation-recommendation datasets for ir_datasets, registered on ``import citeval_irm``.

>>> import ir_datasets, citeval_irm
>>> dataset = ir_datasets.load("citeval/acl-200/test")
>>> dataset.queries_iter(), dataset.qrels_iter(), dataset.docs_store().get("N04-1019")

Ids: ``citeval/{acl-200,fulltextpeerread,refseer,arxiv,arsyta}`` (docs) and
``.../{train,val,test}`` (docs, queries, qrels), all in the HAtten layout;
``citeval/masterset-coreml-v1`` (the candidate pool) and
``.../{test,train}/{baseline,core,frequent,must-cite}[/in-pool]`` (query papers and
must-cite qrels). ACL-200, ArSyTa and MasterSet download themselves; the others are
installed with :func:`import_dataset` (``citeval import NAME DIR``) or read from the folder
named by ``CITEVAL_<NAME>_DIR``. :func:`admissible_candidates` gives, per query, the
candidates the temporal protocol allows; :func:`query_papers` the query paper of each query
(for the cross-check); :func:`out_of_pool_gold` MasterSet's unreachable gold per query.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import irhome  # noqa: F401 (first: ir_datasets imported even with a read-only home)
from ..base.choices import DATE_PRECISIONS, UNKNOWN_YEAR_POLICIES
from ..base.hooks import names_on_first_use
from .catalogue import CORPORA, MASTERSET_CORPORA, out_of_pool_gold
from .formats.hatten import HattenCorpus, HattenLayout, PublishedCounts
from .formats.masterset import MUST_CITE, TIER_RULES, TIERS, MasterSetCorpus
from .importing import ImportReport, corpus_named, import_dataset, validate_folder
from .records import (
    ArsytaContext,
    ArsytaDoc,
    ArsytaQuery,
    CitationContext,
    CitationDoc,
    CitationQuery,
    MasterSetDoc,
    MasterSetQuery,
    MustCiteQrel,
)
from .registry import register
from .sources import CorpusSource, DataNotFoundError
from .years import PaperDate, acl_anthology_date, arxiv_date, paper_date, paper_year

if TYPE_CHECKING:  # for type checkers and IDEs: the names __getattr__ provides
    from .admissible import AdmissibleCandidates, admissible_candidates, query_papers

DATASET_IDS = tuple(register())
get_corpus = corpus_named  # its public name of old: one lookup for every corpus

# names imported on first use: admissible candidates are arrays and frames, and registering
# the datasets (which ``import ir_datasets`` does once citeval_irm is imported) must not
# import pandas
_LAZY = {
    "AdmissibleCandidates": "admissible",
    "admissible_candidates": "admissible",
    "query_papers": "admissible",
}


__getattr__, __dir__ = names_on_first_use(__name__, _LAZY)


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
    "DATE_PRECISIONS",
    "MASTERSET_CORPORA",
    "MUST_CITE",
    "TIERS",
    "TIER_RULES",
    "UNKNOWN_YEAR_POLICIES",
    "AdmissibleCandidates",
    "ArsytaContext",
    "ArsytaDoc",
    "ArsytaQuery",
    "CitationContext",
    "CitationDoc",
    "CitationQuery",
    "CorpusSource",
    "DataNotFoundError",
    "HattenCorpus",
    "HattenLayout",
    "ImportReport",
    "MasterSetCorpus",
    "MasterSetDoc",
    "MasterSetQuery",
    "MustCiteQrel",
    "PaperDate",
    "PublishedCounts",
    "acl_anthology_date",
    "admissible_candidates",
    "arxiv_date",
    "get_corpus",
    "import_dataset",
    "ir_datasets_cli",
    "out_of_pool_gold",
    "paper_date",
    "paper_year",
    "query_papers",
    "register",
    "validate_folder",
]
