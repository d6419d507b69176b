"""MasterSet-CoreML-v1 (Ratul et al. 2026): 2025 query papers against a pool of earlier
papers, in the MasterSet Parquet layout (:mod:`.formats.masterset`)."""

from __future__ import annotations

from .formats.masterset import (
    MASTERSET_PATH,
    MASTERSET_REPOSITORY,
    MASTERSET_REVISION,
    MasterSetCorpus,
    MasterSetCounts,
)

CORPORA: tuple[MasterSetCorpus, ...] = (
    MasterSetCorpus(
        "masterset-coreml-v1",
        "MasterSet-CoreML-v1",
        MasterSetCounts(pool=67_761, queries=7_028),
        base_url=f"{MASTERSET_REPOSITORY}/resolve/{MASTERSET_REVISION}/{MASTERSET_PATH}",
    ),
)
