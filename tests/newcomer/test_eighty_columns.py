"""At 80 columns (COLUMNS=80, or a pipe with no COLUMNS) no line of `bxb demo`, `bxb log`,
`bxb rulesets`, `bxb battles`, `bxb at`, `bxb whatif` or `bxb diff` is wider, and everything
they said is still said: wrapping moves words to the next line, it drops none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.cells import cell_len

from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.engine.registry import game_systems, get_game_system
from blowbyblow.replay.store.log import BattleStore

from newcomer_helpers import environment, run


def words(text: str) -> str:
    return " ".join(text.split())


def widest(output: str) -> int:
    return max(cell_len(line) for line in output.splitlines())


WHAT_IF = "coup-de-grace-effect=injury-dice"
# each with its exit code (diff: 1, the battles differ); DEMO and WHATIF stand for the first 8
# characters of the demo's battle id and of its what-if's, read from what bxb said (a battle's id
# is made from its start, ruleset version included, so a new version gives new ids)
COMMANDS = (
    (["demo"], 0),
    (["log", "DEMO"], 0),
    (["rulesets"], 0),
    (["battles"], 0),
    (["at", "50", "DEMO"], 0),
    (["whatif", "DEMO", "--ruling", WHAT_IF, "--save"], 0),
    (["diff", "DEMO", "WHATIF"], 1),
)
BATTLE_ID = {
    "demo": re.compile(r"battle ([0-9a-f]{8})-[0-9a-f-]{27} "),
    "whatif": re.compile(r"saved as battle ([0-9a-f]{8})-"),
}


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Each command's output, through the console script with standard output a pipe: once with
    COLUMNS=80, once with no COLUMNS (80 assumed); both must be the same."""
    folder = tmp_path_factory.mktemp("eighty")
    outputs: dict[str, str] = {}
    for columns in ("80", None):
        db = str(folder / f"{columns}.sqlite")  # a store each: the same battle, the same output
        env = environment(COLUMNS=columns, BXB_DB=db)
        ids: dict[str, str] = {}
        for command, code in COMMANDS:
            done = run(*(ids.get(word, word) for word in command), env=env)
            assert done.returncode == code, done.stderr
            name = command[0]
            if name in BATTLE_ID:
                found = BATTLE_ID[name].search(words(done.stdout))
                assert found, done.stdout
                ids[name.upper()] = found.group(1)
            said = done.stdout.replace(db, "STORE")
            assert outputs.setdefault(name, said) == said, f"{name}: no COLUMNS is not 80"
    outputs["db"] = db
    outputs["DEMO"] = ids["DEMO"]
    outputs["demo"] = outputs["demo"].replace("STORE", db)
    return outputs


@pytest.mark.parametrize("command", [command[0] for command, _ in COMMANDS])
def test_no_line_is_wider_than_80(shown: dict[str, str], command: str) -> None:
    assert widest(shown[command]) <= 80
    assert widest(shown[command]) > 70  # wrapped near the edge, not cut short


def test_log_and_demo_say_every_event_in_full(shown: dict[str, str]) -> None:
    store = BattleStore(shown["db"])
    battle = store.battles()[0].battle
    events = store.read(battle)
    system = get_game_system("necromunda-2023")
    for output in (shown["log"], shown["demo"]):
        said = words(output)
        for logged in events:
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
    for b in store.battles()[:1]:  # (the what-if's battle was saved after `bxb battles` ran)
        assert f"{b.battle} started verified {b.ruleset}" in said
        assert f"{b.version} events, 2 played, 0 voided, seeded dice: {words(b.label)}" in said
    wide = run("battles", env=environment(COLUMNS="200", BXB_DB=shown["db"])).stdout
    assert len(wide.splitlines()) == len(store.battles())


def test_a_wide_terminal_gets_long_lines(tmp_path: Path, shown: dict[str, str]) -> None:
    wide = run("log", shown["DEMO"], env=environment(COLUMNS="200", BXB_DB=shown["db"])).stdout
    assert 80 < widest(wide) <= 200


def test_at_whatif_and_diff_say_every_event_and_state_in_full(shown: dict[str, str]) -> None:
    store = BattleStore(shown["db"])
    original, what_if = (b.battle for b in store.battles())
    system = get_game_system("necromunda-2023")
    events = store.read(original)
    at = store.state_at(original, 50)
    assert words(narrate(system, events[49].event)) in words(shown["at"])
    assert words(system.describe_state(at.state)) in words(shown["at"])
    other = store.read(what_if)
    first = next(
        n
        for n, (a, b) in enumerate(zip(events[1:], other[1:], strict=False), 2)
        if a.data != b.data
    )
    for output in (shown["whatif"], shown["diff"]):
        said = words(output)
        assert words(narrate(system, events[first - 1].event)) in said
        assert words(narrate(system, other[first - 1].event)) in said
    end = words(system.describe_state(store.state_at(what_if).state))
    assert end in words(shown["whatif"])


def test_bxb_play_is_wrapped_at_80_columns_and_drops_no_word(tmp_path: Path) -> None:
    """`bxb play` at the table (standard input a pipe: plain lines): the setup's actions
    narrated, the state, the commands offered, one played: no line wider than 80, and every
    word of the narration still said."""
    import subprocess

    from newcomer_helpers import BXB

    scenario = Path(__file__).parents[2] / "cli/scenarios/necromunda-2023.toml"
    db = tmp_path / "p.sqlite"
    done = subprocess.run(
        [BXB, "--db", str(db), "play", str(scenario), "--dice", "seed:7"],
        input="state\noptions\n1\n\n\n\n\nquit\n",
        capture_output=True,
        text=True,
        env=environment(COLUMNS="80"),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert widest(done.stdout) <= 80, max(done.stdout.splitlines(), key=cell_len)
    store = BattleStore(db)
    [battle] = store.battles()
    system = get_game_system(battle.ruleset)
    said = words(done.stdout)
    for logged in store.read(battle.battle)[1:]:
        assert words(narrate(system, logged.event)) in said
