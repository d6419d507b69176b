"""Write ``citeval_irm/datasets/metadata.json`` from the collections' published counts.

The counts live once, in the collection modules (``PublishedCounts``, ``MasterSetCounts``);
ir_datasets reads metadata from a JSON file, so that file is generated from them:

    python scripts/make_metadata.py          # rewrites citeval_irm/datasets/metadata.json
    python scripts/make_metadata.py --check  # exit 1 if the shipped file differs
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
METADATA = REPO / "citeval_irm" / "datasets" / "metadata.json"


def metadata_text() -> str:
    """The text ``metadata.json`` must hold."""
    from citeval_irm.datasets.catalogue import published_metadata

    return json.dumps(published_metadata(), indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    wanted = metadata_text()
    if args.check:
        if METADATA.is_file() and METADATA.read_text("utf-8") == wanted:
            return 0
        print(
            f"{METADATA} differs from the collections: run scripts/make_metadata.py",
            file=sys.stderr,
        )
        return 1
    METADATA.write_text(wanted, encoding="utf-8")
    print(f"wrote {METADATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
