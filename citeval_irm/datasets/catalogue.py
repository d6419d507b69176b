"""Every citeval corpus, in the order the registry and ``citeval datasets list`` show them:
the collection modules beside this one, each an entry of its format's corpus class. The
registry, ``citeval import`` and the generated ``metadata.json`` all iterate
:data:`COLLECTIONS`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InputError
from . import arsyta, demo_corpus, hatten_corpora, masterset_coreml
from .formats.hatten import HattenCorpus
from .formats.masterset import (
    MUST_CITE,
    NOTES,
    SPLITS,
    TIERS,
    MasterSetCorpus,
    iter_gold,
    pool_ids,
    tier_gold,
)
from .jsonstream import Notes
from .sources import CorpusSource

if TYPE_CHECKING:
    import pandas as pd

COLLECTIONS: tuple[CorpusSource, ...] = (
    *hatten_corpora.CORPORA,
    arsyta.ARSYTA,
    demo_corpus.DEMO,
    *masterset_coreml.CORPORA,
)
CORPORA: dict[str, HattenCorpus] = {c.name: c for c in COLLECTIONS if isinstance(c, HattenCorpus)}
MASTERSET_CORPORA: dict[str, MasterSetCorpus] = {
    c.name: c for c in COLLECTIONS if isinstance(c, MasterSetCorpus)
}


def published_metadata() -> dict[str, dict]:
    """The ir_datasets metadata of every dataset, from the collections' published counts:
    what ``scripts/make_metadata.py`` writes to ``metadata.json``."""
    return {i: entry for c in COLLECTIONS for i, entry in c.published_metadata().items()}


def by_name() -> dict[str, CorpusSource]:
    """Every corpus of :data:`COLLECTIONS` by short name, in order; an entry replaced in
    :data:`CORPORA` or :data:`MASTERSET_CORPORA` (as tests do) is the one found."""
    return {**{c.name: c for c in COLLECTIONS}, **CORPORA, **MASTERSET_CORPORA}


def _split_and_tier(dataset_id: str) -> tuple[MasterSetCorpus, str, str]:
    for corpus in MASTERSET_CORPORA.values():
        rest = dataset_id.removeprefix(f"{corpus.dataset_id}/").removesuffix("/in-pool")
        split, _, tier = rest.partition("/")
        if (
            dataset_id.startswith(f"{corpus.dataset_id}/")
            and split in SPLITS
            and tier in (*TIERS, MUST_CITE)
        ):
            return corpus, split, tier
    raise InputError(
        dataset_id, "not a MasterSet tier dataset (e.g. citeval/masterset-coreml-v1/test/core)"
    )


def out_of_pool_gold(dataset) -> pd.DataFrame:
    """How many gold papers each query of a MasterSet tier dataset has, and how many of them
    are outside the candidate pool (lost by ``.../in-pool``; never retrievable in the kept
    reading). One row per query paper of the split, in file order, indexed by ``query_id``:
    ``gold``, ``in_pool``, ``out_of_pool``. ``dataset``: an id or a loaded dataset."""
    import pandas as pd

    dataset_id = dataset if isinstance(dataset, str) else dataset.dataset_id()
    corpus, split, tier = _split_and_tier(dataset_id)
    notes = Notes(NOTES)
    pool = pool_ids(corpus, notes)
    rows = []
    for gold in iter_gold(corpus, split, notes):
        docs = [doc for doc, _ in tier_gold(gold, tier)]
        inside = sum(doc in pool for doc in docs)
        rows.append((gold.query_id, len(docs), inside, len(docs) - inside))
    frame = pd.DataFrame(rows, columns=["query_id", "gold", "in_pool", "out_of_pool"])
    return frame.set_index("query_id")
