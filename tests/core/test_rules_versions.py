"""A game system's later version still re-adjudicates battles recorded under an older one when
every change of the rules since is a ruling with ``since``/``before``."""

from __future__ import annotations

import dataclasses
import re

import msgspec
import pytest

from blowbyblow.domain.core import Ruling, RulingError
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence import verify as verify_module
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore

OLD = get_game_system("wh40k-2e").version  # the system's version today, whatever it is
_major, _minor = OLD.split(".")
NEXT = f"{_major}.{int(_minor) + 1}"  # the version the tests make of it

NEW = Ruling(
    name="new-reading",
    default="corrected",
    choices=("corrected", "as-before"),
    summary=f"a reading added in {NEXT}",
    rule="40K2 HtH: Parrying",
    since=NEXT,
    before="as-before",
)


def later(system: AnyGameSystem, *, reads: tuple[str, ...]) -> AnyGameSystem:
    """``system`` as its next version would be: one ruling more, reading ``reads``."""
    return dataclasses.replace(
        system, version=NEXT, rulings=(*system.rulings, NEW), reads_versions=reads
    )


def test_rulings_in_force_fill_a_later_ruling_with_its_value_before() -> None:
    old = get_game_system("wh40k-2e")
    recorded = old.resolve_rulings({})
    new = later(old, reads=(OLD,))
    assert new.rulings_in_force(OLD, recorded) == {**recorded, "new-reading": "as-before"}
    assert new.rulings_in_force(NEXT, {**recorded, "new-reading": "corrected"})["new-reading"] == (
        "corrected"
    )


def test_rulings_in_force_refuse_what_they_cannot_read() -> None:
    old = get_game_system("wh40k-2e")
    recorded = old.resolve_rulings({})
    with pytest.raises(RulingError, match=re.escape(f"re-adjudicates {NEXT}")):
        later(old, reads=()).rulings_in_force(OLD, recorded)
    with pytest.raises(RulingError, match="not the full, valid set"):
        later(old, reads=(OLD,)).rulings_in_force(NEXT, recorded)  # NEXT lacks new-reading
    unruled = msgspec.structs.replace(NEW, since="")
    bare = dataclasses.replace(old, version=NEXT, rulings=(*old.rulings, unruled))
    with pytest.raises(RulingError, match=re.escape(f"missing from a battle of {OLD}")):
        dataclasses.replace(bare, reads_versions=(OLD,)).rulings_in_force(OLD, recorded)


@pytest.mark.parametrize(("reads", "ok"), [((OLD,), True), ((), False)])
def test_a_battle_of_an_older_version_verifies_when_the_new_one_reads_it(
    monkeypatch: pytest.MonkeyPatch, reads: tuple[str, ...], ok: bool
) -> None:
    store = BattleStore(":memory:")
    old = get_game_system("wh40k-2e")
    battle = record(store, old.demo(), quiet=True).battle
    monkeypatch.setattr(verify_module, "get_game_system", lambda _id: later(old, reads=reads))
    report = verify_battle(store, battle)
    assert report.ok is ok, report.problem and report.problem.describe()
    if not ok:
        assert report.problem is not None and f"re-adjudicates {NEXT}" in report.problem.message
