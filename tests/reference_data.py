"""Where the real reference data is (``../shared/data`` beside the repository).

Locally a missing folder skips the tests that need it; under CI (``CI`` set) it is a
failure, so a broken layout can never turn the validation tests into silent skips.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("CITEVAL_SHARED_DATA", REPO.parent / "shared" / "data"))


def require(path: Path) -> Path:
    """``path`` if it exists; otherwise skip the test (fail it under CI)."""
    if not path.exists():
        message = f"reference data not found: {path} (expected ../shared/data beside the repo)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path
