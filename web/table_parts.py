"""The table page's parts after its own command (issue 25): the answer to a command the page
wrote carries them, rendered by the templates the page itself is made of
(``web/templates/_table_*.html``), and the page puts them in place instead of loading itself
again (a page's load read the whole battle, its log, state, options and receipt, and opened
its live stream again: the costliest request a table made)."""

from __future__ import annotations

from typing import Any

from litestar.plugins.jinja import JinjaTemplateEngine

from blowbyblow.web.schemas import LegalOptions, PlayResult, TableParts


def table_parts(engine: Any, result: PlayResult, view: Any) -> TableParts:
    """The parts a command written changes: ``result`` (a ``played`` answer, with its next
    options and receipt) and ``view``, the game's view of the state after it."""
    assert isinstance(engine, JinjaTemplateEngine)
    legal = result.next or LegalOptions(battle="", version=result.version, options=[])
    last = result.events

    def render(name: str, **context: Any) -> str:
        return engine.get_template(name).render(**context)

    return TableParts(
        last=render("_table_last.html", last=last, last_row=last[-1] if last else None),
        options=render("_table_options.html", legal=legal),
        void=render("_table_void.html", battle={"last_command": _command(result)}),
        receipt=render("_table_receipt.html", receipt=result.receipt),
        state=render("_table_state.html", view=view),
    )


def _command(result: PlayResult) -> int:
    issued = [r.command for r in result.events if r.type == "CommandIssued"]
    return issued[0] if issued else 0


__all__ = ["table_parts"]
