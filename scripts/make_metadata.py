"""Write ``citeval_irm/datasets/metadata.json`` and ``catalogue.json`` from the collections.

The counts live once, in the collection modules (``PublishedCounts``, ``MasterSetCounts``);
ir_datasets reads metadata from a JSON file, so that file is generated from them. The
corpora's names and files live once, in ``datasets/catalogue.COLLECTIONS``; the command
line's help lists them without importing ir_datasets, from ``catalogue.json``:

    python scripts/make_metadata.py          # rewrites both files
    python scripts/make_metadata.py --check  # exit 1 if a shipped file differs
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO / "citeval_irm" / "datasets"
METADATA = DATASETS / "metadata.json"
CATALOGUE = DATASETS / "catalogue.json"


def generated() -> dict[Path, str]:
    """The text each generated file must hold."""
    from citeval_irm.datasets.catalogue import names_index, published_metadata

    return {
        METADATA: json.dumps(published_metadata(), indent=1) + "\n",
        CATALOGUE: json.dumps(names_index(), indent=1) + "\n",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    files = generated()
    if args.check:
        stale = [p for p, text in files.items() if not p.is_file() or p.read_text("utf-8") != text]
        for path in stale:
            print(f"{path} differs from the collections: run scripts/make_metadata.py",
                  file=sys.stderr)  # fmt: skip
        return 1 if stale else 0
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
