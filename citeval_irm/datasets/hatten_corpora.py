"""The four classic corpora HAtten distributes (Gu et al. 2022): ACL-200, FullTextPeerRead,
RefSeer and arXiv. A new corpus in the HAtten layout is one entry here and its YAML entry in
``hatten.yaml``."""

from __future__ import annotations

from ..base.downloads import Checksum
from .formats.hatten import CONTEXTS, PAPERS, HattenCorpus, PublishedCounts

HATTEN_COMMIT = "e46cae55d8aca02a82cebaca6023dae42982bbf6"
_ACL200_URL = (
    f"https://github.com/nianlonggu/Local-Citation-Recommendation/raw/{HATTEN_COMMIT}/data/custom"
)

HATTEN_DRIVE_FOLDER = "https://drive.google.com/drive/folders/1QwQuJsBOGEESFTgl-7wWbqcig7vJNlQ2"
_FROM_DRIVE = (  # FullTextPeerRead, RefSeer and arXiv
    f"{{pretty_name}} is distributed only in the HAtten authors' Google Drive folder "
    f"{HATTEN_DRIVE_FOLDER} , which cannot be downloaded reliably by a program. Download "
    "the {pretty_name} folder from there and unpack it."
)

_DRIVE_CORPORA = (  # name, pretty name, id scheme, published docs, train, val, test
    ("fulltextpeerread", "FullTextPeerRead", "arxiv", PublishedCounts(4_837, 9_363, 492, 6_814)),
    ("refseer", "RefSeer", "none", PublishedCounts(624_957, 3_521_582, 124_911, 126_593)),
    ("arxiv", "arXiv", "arxiv", PublishedCounts(1_661_201, 2_988_030, 112_779, 104_401)),
)

CORPORA: tuple[HattenCorpus, ...] = (
    HattenCorpus(
        "acl-200",
        "ACL-200",
        "acl",
        PublishedCounts(docs=19_776, train=30_390, val=9_381, test=9_585),
        base_url=_ACL200_URL,
        checksums={
            "train.json": Checksum("md5", "52aa0fe63f33144df69183d105105d09"),
            "val.json": Checksum("md5", "74de17a641a1a7cb62afbd59e4dfaa0f"),
            "test.json": Checksum("md5", "e4b1fe894dcc4fd2f2124a3b1e846acb"),
            CONTEXTS: Checksum("git-blob-sha1", "37814e32d35568f28eed4fe626525cf8e09b3d9d"),
            PAPERS: Checksum("git-blob-sha1", "df9142d01c105f7d5ef51e9d5eee0dcd57cde507"),
        },
        manual_download=(
            "ACL-200 is downloaded from the HAtten repository, "
            f"{_ACL200_URL}/<file>; where this machine cannot reach it, download the files "
            "there by hand (on another machine)."
        ),
    ),
    *(
        HattenCorpus(name, pretty_name, scheme, counts, manual_download=_FROM_DRIVE)
        for name, pretty_name, scheme, counts in _DRIVE_CORPORA
    ),
)
