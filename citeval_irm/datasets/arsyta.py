"""ArSyTa (Goyal et al., SymTax, Findings of ACL 2024): the HAtten layout under other file
names, with a context's section ``heading`` and a paper's arXiv ``categories``."""

from __future__ import annotations

from .formats.hatten import HattenCorpus, HattenLayout, PublishedCounts
from .records import ArsytaContext, ArsytaDoc, ArsytaQuery

ARSYTA_REPOSITORY = "https://huggingface.co/datasets/goyalkaraniit/ArSyTa"
ARSYTA_REVISION = "a7bdfcadf220960fb0fde144bdb2ddfaf3233b13"
ARSYTA_LAYOUT = HattenLayout(
    papers="papers_cat.json", contexts="contexts_new_head.json", split_pattern="{split}_data.json"
)
ARSYTA_LICENCE_NOTICE = (
    "ArSyTa (Goyal et al., SymTax, Findings of ACL 2024) is licensed CC BY-NC-ND 4.0 "
    "(https://creativecommons.org/licenses/by-nc-nd/4.0/): attribution, non-commercial use "
    "only, and no distribution of the files or of anything derived from them (converted "
    "copies, indexes). citeval-irm downloads them from "
    f"{ARSYTA_REPOSITORY} for your own use; by continuing you accept these terms."
)

ARSYTA = HattenCorpus(
    "arsyta",
    "ArSyTa",
    "arxiv",
    PublishedCounts(docs=474_341, train=8_030_837, val=124_188, test=124_189),
    base_url=f"{ARSYTA_REPOSITORY}/resolve/{ARSYTA_REVISION}",
    licence_notice=ARSYTA_LICENCE_NOTICE,
    manual_download=(
        f"ArSyTa is hosted on Hugging Face at {ARSYTA_REPOSITORY} (citeval-irm reads "
        f"revision {ARSYTA_REVISION}). Only test_data.json is confirmed under its "
        "name there; the other names are the ones the SymTax code reads, and the "
        "hosted files may be named or packed differently. Download the files from "
        "the dataset page (accepting its CC BY-NC-ND 4.0 licence), under these names."
    ),
    layout=ARSYTA_LAYOUT,
    doc_cls=ArsytaDoc,
    context_cls=ArsytaContext,
    query_cls=ArsytaQuery,
)
