"""ArSyTa (Goyal et al., SymTax, Findings of ACL 2024): the HAtten layout on the Hugging Face
Hub, with a context's section ``heading`` and a paper's arXiv ``categories`` where the files
carry them.

Two layouts exist, and both are read:

- the hosted one, ``goyalkaraniit/ArSyTa`` on the Hub: ``contexts.json``, ``papers.json``,
  ``train_data.json``, ``val_data.json``, ``test_data.json`` (the repository's file listing,
  https://huggingface.co/datasets/goyalkaraniit/ArSyTa/tree/main);
- the SymTax code's, ``contexts_new_head.json`` and ``papers_cat.json`` with the same split
  files (github.com/goyalkaraniit/SymTax ``per.py`` lines 38-42, commit e3de5b2c), which
  reads ``ref_id``, ``heading`` (line 108) and ``categories`` (line 107).

Whether the hosted ``contexts.json`` and ``papers.json`` carry ``heading`` and
``categories`` could not be checked offline: when a file carries none, the facet is reported
unavailable (a warning when the file is read) and the field reads empty.
"""

from __future__ import annotations

from .formats.hatten import HattenCorpus, HattenLayout, PublishedCounts
from .hub import HubRepo
from .records import ArsytaContext, ArsytaDoc, ArsytaQuery

ARSYTA_REVISION = "a7bdfcadf220960fb0fde144bdb2ddfaf3233b13"
ARSYTA_HUB = HubRepo(
    "goyalkaraniit/ArSyTa",
    ARSYTA_REVISION,
    evidence=(
        "named by the SymTax README (github.com/goyalkaraniit/SymTax, README.md line 2, "
        "commit e3de5b2c9f0ee3275cc4556cf525ca985f1415cc); test_data.json seen at this "
        "revision on huggingface.co/datasets/goyalkaraniit/ArSyTa/blob/a7bdfca.../test_data.json"
    ),
)
ARSYTA_REPOSITORY = f"https://huggingface.co/datasets/{ARSYTA_HUB.repo_id}"
ARSYTA_LAYOUT = HattenLayout(
    papers="papers.json", contexts="contexts.json", split_pattern="{split}_data.json"
)
SYMTAX_NAMES = {"contexts.json": "contexts_new_head.json", "papers.json": "papers_cat.json"}
"""The names the SymTax code gives the hosted files (a folder may hold either)."""

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
    hub=ARSYTA_HUB,
    licence_notice=ARSYTA_LICENCE_NOTICE,
    manual_download=(
        f"ArSyTa is hosted on Hugging Face at {ARSYTA_REPOSITORY} (citeval-irm reads "
        f"revision {ARSYTA_REVISION}; set HF_TOKEN if the dataset asks you to log in, "
        "HF_ENDPOINT for a mirror). By hand: download contexts.json, papers.json and the "
        "three split files from its Files page (accepting its CC BY-NC-ND 4.0 licence); "
        "the SymTax code's names contexts_new_head.json and papers_cat.json are read too."
    ),
    layout=ARSYTA_LAYOUT,
    aliases=SYMTAX_NAMES,
    doc_cls=ArsytaDoc,
    context_cls=ArsytaContext,
    query_cls=ArsytaQuery,
)
