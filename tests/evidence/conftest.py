"""Make the evidence test helpers importable whatever pytest's import mode."""

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

# The witnesses' fixtures (processes on loopback), for every test module here.
from witness_helpers import organiser, witnesses  # noqa: E402, F401
