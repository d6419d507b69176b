"""``citeval/demo``: a generated corpus in the HAtten layout, shipped in ``demo/`` (written by
``scripts/make_demo.py``), so citeval-irm can be tried without a download."""

from __future__ import annotations

from .formats.hatten import HattenCorpus, PublishedCounts

DEMO = HattenCorpus(
    "demo",
    "citeval demo (generated)",
    "acl",
    PublishedCounts(docs=420, train=648, val=155, test=163),
    packaged="demo",
    documentation="demo.yaml",
)
