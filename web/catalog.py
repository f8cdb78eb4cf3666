"""The game systems this server plays, as the API lists them: each one's rulings (with
citations), setup and command JSON Schemas."""

from __future__ import annotations

from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.web.schemas import RulesetInfo, RulingInfo


def ruling_infos(system: AnyGameSystem) -> list[RulingInfo]:
    """Every ruling of ``system`` (the rulesets list and the setup form show them)."""
    return [
        RulingInfo(
            name=r.name,
            default=r.default,
            choices=list(r.choices),
            summary=r.summary,
            citation=system.rulebook.cite(r.rule),
            note=r.note,
        )
        for r in system.rulings
    ]


def rulesets() -> list[RulesetInfo]:
    return [
        RulesetInfo(
            id=s.id,
            title=s.title,
            game=s.game,
            version=s.version,
            rulebook=s.rulebook.title,
            rulings=ruling_infos(s),
            setup_schema=s.setup_schema(),
            command_schema=s.command_schema(),
        )
        for s in game_systems().values()
    ]


__all__ = ["rulesets"]
