"""The register of an event's rosters (replay/rosters/register.py): kept per tournament by
player and name, changed between rounds by edits kept as history; a write that does not fit
writes nothing. On SQLite, and on PostgreSQL beside it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import msgspec
import pytest

from blowbyblow.domain.roster import Add, Remove, RosterError, SetField
from blowbyblow.replay.rosters.register import Change, RosterRegister

from roster_helpers import shipped_rosters


def _kept_and_changed(register: RosterRegister) -> None:
    goliath, escher = shipped_rosters("necromunda-2023")
    register.add("spring-open", goliath)
    register.add("spring-open", escher)
    fighter = goliath.forces["fighters"][0]["id"]
    before = goliath.forces["fighters"][0]["ws"]  # 3: WS 3+, one better than the default
    register.edit(
        "spring-open",
        goliath.player,
        goliath.name,
        Change((SetField(entry=fighter, field="ws", value=before + 1),), "Eye Injury", 1),
    )
    # the second round's edit is refused whole: its second edit leaves no one in the gang
    with pytest.raises(RosterError, match=r"edit 2 \(remove\): fighters: the roster has no one"):
        register.edit(
            "spring-open",
            goliath.player,
            goliath.name,
            Change((SetField(entry=fighter, field="w", value=1), Remove(entry=fighter)), "", 2),
        )
    history = register.history("spring-open", goliath.player, goliath.name)
    assert [(v.version, v.reason, v.round) for v in history] == [
        (1, "imported", None),
        (2, "Eye Injury", 1),
    ]
    assert history[1].edits == (SetField(entry=fighter, field="ws", value=before + 1),)
    now = register.get("spring-open", goliath.player, goliath.name)
    assert now.version == 2 and now.roster.forces["fighters"][0].get("ws", 4) == before + 1
    first = register.get("spring-open", goliath.player, goliath.name, version=1)
    assert first.roster == goliath
    kept = register.rosters("spring-open")
    assert [(k.player, k.name, k.version) for k in kept] == [
        (goliath.player, goliath.name, 2),
        (escher.player, escher.name, 1),
    ]
    assert register.rosters("other") == []


def test_a_roster_is_kept_changed_by_edits_and_its_history_read(tmp_path: Path) -> None:
    _kept_and_changed(RosterRegister(str(tmp_path / "store.sqlite")))
    again = RosterRegister(str(tmp_path / "store.sqlite"))  # another process, later
    assert len(again.rosters()) == 2


def test_a_roster_kept_already_is_refused_unless_replaced(tmp_path: Path) -> None:
    register = RosterRegister(str(tmp_path / "store.sqlite"))
    gang = shipped_rosters("gangfight")[0]
    register.add("spring-open", gang)
    with pytest.raises(RosterError, match=r"kept already .* --replace"):
        register.add("spring-open", gang)
    bigger = msgspec.structs.replace(gang, notes=["re-imported"])
    assert register.add("spring-open", bigger, replace=True).version == 2
    assert register.add("autumn-open", gang).version == 1  # another tournament, its own


def test_what_cannot_be_kept_is_named_and_nothing_written(tmp_path: Path) -> None:
    register = RosterRegister(str(tmp_path / "store.sqlite"))
    army = shipped_rosters("wh40k-2e")[0]
    with pytest.raises(RosterError, match="--tournament 'Spring Open'"):
        register.add("Spring Open", army)
    with pytest.raises(RosterError, match="no roster 'Nope' of player 'Ana'; theirs are: none"):
        register.edit("spring", "Ana", "Nope", Change((Remove(entry="x"),)))
    register.add("spring", army)
    model = army.forces["models"][0]["id"]
    for change, message in [
        (Change(()), "no edit given"),
        (Change((SetField(entry=model, field="id", value="y"),)), "an id is not edited"),
        (Change((Add(to="fighters", value={"id": "x"}),)), "fighters: a wh40k-2e roster holds"),
        (Change((SetField(entry=model, field="ws", value=99),)), r"models\[0\]\.ws"),
        (Change((Remove(entry=model),), round=5000), "--round: 5000"),
    ]:
        with pytest.raises(RosterError, match=message):
            register.edit("spring", army.player, army.name, change)
    assert [v.version for v in register.history("spring", army.player, army.name)] == [1]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    from pgserver import postgres_server

    with postgres_server() as url:
        yield url


def test_the_register_works_the_same_on_postgresql(server: str) -> None:
    import psycopg

    name = f"bxb_{uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as con:
        con.execute(f"create database {name}")
    url = server.rsplit("/", 1)[0] + "/" + name
    _kept_and_changed(RosterRegister(url))
