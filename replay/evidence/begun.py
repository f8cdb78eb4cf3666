"""Verifying a battle that has only begun: started, with no command yet (a table that has set up
and not played). ``verify_battle`` splits the log by command and expects at least one; such a
battle's records, chain and setup are checked here instead."""

from __future__ import annotations

from uuid import UUID

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, CommandIssued, SetupError
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.verify import Problem, Report, check_chain, read_all, verify_battle
from blowbyblow.replay.store.log import BattleStore


def verify_any(store: BattleStore, battle: UUID) -> Report:
    """``verify_battle``, and the same checks for a battle that has only begun: the engine's
    verification expects at least one command (it splits the log by command) and fails on a
    battle started live with none yet, so such a battle's records, chain and setup are checked
    here instead."""
    events, problem = read_all(store, battle)
    if problem is not None or any(isinstance(e.event, CommandIssued) for e in events):
        return verify_battle(store, battle)
    report = Report(battle=battle, events=len(events))
    if events and isinstance(events[0].event, BattleStarted):
        first = events[0].event
        report.label, report.ruleset = first.label, first.ruleset
        try:
            system = get_game_system(first.ruleset)
            system.validate_setup(first.setup)
            if system.resolve_rulings(first.rulings) != first.rulings:
                raise SetupError("the rulings recorded are not the full, valid set")
        except BlowByBlowError as e:
            report.problem = Problem(1, "setup", f"the setup is not valid: {e}")
            return report
    report.problem = check_chain(battle, events) or (
        None if len(events) == 1 else Problem(2, "sequence", "events before the first command")
    )
    return report


__all__ = ["verify_any"]
