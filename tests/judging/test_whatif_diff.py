"""What-if re-runs under other rulings never touch the original; diff finds the divergence."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import BattleStarted
from blowbyblow.replay.battles.record import save_events
from blowbyblow.replay.battles.whatif import WhatIfError, parse_rulings, what_if
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.export import export_battle
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore

from bxbtest import RULESET_IDS, record_demo

runner = CliRunner()


def fingerprint(store: BattleStore, battle: object) -> str:
    return hashlib.sha256(export_battle(store, battle)).hexdigest()  # type: ignore[arg-type]


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_alternative_ruling_leaves_the_original_byte_identical(ruleset_id: str) -> None:
    store = BattleStore(":memory:")
    rec = record_demo(store, ruleset_id)
    before = fingerprint(store, rec.battle)
    same = what_if(store.read(rec.battle), {})
    assert same.divergence is None and not same.stopped
    for ruling in get_game_system(ruleset_id).rulings:
        for choice in ruling.choices:
            if choice == rec.events[0].event.rulings[ruling.name]:  # type: ignore[attr-defined]
                continue
            wi = what_if(store.read(rec.battle), {ruling.name: choice})
            assert wi.alternative[0].rulings[ruling.name] == choice  # type: ignore[attr-defined]
            if wi.divergence is not None:
                assert wi.divergence > 1
    assert fingerprint(store, rec.battle) == before


def test_a_changed_ruling_diverges_and_can_be_saved_naming_its_origin(tmp_path: Path) -> None:
    """Across every game system's demo, find rulings that change what happens; each such
    what-if saved as a battle verifies and names its origin."""
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    diverged = 0
    for ruleset_id in RULESET_IDS:
        rec = record_demo(store, ruleset_id)
        before = fingerprint(store, rec.battle)
        for ruling in get_game_system(ruleset_id).rulings:
            for choice in ruling.choices:
                wi = what_if(store.read(rec.battle), {ruling.name: choice})
                if wi.divergence is None or wi.stopped:
                    continue
                diverged += 1
                saved = save_events(store, wi.ruleset, wi.alternative)
                started = saved.events[0].event
                assert isinstance(started, BattleStarted) and started.origin == str(rec.battle)
                assert verify_battle(store, saved.battle).ok
                break
        assert fingerprint(store, rec.battle) == before
    assert diverged >= 1


def test_whatif_and_diff_on_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    found = None
    for ruleset_id in RULESET_IDS:
        rec = record_demo(store, ruleset_id)
        for ruling in get_game_system(ruleset_id).rulings:
            for choice in ruling.choices:
                wi = what_if(store.read(rec.battle), {ruling.name: choice})
                if wi.divergence is not None and not wi.stopped:
                    found = (rec.battle, ruling.name, choice, wi.divergence)
                    break
            if found:
                break
        if found:
            break
    assert found is not None
    battle, name, choice, divergence = found
    before = fingerprint(store, battle)
    args = ["--db", str(db), "--log-level", "warning"]
    out = runner.invoke(
        app, [*args, "whatif", str(battle), "--ruling", f"{name}={choice}", "--save"]
    )
    assert out.exit_code == 0, out.output
    assert f"first divergence at position {divergence}" in out.output
    assert "state at the end, what-if:" in out.output
    assert fingerprint(BattleStore(db), battle) == before
    new = out.output.strip().splitlines()[-1].split()[3]
    diff = runner.invoke(app, [*args, "diff", str(battle), new])
    assert diff.exit_code == 1
    # the starts are compared apart (the ruling, the label), then play: the first divergent
    # rule step, where the what-if found it, not position 1
    assert f"ruling {name}: " in diff.output
    assert f"play: first divergence at position {divergence} " in diff.output
    same = runner.invoke(app, [*args, "diff", str(battle), str(battle)])
    assert same.exit_code == 0 and "play: identical" in same.output


def test_bad_whatif_requests_are_refused_clearly() -> None:
    store = BattleStore(":memory:")
    rec = record_demo(store, RULESET_IDS[0])
    with pytest.raises(WhatIfError, match="NAME=VALUE"):
        parse_rulings(["novalue"])
    with pytest.raises(Exception, match="has no ruling 'no-such-ruling'"):
        what_if(store.read(rec.battle), {"no-such-ruling": "x"})


def test_whatif_under_another_version_of_the_same_game() -> None:
    """The 2023 demo re-run under the rules before 2023: same dice by key; the rolls only the
    older rules make (pistols' Firepower dice) are drawn from the battle's seed."""
    store = BattleStore(":memory:")
    rec = record_demo(store, "necromunda-2023")
    before = fingerprint(store, rec.battle)
    wi = what_if(store.read(rec.battle), {}, "necromunda-legacy")
    assert wi.ruleset.id == "necromunda-legacy" and not wi.stopped
    assert wi.divergence is not None
    assert any("firepower" in key for key in wi.fresh_dice)
    saved = save_events(store, wi.ruleset, wi.alternative)
    assert verify_battle(store, saved.battle).ok
    assert fingerprint(store, rec.battle) == before
    with pytest.raises(WhatIfError, match="same game"):
        what_if(store.read(rec.battle), {}, "asl")


def test_a_whatif_of_physical_dice_stops_at_the_die_never_rolled_and_finds_the_real_divergence(
    tmp_path: Path,
) -> None:
    """A battle of physical dice re-run under another Coup de Grace effect: the new rules roll
    an injury die the players never rolled. The re-run keeps the steps it took in that command,
    so the divergence is the Coup de Grace itself (not the command's start), says which die it
    needs, and goes on when that die is given (``--die``)."""
    import msgspec

    from blowbyblow.domain.core import CommandIssued, DiceRolled
    from blowbyblow.replay.battles.record import record
    from blowbyblow.replay.engine.script import play

    demo = get_game_system("necromunda-2023").demo()
    rolled = [v for e in play(demo).events if isinstance(e, DiceRolled) for v in e.values]
    store = BattleStore(tmp_path / "b.sqlite")
    physical = msgspec.structs.replace(demo, seed=None, dice=rolled, label="typed at the table")
    rec = record(store, physical, quiet=True)
    ruling = {"coup-de-grace-effect": "injury-dice"}
    wi = what_if(store.read(rec.battle), ruling)
    assert wi.needs_die == ["c2/coup-de-grace/injury"]
    assert "command 2 needs a die that was never rolled" in wi.stopped
    assert "--die" in wi.stopped
    starts = [n for n, e in enumerate(wi.original, start=1) if isinstance(e, CommandIssued)]
    assert wi.divergence is not None and wi.divergence > starts[-1] + 1
    assert type(wi.original[wi.divergence - 1]).__name__ == "CoupDeGrace"
    assert wi.shown[1 : wi.divergence - 1] == wi.original[1 : wi.divergence - 1]
    assert not any(isinstance(e, CommandIssued) and e.index == 2 for e in wi.alternative)
    given = what_if(store.read(rec.battle), ruling, dice={"c2/coup-de-grace/injury": (3,)})
    assert not given.stopped and given.needs_die == []
    injury = [e for e in given.alternative if isinstance(e, DiceRolled) and "coup" in e.key]
    assert [(e.values, e.source) for e in injury] == [((3,), "imported")]
    code = runner.invoke(
        app,
        [
            "--db",
            str(tmp_path / "b.sqlite"),
            "whatif",
            "--ruling",
            "coup-de-grace-effect=injury-dice",
            "--die",
            "c2/coup-de-grace/injury=3",
        ],
    )
    assert code.exit_code == 0, code.output
    assert "stopped" not in code.output
    bad = runner.invoke(app, ["--db", str(tmp_path / "b.sqlite"), "whatif", "--die", "c2=x"])
    assert bad.exit_code == 2 and "--die: expected KEY=VALUES" in bad.output
