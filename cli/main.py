"""``bxb``: the command line. It holds no rules: it reads scenarios, opens the store, and prints
what replay/ computes. Each group of commands is a module of its own; importing it registers
its commands on the one Typer ``app``."""

from __future__ import annotations

import sys

from blowbyblow.cli import (  # noqa: F401 - importing a module registers its commands
    battles,
    evidence,
    judging,
    newcomer,
    odds,
    play,
    serve,
)
from blowbyblow.cli.app import app


def main() -> None:
    try:
        app()
    except BrokenPipeError:  # `bxb log | head`
        sys.stderr.close()


__all__ = ["app", "main"]


if __name__ == "__main__":
    main()
