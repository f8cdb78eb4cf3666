"""Where the browser tests put their screenshots.

The images in docs/images are taken by the tests, but a plain test run must not rewrite tracked
files: screenshots go to a scratch folder unless BXB_DOC_IMAGES=1 asks for the docs' own folder
(`BXB_DOC_IMAGES=1 python -m pytest tests/web tests/odds` refreshes the docs' images)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

DOC_IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"


def images_dir() -> Path:
    if os.environ.get("BXB_DOC_IMAGES") == "1":
        folder = DOC_IMAGES
    else:
        folder = Path(tempfile.gettempdir()) / f"bxb-screenshots-{os.getuid()}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


IMAGES = images_dir()
