"""MasterSet-CoreML-v1 (Ratul et al. 2026): 2025 query papers against a pool of earlier
papers, in the MasterSet Parquet layout (:mod:`.formats.masterset`)."""

from __future__ import annotations

from .formats.masterset import POOL_FILE, QUERY_FILE, MasterSetCorpus, MasterSetCounts

MASTERSET_REPOSITORY = "https://huggingface.co/datasets/trratul/MasterSet"
MASTERSET_REVISION = "main"  # the authors publish no commit to pin: see the sidecar record
MASTERSET_PATH = "data/train_eval_set/v1.0"

CORPORA: tuple[MasterSetCorpus, ...] = (
    MasterSetCorpus(
        "masterset-coreml-v1",
        "MasterSet-CoreML-v1",
        MasterSetCounts(pool=67_761, queries=7_028),
        base_url=f"{MASTERSET_REPOSITORY}/resolve/{MASTERSET_REVISION}/{MASTERSET_PATH}",
        manual_download=(
            f"{{pretty_name}} is hosted on Hugging Face at {MASTERSET_REPOSITORY} (files "
            f"{MASTERSET_PATH}/{POOL_FILE} and {MASTERSET_PATH}/{QUERY_FILE}). Download both."
        ),
    ),
)
