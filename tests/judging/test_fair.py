"""Fair dice: the seed escrowed to the judge and committed before the sides' contributions, the
dice drawn from all of them, every step written before the next; sealing opens the escrow with
the judge's key alone; tampering with the escrow, a contribution or a die's label is caught."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import BattleStarted, DiceRolled, DiceSpec, Event
from blowbyblow.domain.judging import BattleSealed, ContributionGiven, SeedEscrowed
from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.battles.fair_start import contribute, start_fair
from blowbyblow.replay.battles.record import record, seal_battle
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.engine.dice import (
    FAIR_ALGORITHM,
    FairDice,
    ScriptedChoices,
    SeededDice,
    fair_dice_seed,
)
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.evidence.fairness import (
    FairBattle,
    FairnessError,
    FairTerms,
    StartedAndKept,
    open_fair,
    start_length,
)
from blowbyblow.replay.evidence.seals import (
    JudgingError,
    KeyFiles,
    commitment,
    escrow_key,
    escrow_public_text,
    escrow_seed,
    load_private_key,
    new_keys,
    open_escrow,
)
from blowbyblow.replay.evidence.verify import verify_battle, verify_events
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, battle_id_for, chain

from bxbtest import tamper

runner = CliRunner()
SIDES = {"goliath": "chainaxe", "escher": "wych"}


def demo() -> AnyScenario:
    """The Necromunda 2023 demo's first command, a charge: legal whatever the dice (what may
    follow it depends on them)."""
    sc = get_game_system("necromunda-2023").demo()
    return msgspec.structs.replace(sc, commands=sc.commands[:1])


@pytest.fixture
def judge(tmp_path: Path) -> KeyFiles:
    return new_keys(tmp_path / "judge")


def terms(judge: KeyFiles, contributions: Mapping[str, str] = SIDES, **more: Any) -> FairTerms:
    """The judge's escrow key; each side's value given once the commitment is shown (``ask``,
    called after the start is written), as the sides at the table give theirs."""
    given = dict(contributions)
    more.setdefault("ask", (lambda fair: given) if given else None)
    return FairTerms(judge_keys=[judge.escrow.read_text()], **more)


def events_of(store: BattleStore, battle: Any) -> list[Event]:
    return [e.event for e in store.read(battle)]


# --- the algorithm ----------------------------------------------------------------------------


def documented_fair_seed(seed: str, contributions: Mapping[str, str]) -> str:
    """docs/dice.md, bxb-fair-v2, written out again independently of replay/engine/dice.py."""

    def framed(text: str) -> bytes:
        return len(text.encode()).to_bytes(4, "big") + text.encode()

    m = b"bxb-fair-v2\x00" + framed(seed) + len(contributions).to_bytes(4, "big")
    for side in sorted(contributions, key=str.encode):
        m += framed(side) + framed(contributions[side])
    return hashlib.sha256(m).hexdigest()


def test_fair_dice_follow_the_documented_algorithm() -> None:
    for seed, given in [
        ("00ff", {"goliath": "chainaxe", "escher": "wych"}),
        ("s", {"Orks": "waaagh", "Ultramarines": "é 12"}),
        ("s", {"a": "bc"}),
        ("s", {"ab": "c"}),
    ]:
        assert fair_dice_seed(seed, given) == documented_fair_seed(seed, given)
        assert FairDice(seed, given).roll("c1/hit/0", 3, 6, "") == SeededDice(
            documented_fair_seed(seed, given)
        ).roll("c1/hit/0", 3, 6, "")
    # Lengths keep every input apart: moving a letter from a side's name to its value counts.
    assert fair_dice_seed("s", {"a": "bc"}) != fair_dice_seed("s", {"ab": "c"})


def test_every_die_changes_when_either_contribution_changes() -> None:
    """Dice of 2**32 sides, so that two draws agree by chance once in four billion: a die that
    did not change would be one the contribution does not reach."""
    seed, keys = "a1" * 32, [f"c{n}/roll/{n % 7}" for n in range(300)]
    base = FairDice(seed, SIDES)

    def dice(d: SeededDice) -> list[int]:
        return [d.roll(k, 2, 2**32, "")[0][i] for k in keys for i in (0, 1)]

    before = dice(base)
    for changed in (
        FairDice(seed, {**SIDES, "goliath": "chainaxe!"}),
        FairDice(seed, {**SIDES, "escher": "Wych"}),
        FairDice(seed, {"goliath": "wych", "escher": "chainaxe"}),  # the two values swapped
        FairDice("b2" * 32, SIDES),  # the table's seed
    ):
        after = dice(changed)
        assert all(a != b for a, b in zip(before, after, strict=True))
    # The order the contributions are given in does not matter.
    assert dice(FairDice(seed, dict(reversed(SIDES.items())))) == before


# --- starting a fair battle -------------------------------------------------------------------


def test_the_start_is_written_before_any_command_and_stays(tmp_path: Path, judge: KeyFiles) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    sc = demo()
    illegal = msgspec.structs.replace(sc.commands[0], attacker="nobody")
    bad = msgspec.structs.replace(sc, commands=[*sc.commands, illegal])
    assert len(sc.commands) == 1
    with pytest.raises(StartedAndKept, match="unknown charger 'nobody'") as caught:
        record(store, bad, quiet=True, fair=terms(judge))
    battle = caught.value.battle
    assert [b.battle for b in store.battles()] == [battle]
    kinds = [type(e).__name__ for e in events_of(store, battle)]
    assert kinds == ["BattleStarted", "SeedEscrowed", "ContributionGiven", "ContributionGiven"]
    report = verify_battle(store, battle)
    assert report.ok and any("no command yet" in n for n in report.notes), report
    # Nothing of the seed is left on this machine: the escrow in the store is its only copy.
    assert not (tmp_path / "b.seeds").exists()


def test_recording_the_same_table_twice_shows_two_battles(judge: KeyFiles) -> None:
    store = BattleStore(":memory:")
    first = record(store, demo(), quiet=True, fair=terms(judge))
    second = record(store, demo(), quiet=True, fair=terms(judge))
    assert first.battle != second.battle
    assert [b.battle for b in store.battles()] == [first.battle, second.battle]
    a, b = (r.events[0].event for r in (first, second))
    assert isinstance(a, BattleStarted) and isinstance(b, BattleStarted)
    assert a.dice.commitment != b.dice.commitment


def test_the_contributions_are_asked_for_after_the_commitment(judge: KeyFiles) -> None:
    store = BattleStore(":memory:")
    seen: list[tuple[str, tuple[str, ...], int]] = []

    def ask(fair: FairBattle) -> dict[str, str]:
        # The commitment and escrow are in the store already when the sides are asked.
        seen.append((fair.commitment, fair.missing, store.version(fair.battle)))
        return {"goliath": "chainaxe", "ESCHER": "wych"}  # a side may be named in any case

    fair = start_fair(store, demo(), terms(judge, ask=ask))
    commit, missing, version = seen[0]
    assert commit == fair.commitment and missing == ("goliath", "escher") and version == 2
    given = [e for e in events_of(store, fair.battle) if isinstance(e, ContributionGiven)]
    assert [(g.side, g.value) for g in given] == [("goliath", "chainaxe"), ("escher", "wych")]


def test_an_abandoned_start_stays_without_contributions(judge: KeyFiles) -> None:
    store = BattleStore(":memory:")

    def walk_away(fair: FairBattle) -> dict[str, str]:
        raise KeyboardInterrupt

    with pytest.raises(StartedAndKept, match="not given") as caught:
        record(store, demo(), quiet=True, fair=terms(judge, {}, ask=walk_away))
    kinds = [type(e).__name__ for e in events_of(store, caught.value.battle)]
    assert kinds == ["BattleStarted", "SeedEscrowed"]
    report = verify_battle(store, caught.value.battle)
    assert report.ok and any(
        "waiting for contributions from goliath, escher" in n for n in report.notes
    )


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"goliath": "chainaxe"}, "no contribution from escher"),
        ({**SIDES, "orlock": "x"}, "expected one of the sides goliath, escher"),
        ({"goliath": "chainaxe", "escher": "  "}, "contribution for escher: expected a word"),
        ({"goliath": "chain\naxe", "escher": "wych"}, "printable"),
        ({"goliath": "x" * 201, "escher": "wych"}, "1 to 200"),
    ],
)
def test_bad_contributions_are_refused_and_the_start_stays(
    judge: KeyFiles, given: dict[str, str], message: str
) -> None:
    """Asked once the start is written, a bad value leaves the start (commitment, escrow) and
    nothing of the values: starting again is another battle, there for the judge to see."""
    store = BattleStore(":memory:")
    with pytest.raises(StartedAndKept, match=message) as caught:
        record(store, demo(), quiet=True, fair=terms(judge, given))
    kinds = [type(e).__name__ for e in events_of(store, caught.value.battle)]
    assert kinds == ["BattleStarted", "SeedEscrowed"]


def test_a_sealing_key_is_not_taken_for_an_escrow_key(judge: KeyFiles) -> None:
    store = BattleStore(":memory:")
    with pytest.raises(JudgingError, match="that is a sealing key"):
        start_fair(store, demo(), FairTerms(judge_keys=[str(judge.public)]))
    assert store.battles() == []


# --- playing live: the API for `bxb play` and a tournament server ------------------------------


def test_a_live_fair_battle_is_resumed_and_its_contributions_given_later(
    tmp_path: Path, judge: KeyFiles
) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    sc = demo()
    fair = start_fair(store, msgspec.structs.replace(sc, commands=[]), terms(judge, {}))
    assert fair.missing == ("goliath", "escher")
    with pytest.raises(FairnessError, match="waiting for goliath, escher"):
        fair.dice()
    # The table keeps its own copy of the seed to resume: a private file, flushed to disk.
    kept = tmp_path / "b.seeds" / str(fair.battle)
    assert mode(kept) == 0o600 and mode(kept.parent) == 0o700

    contribute(store, fair.battle, {"escher": "wych"})  # each from their own device
    with pytest.raises(FairnessError, match="given twice"):
        contribute(store, fair.battle, {"escher": "again"})
    contribute(store, fair.battle, {"goliath": "chainaxe"})

    # Another process, another day: the table's copy of the seed, or the judge's key.
    again = BattleStore(db)
    dice = open_fair(again, fair.battle).dice()
    assert (
        dice.seed == open_fair(again, fair.battle, key=load_private_key(judge.private)).dice().seed
    )
    door = Battle(again)
    for command in sc.commands:
        door.play(fair.battle, command, dice=dice, choices=_defaults())
    with pytest.raises(FairnessError, match="before command 1"):
        contribute(again, fair.battle, {"orlock": "late"})

    seal_battle(again, fair.battle, load_private_key(judge.private))
    report = verify_battle(again, fair.battle)
    assert report.ok and report.dice_checked > 0, report
    # The dice are those of the revealed seed mixed with the contributions, as recorded.
    played = play(sc, dice=FairDice(_revealed(again, fair.battle), SIDES))
    rolled = [e for e in events_of(again, fair.battle) if isinstance(e, DiceRolled)]
    assert rolled == [e for e in played.events if isinstance(e, DiceRolled)]


def _defaults() -> ScriptedChoices:
    return ScriptedChoices({})


def _revealed(store: BattleStore, battle: Any) -> str:
    last = events_of(store, battle)[-1]
    assert isinstance(last, BattleSealed) and last.checkpoint.seed
    return last.checkpoint.seed


# --- the escrow and the seal ------------------------------------------------------------------


def test_only_the_judges_key_opens_the_escrow(tmp_path: Path, judge: KeyFiles) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record(store, demo(), quiet=True, fair=terms(judge))
    other = load_private_key(new_keys(tmp_path / "other")[0])
    with pytest.raises(JudgingError, match="not to your key"):
        seal_battle(store, rec.battle, other)
    first, escrow = events_of(store, rec.battle)[:2]
    assert isinstance(first, BattleStarted) and isinstance(escrow, SeedEscrowed)
    # Even pretending the box were addressed to the other key, it does not open with it.
    stolen = SeedEscrowed(
        algorithm=escrow.algorithm,
        boxes=tuple(
            msgspec.structs.replace(b, judge=escrow_public_text(escrow_key(other))[7:])
            for b in escrow.boxes
        ),
    )
    with pytest.raises(JudgingError, match="does not open with your key"):
        open_escrow(stolen, str(rec.battle), first.dice.commitment or "", other)
    assert verify_battle(store, rec.battle).ok  # refused seals wrote nothing
    assert not isinstance(events_of(store, rec.battle)[-1], BattleSealed)

    sealed = seal_battle(store, rec.battle, load_private_key(judge.private))
    assert isinstance(sealed.event, BattleSealed)
    assert commitment(sealed.event.checkpoint.seed or "") == first.dice.commitment
    report = verify_battle(store, rec.battle)
    assert report.ok and report.dice_checked == sum(
        isinstance(e, DiceRolled) for e in events_of(store, rec.battle)
    )


def test_the_store_alone_does_not_tell_the_seed(tmp_path: Path, judge: KeyFiles) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    rec = record(store, demo(), quiet=True, fair=terms(judge))
    del store
    before = b"".join(p.read_bytes() for p in sorted(tmp_path.glob("b.sqlite*")))
    seal_battle(BattleStore(db), rec.battle, load_private_key(judge.private))
    seed = _revealed(BattleStore(db), rec.battle)
    after = b"".join(p.read_bytes() for p in sorted(tmp_path.glob("b.sqlite*")))
    secrets = _forms(seed) + _forms(fair_dice_seed(seed, SIDES))
    assert not [s for s in secrets if s in before]
    assert seed.encode() in after  # the search finds the seed once the seal reveals it


def _forms(hex_text: str) -> list[bytes]:
    return [hex_text.encode(), hex_text.upper().encode(), bytes.fromhex(hex_text)]


# --- tampering --------------------------------------------------------------------------------


def _forge(
    store: BattleStore, position: int, change: Any
) -> tuple[BattleStore, UUID, list[LoggedEvent]]:
    """A copy of the store's one battle with the event at ``position`` changed and every hash
    made again, as someone who can write the database could do: the chain holds."""
    [info] = store.battles()
    events = store.read(info.battle)
    plain = [e.event for e in events]
    plain[position - 1] = change(plain[position - 1])
    forged = chain(info.battle, info.ruleset, None, plain, [e.recorded_at for e in events])
    copy = BattleStore(":memory:")
    copy.import_events(info.battle, forged)
    return copy, info.battle, forged


@pytest.fixture
def recorded(judge: KeyFiles) -> tuple[BattleStore, Ed25519PrivateKey]:
    store = BattleStore(":memory:")
    record(store, demo(), quiet=True, fair=terms(judge))
    return store, load_private_key(judge.private)


def test_a_changed_contribution_is_caught_by_the_seal(
    recorded: tuple[BattleStore, Ed25519PrivateKey],
) -> None:
    store, key = recorded
    copy, battle, _ = _forge(store, 3, lambda e: msgspec.structs.replace(e, value=e.value + "!"))
    assert verify_battle(copy, battle).ok  # before the seal nobody can tell...
    with pytest.raises(JudgingError, match=r"with the revealed seed .* seed gives"):
        seal_battle(copy, battle, key)  # ...but the judge, with the seed, can
    assert not isinstance(events_of(copy, battle)[-1], BattleSealed)


def test_a_changed_escrow_is_caught_by_the_seal(
    recorded: tuple[BattleStore, Ed25519PrivateKey],
) -> None:
    store, key = recorded
    [info] = store.battles()
    first = events_of(store, info.battle)[0]
    assert isinstance(first, BattleStarted)

    def flipped(e: SeedEscrowed) -> SeedEscrowed:
        box = e.boxes[0]
        sealed = box.sealed[:-2] + f"{int(box.sealed[-2:], 16) ^ 1:02x}"
        return msgspec.structs.replace(e, boxes=(msgspec.structs.replace(box, sealed=sealed),))

    copy, battle, _ = _forge(store, 2, flipped)
    with pytest.raises(JudgingError, match="does not open"):
        seal_battle(copy, battle, key)

    # Anyone can encrypt a seed of their own to the judge's public key: it opens, but it is not
    # the seed committed to at the start.
    own = escrow_public_text(escrow_key(key))[7:]
    replaced = escrow_seed("ab" * 32, str(battle), first.dice.commitment or "", [own])
    copy, battle, _ = _forge(store, 2, lambda e: replaced)
    with pytest.raises(JudgingError, match="does not match the commitment"):
        seal_battle(copy, battle, key)

    # A box made for another battle does not open in this one.
    copy, battle, _ = _forge(store, 2, lambda e: _escrow_of_another_battle(key))
    with pytest.raises(JudgingError, match="does not open"):
        seal_battle(copy, battle, key)


def _escrow_of_another_battle(key: Ed25519PrivateKey) -> SeedEscrowed:
    store = BattleStore(":memory:")
    own = escrow_public_text(escrow_key(key))
    fair = start_fair(store, demo(), FairTerms(judge_keys=[own], ask=lambda fair: SIDES))
    escrow = events_of(store, fair.battle)[1]
    assert isinstance(escrow, SeedEscrowed)
    return escrow


def test_a_fair_die_labelled_anything_but_seeded_is_refused(
    recorded: tuple[BattleStore, Ed25519PrivateKey],
) -> None:
    store, _ = recorded
    [info] = store.battles()
    position = next(
        n for n, e in enumerate(events_of(store, info.battle), 1) if isinstance(e, DiceRolled)
    )
    copy, battle, _ = _forge(
        store, position, lambda e: msgspec.structs.replace(e, source="physical")
    )
    report = verify_battle(copy, battle)
    assert not report.ok and report.problem is not None
    assert (report.problem.kind, report.problem.position) == ("dice", position)
    assert "fair battle" in report.problem.message and "seed" in report.problem.message


@pytest.mark.parametrize(
    ("position", "change", "message"),
    [
        (2, lambda e: ContributionGiven(side="goliath", value="x"), "seed must be escrowed"),
        (4, lambda e: ContributionGiven(side="goliath", value="x"), "second contribution"),
        (4, lambda e: ContributionGiven(side="orlock", value="x"), "one of the sides"),
    ],
)
def test_a_fair_start_out_of_shape_is_refused(
    recorded: tuple[BattleStore, Ed25519PrivateKey], position: int, change: Any, message: str
) -> None:
    store, _ = recorded
    copy, battle, _ = _forge(store, position, change)
    report = verify_battle(copy, battle)
    assert not report.ok and report.problem is not None and message in report.problem.message
    assert (report.problem.kind, report.problem.position) == ("dice", position)


def test_a_command_before_every_contribution_is_refused(
    recorded: tuple[BattleStore, Ed25519PrivateKey],
) -> None:
    store, _ = recorded
    [info] = store.battles()
    events = store.read(info.battle)
    plain = [e.event for e in events if not isinstance(e.event, ContributionGiven)][:]
    plain.insert(2, ContributionGiven(side="goliath", value="chainaxe"))
    forged = chain(info.battle, info.ruleset, None, plain, [""] * len(plain))
    report = verify_events(info.battle, forged)
    assert not report.ok and report.problem is not None
    assert "before every side gave its contribution (missing: escher)" in report.problem.message


def test_a_changed_contribution_in_the_database_is_caught(tmp_path: Path, judge: KeyFiles) -> None:
    db = tmp_path / "b.sqlite"
    rec = record(BattleStore(db), demo(), quiet=True, fair=terms(judge))
    tamper(str(db), str(rec.battle), 3, lambda e: e.update(value="chainsword"))
    report = verify_battle(BattleStore(db), rec.battle)
    assert not report.ok and report.problem is not None and report.problem.position == 3


def test_a_fair_battle_recorded_before_escrow_still_seals_from_the_vault(
    tmp_path: Path, judge: KeyFiles
) -> None:
    """Battles recorded with `--fair` before contributions and escrow: the seed in the store's
    seed vault, the dice drawn from it alone (bxb-dice-v1)."""
    store = BattleStore(tmp_path / "b.sqlite")
    seed = "c3" * 32
    spec = DiceSpec(mode="fair", algorithm="bxb-dice-v1", commitment=commitment(seed))
    played = play(demo(), dice=SeededDice(seed))
    first = played.events[0]
    assert isinstance(first, BattleStarted) and spec.algorithm != FAIR_ALGORITHM
    events = [msgspec.structs.replace(first, dice=spec), *played.events[1:]]
    logged = store.append(_battle_id(events[0]), first.ruleset, 0, events)
    battle = logged[0].originator_id
    store.vault.put(str(battle), seed)
    seal_battle(store, battle, load_private_key(judge.private))
    report = verify_battle(store, battle)
    assert report.ok and report.dice_checked > 0


def _battle_id(started: Event) -> UUID:
    assert isinstance(started, BattleStarted)
    return battle_id_for(started)


# --- keys and the command line ----------------------------------------------------------------


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask", [0o000, 0o077, 0o277])
def test_key_files_are_private_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        files = new_keys(tmp_path / "a" / "keys")
    finally:
        os.umask(old)
    assert mode(files.private) == 0o600
    assert mode(tmp_path / "a" / "keys") == mode(tmp_path / "a") == 0o700
    assert mode(files.public) == mode(files.escrow) == 0o644
    assert files.escrow.read_text().startswith("x25519:")


def test_keys_are_not_written_in_a_folder_others_can_open(tmp_path: Path) -> None:
    loose = tmp_path / "shared"
    loose.mkdir()
    os.chmod(loose, 0o755)
    with pytest.raises(JudgingError, match="may be opened by others"):
        new_keys(loose)
    assert list(loose.iterdir()) == []


def test_the_escrow_key_is_derived_from_the_signing_key(tmp_path: Path) -> None:
    files = new_keys(tmp_path / "keys")
    key = load_private_key(files.private)
    assert files.escrow.read_text().strip() == escrow_public_text(escrow_key(key))
    # `bxb keys public` makes the public files again from the private key alone.
    files.escrow.unlink()
    files.public.unlink()
    result = runner.invoke(app, ["keys", "public", "--key", str(files.private)])
    assert result.exit_code == 0, result.output
    assert files.escrow.read_text().strip() == escrow_public_text(escrow_key(key))
    assert (
        escrow_key(key).private_bytes_raw()
        != escrow_key(Ed25519PrivateKey.generate()).private_bytes_raw()
    )


def bxb(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", str(db), "--log-level", "warning", *args])
    return result.exit_code, result.output


def scenario_file() -> str:
    return str(Path(__file__).resolve().parents[2] / "cli" / "scenarios" / "necromunda-2023.toml")


@pytest.mark.parametrize(
    "args",
    [
        ["--contribution", "goliath=chainaxe"],
        ["--contribution", "goliath"],
        ["--contribution", "goliath=a", "--contribution", "escher=b"],
    ],
)
def test_record_fair_refuses_values_given_before_the_commitment(
    tmp_path: Path, judge: KeyFiles, args: list[str]
) -> None:
    db = tmp_path / "b.sqlite"
    code, out = bxb(
        db, "record", scenario_file(), "--fair", "--judge-key", str(judge.escrow), *args
    )
    assert code == 2 and out.startswith("error: --contribution: a side's contribution is given")
    assert "Traceback" not in out and BattleStore(db).battles() == []


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("chainaxe\n", "no contribution"),
        ("chainaxe\n\n", "no contribution"),
        ("chainaxe\n" + "x" * 201 + "\n", "no contribution"),
    ],
)
def test_record_fair_asks_each_value_after_the_commitment_and_keeps_the_start(
    tmp_path: Path, judge: KeyFiles, typed: str, message: str
) -> None:
    """A value that is not accepted is asked again; standard input ending before every side
    gave one leaves the start, said so, exit 1."""
    db = tmp_path / "b.sqlite"
    result = runner.invoke(
        app,
        ["--db", str(db), "--log-level", "warning", "record", scenario_file(), "--fair",
         "--judge-key", str(judge.escrow)],
        input=typed,
    )  # fmt: skip
    assert result.exit_code == 1 and "is started and stays in the store" in result.output
    assert "Traceback" not in result.output
    [info] = BattleStore(db).battles()
    kinds = [type(e.event).__name__ for e in BattleStore(db).read(info.battle)]
    assert kinds == ["BattleStarted", "SeedEscrowed"]


def test_record_fair_needs_an_escrow_key(
    tmp_path: Path, judge: KeyFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "b.sqlite"
    both: list[str] = []
    code, out = bxb(
        db, "record", scenario_file(), "--fair", "--judge-key", str(judge.public), *both
    )
    assert code == 2 and "that is a sealing key" in out, out
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-config"))
    code, out = bxb(db, "record", scenario_file(), "--fair", *both)
    assert code == 2 and "no judge's escrow key" in out, out
    code, out = bxb(db, "record", scenario_file(), "--judge-key", str(judge.escrow))
    assert code == 2 and "go with --fair" in out, out
    assert BattleStore(db).battles() == []


def test_the_start_of_a_log_is_counted_for_re_runs(judge: KeyFiles) -> None:
    store = BattleStore(":memory:")
    fair = record(store, demo(), quiet=True, fair=terms(judge))
    plain = record(store, get_game_system("necromunda-2023").demo(), quiet=True)
    assert start_length([e.event for e in fair.events]) == 4
    assert start_length([e.event for e in plain.events]) == 1


def test_a_sealed_fair_battle_is_re_run_by_what_if_with_its_own_dice(judge: KeyFiles) -> None:
    """What-if reuses a fair battle's dice: under the same rulings nothing diverges (its start,
    escrow and contributions, is not part of what is compared) and no die is missing."""
    store = BattleStore(":memory:")
    rec = record(store, demo(), quiet=True, fair=terms(judge))
    seal_battle(store, rec.battle, load_private_key(judge.private))
    same = what_if(store.read(rec.battle), {})
    assert same.divergence is None and not same.stopped and not same.needs_die
    assert len(same.alternative) == len(same.original)


def test_every_event_of_a_sealed_fair_battle_is_told_in_words(judge: KeyFiles) -> None:
    """`bxb log` tells the escrow, each side's value and the seal in words, not as raw data."""
    store = BattleStore(":memory:")
    rec = record(store, demo(), quiet=True, fair=terms(judge))
    seal_battle(store, rec.battle, load_private_key(judge.private))
    system = get_game_system("necromunda-2023")
    for logged in store.read(rec.battle):
        told = narrate(system, logged.event)
        assert not told.startswith(type(logged.event).__name__ + " {"), told
    lines = [narrate(system, e.event) for e in store.read(rec.battle)]
    assert any("escrowed to 1 judge key" in t for t in lines)
    assert any(t.startswith("goliath gives its value") for t in lines)
    assert "fair seed revealed" in lines[-1]
