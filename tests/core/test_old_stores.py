"""Stores written by earlier releases (tests/fixtures/stores/README.md) read, list and verify
under this one, the values they recorded read as recorded, even where this release bounds new
input more tightly (a fighter's W at most 20); and new input is still held to the bounds."""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import BattleStarted, DiceSpec, SetupError
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.engine.codec import codec_for, encode, to_builtins
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.engine.script import start_event
from blowbyblow.replay.evidence.export import export_battle, read_export
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo

STORES = Path(__file__).resolve().parents[1] / "fixtures" / "stores"
# each store's battles (label: events) as its README says they were recorded
RECORDED = {
    "release-93a185e-format2.sqlite": {
        "Old release: Grax with W 25 (above the later bound of 20)": 76,
        "X3: Ambush, Partial Kill, Melee and a Withdrawal attempt": 54,
    },
    "release-14bb807-format3.sqlite": {
        "Old release: Grax with W 25 (above the later bound of 20)": 77,
        "Orks charge the Ultramarines (40K 2nd edition hand-to-hand)": 78,
        "Gangfight: an Ogre in the alley": 99,
    },
}
W25 = "Old release: Grax with W 25 (above the later bound of 20)"


def bxb(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--log-level", "error", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(params=sorted(RECORDED))
def old_store(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    """A copy of the store (opening it builds the read models this release keeps beside it)."""
    name: str = request.param
    copy = tmp_path / name
    shutil.copyfile(STORES / name, copy)
    return name, copy


def test_every_store_of_an_earlier_release_is_kept() -> None:
    assert sorted(p.name for p in STORES.glob("*.sqlite")) == sorted(RECORDED)


def test_an_old_store_lists_reads_and_verifies(old_store: tuple[str, Path]) -> None:
    name, db = old_store
    store = BattleStore(db)
    listed = {b.label: b.version for b in store.battles()}
    assert listed == RECORDED[name]
    for info in store.battles():
        assert len(store.read(info.battle)) == info.version
        assert store.state_at(info.battle) is not None

    code, out, err = bxb("--db", str(db), "battles")
    assert code == 0, err
    assert all(label[:30] in " ".join(out.split()) for label in RECORDED[name]), out
    for info in BattleStore(db).battles():
        code, out, err = bxb("--db", str(db), "at", "1", str(info.battle))
        assert code == 0, err
        code, out, err = bxb("--db", str(db), "log", str(info.battle))
        assert code == 0, err
    code, out, err = bxb("--db", str(db), "verify")
    assert code == 0, out + err
    n = len(RECORDED[name])
    assert f"{n} of {n} battles verified" in out, out


def test_a_value_outside_todays_bounds_reads_as_recorded(old_store: tuple[str, Path]) -> None:
    _, db = old_store
    store = BattleStore(db)
    (battle,) = [b.battle for b in store.battles() if b.label == W25]
    first = store.read(battle)[0]
    assert isinstance(first.event, BattleStarted)
    grax = first.event.setup.fighters[0]
    assert (grax.id, grax.w) == ("grax", 25)
    assert type(grax) is type(game_systems()["necromunda-2023"].demo().setup.fighters[0])
    # an export of it reads back, as evidence does
    exported = export_battle(store, battle)
    assert read_export(exported).events[0].event == first.event
    # and a what-if re-runs it as recorded (W 25 and all)
    wi = what_if(store.read(battle), {})
    assert not wi.stopped and wi.divergence is None
    again = wi.alternative[0]
    assert isinstance(again, BattleStarted) and again.setup.fighters[0].w == 25


def test_new_input_is_still_held_to_the_bounds(tmp_path: Path) -> None:
    """The bounds moved from reading a record to where a setup enters: a scenario file (as
    ever), and a setup built in code when a battle starts with it."""
    system = game_systems()["necromunda-2023"]
    demo = system.demo()
    fighters = list(demo.setup.fighters)
    fighters[0] = msgspec.structs.replace(fighters[0], w=25)
    scenario = msgspec.structs.replace(
        demo, setup=msgspec.structs.replace(demo.setup, fighters=fighters)
    )
    with pytest.raises(SetupError, match=r"fighters\[0\]\.w: Expected `int` <= 20"):
        start_event(system, scenario, DiceSpec(mode="seeded", seed="s"))

    db = tmp_path / "battles.sqlite"
    code, _, err = bxb("--db", str(db), "record", str(STORES / "necromunda-w25.toml"))
    assert code == 2, err
    assert "fighters[0].w" in err and "<= 20" in err, err
    assert not BattleStore(db).battles()


@pytest.mark.parametrize("system_id", sorted(game_systems()))
def test_reading_without_bounds_gives_the_systems_own_events(system_id: str) -> None:
    """Every event of each system's demo read through the copy without bounds is the event
    itself, of the system's own classes: the copy keeps every field, tag, name and default."""
    store = BattleStore(":memory:")
    recorded = record_demo(store, system_id)
    codec = codec_for(system_id)
    for logged in store.read(recorded.battle):
        for read in (
            codec.unbounded.decode(logged.data),
            codec.unbounded.convert(to_builtins(logged.event)),
        ):
            assert read == logged.event
            assert type(read) is type(logged.event)
            assert encode(read) == logged.data
