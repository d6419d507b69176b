"""MasterSet-CoreML-v1 (Ratul et al. 2026): 2025 query papers against a pool of earlier
papers, in the MasterSet Parquet layout (:mod:`.formats.masterset`).

Where the authors host v1.0 could not be confirmed: the paper's toolkit
(github.com/NIU-Graph-Intelligence/masterset-toolkit, README_MASTERSET_TOOLKIT.md lines
23-27) names the files ``train_eval_set/v1.0/{train,eval}.parquet`` but no repository, and
no page or code found names ``trratul/MasterSet``. The host below is therefore marked not
verified in every output, and read at the branch ``main`` (no commit to pin is published).
The authors' later release, CoreML-168K, is hosted at ``trratul/CiteRoute``
(``train_eval_set/v7.0/{train,eval,candidate_pool}_v7.0.parquet``, named by
github.com/NIU-Graph-Intelligence/CiteRoute README.md, commit f1296ae3); it has its own
candidate-pool file and is not registered here (see ``masterset.yaml``).
"""

from __future__ import annotations

from .formats.masterset import POOL_FILE, QUERY_FILE, MasterSetCorpus, MasterSetCounts
from .hub import HubRepo

MASTERSET_HUB = HubRepo(
    "trratul/MasterSet",
    "main",  # the authors publish no commit to pin: each download is recorded instead
    folder="data/train_eval_set/v1.0",
    verified=False,
    evidence=(
        "no page or code of the authors names this repository; the folder and file names "
        "are those of masterset-toolkit README_MASTERSET_TOOLKIT.md lines 23-27"
    ),
)
MASTERSET_REPOSITORY = f"https://huggingface.co/datasets/{MASTERSET_HUB.repo_id}"

CORPORA: tuple[MasterSetCorpus, ...] = (
    MasterSetCorpus(
        "masterset-coreml-v1",
        "MasterSet-CoreML-v1",
        MasterSetCounts(pool=67_761, queries=7_028),
        hub=MASTERSET_HUB,
        manual_download=(
            f"{{pretty_name}} is looked for on Hugging Face at {MASTERSET_REPOSITORY} (host "
            f"not verified: no page of the authors names it), files "
            f"{MASTERSET_HUB.folder}/{POOL_FILE} and {MASTERSET_HUB.folder}/{QUERY_FILE}. "
            "If the authors sent you the files, use those."
        ),
    ),
)
