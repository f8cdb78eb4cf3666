"""Rich's console for standard output, ending ``bxb`` as every command ends when the output's
reader goes (`bxb log | head`)."""

from __future__ import annotations

from rich.console import Console

from blowbyblow.cli import end_if_reader_gone
from blowbyblow.cli.made import discard_made_stores


class PipedConsole(Console):
    """Rich's ``Console`` whose reader gone ends bxb as a Unix tool ends (killed by SIGPIPE, as
    `git log | head`: ``end_if_reader_gone``), where Rich's own ``on_broken_pipe`` exits 1."""

    def on_broken_pipe(self) -> None:
        end_if_reader_gone(BrokenPipeError(), discard_made_stores)
        super().on_broken_pipe()


__all__ = ["PipedConsole"]
