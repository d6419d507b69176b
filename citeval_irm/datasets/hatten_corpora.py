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
    HattenCorpus(
        "fulltextpeerread",
        "FullTextPeerRead",
        "arxiv",
        PublishedCounts(docs=4_837, train=9_363, val=492, test=6_814),
        manual_download=_FROM_DRIVE,
    ),
    HattenCorpus(
        "refseer",
        "RefSeer",
        "none",
        PublishedCounts(docs=624_957, train=3_521_582, val=124_911, test=126_593),
        manual_download=_FROM_DRIVE,
    ),
    HattenCorpus(
        "arxiv",
        "arXiv",
        "arxiv",
        PublishedCounts(docs=1_661_201, train=2_988_030, val=112_779, test=104_401),
        manual_download=_FROM_DRIVE,
    ),
)
