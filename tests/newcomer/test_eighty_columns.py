"""At 80 columns (COLUMNS=80, or a pipe with no COLUMNS) no line of `bxb demo`, `bxb log`,
`bxb rulesets` or `bxb battles` is wider, and everything they said is still said: wrapping moves
words to the next line, it drops none."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from blowbyblow.replay.narrate import narrate
from blowbyblow.replay.registry import game_systems, get_game_system
from blowbyblow.replay.store import BattleStore

from newcomer_helpers import environment, run


def words(text: str) -> str:
    return " ".join(text.split())


def widest(output: str) -> int:
    return max(cell_len(line) for line in output.splitlines())


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Each command's output, through the console script with standard output a pipe: once with
    COLUMNS=80, once with no COLUMNS (80 assumed); both must be the same."""
    folder = tmp_path_factory.mktemp("eighty")
    outputs: dict[str, str] = {}
    for columns in ("80", None):
        db = str(folder / f"{columns}.sqlite")  # a store each: the same battle, the same output
        env = environment(COLUMNS=columns, BXB_DB=db)
        for command in (["demo"], ["log", "1"], ["rulesets"], ["battles"]):
            done = run(*command, env=env)
            assert done.returncode == 0, done.stderr
            name = command[0]
            said = done.stdout.replace(db, "STORE")
            assert outputs.setdefault(name, said) == said, f"{name}: no COLUMNS is not 80"
    outputs["db"] = db
    outputs["demo"] = outputs["demo"].replace("STORE", db)
    return outputs


@pytest.mark.parametrize("command", ["demo", "log", "rulesets", "battles"])
def test_no_line_is_wider_than_80(shown: dict[str, str], command: str) -> None:
    assert widest(shown[command]) <= 80
    assert widest(shown[command]) > 70  # wrapped near the edge, not cut short


def test_log_and_demo_say_every_event_in_full(shown: dict[str, str]) -> None:
    store = BattleStore(shown["db"])
    battle = store.battles()[0].battle
    events = store.read(battle)
    system = get_game_system("necromunda-2023")
    # (the demo lists the battle's rulings in the game system's order, the log as stored: the
    # first event is compared in the log only)
    for output, start in ((shown["log"], 0), (shown["demo"], 1)):
        said = words(output)
        for logged in events[start:]:
            assert f"{logged.position} {words(narrate(system, logged.event))}" in said
    assert f"verify OK: {battle}" in words(shown["demo"])


def test_rulesets_say_every_ruling(shown: dict[str, str]) -> None:
    said = words(shown["rulesets"])
    for system in game_systems().values():
        assert f"{system.id} {system.version}: {words(system.title)}" in said
        for r in system.rulings:
            assert f"{r.name} = {r.default} [{' | '.join(r.choices)}] {words(r.summary)}" in said
            if r.note:
                assert f"why a ruling: {words(r.note)}" in said


def test_battles_say_each_battle_and_fit_one_line_when_wide(shown: dict[str, str]) -> None:
    store = BattleStore(shown["db"])
    said = words(shown["battles"])
    for b in store.battles():
        assert f"{b.battle} started verified {b.ruleset}" in said
        assert f"{b.version} events, 2 played, 0 voided, seeded dice: {words(b.label)}" in said
    wide = run("battles", env=environment(COLUMNS="200", BXB_DB=shown["db"])).stdout
    assert len(wide.splitlines()) == len(store.battles())


def test_a_wide_terminal_gets_long_lines(tmp_path: Path, shown: dict[str, str]) -> None:
    wide = run("log", "1", env=environment(COLUMNS="200", BXB_DB=shown["db"])).stdout
    assert 80 < widest(wide) <= 200
