"""A battle's family (docs/judging.md, Disputes; the viewer's family card): a battle forked by a
judge, its child forked again (a fork of a fork), and saved what-if re-runs of the first and of
the last. Every member's family is the one the battles' whole logs give, and it is found
without reading any battle's log: each battle's first two events and its rulings, no more."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from test_api_disputes import a_die_of, battle_of, other_faces
from web_helpers import Client, Site, bearer

from blowbyblow.domain.core import BattleStarted
from blowbyblow.domain.judging import BattleForked
from blowbyblow.projections.disputes import disputes_of
from blowbyblow.replay.battles.record import save_events
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.records import Record
from blowbyblow.web import disputes
from blowbyblow.web.service import Service


def forked(site: Site, client: Client, battle: str) -> str:
    """``battle`` forked by the judge before its command 2, with another face of a die."""
    die = a_die_of(site, battle, 2)
    fork = {
        "before": 2,
        "change": {"kind": "die", "key": die.key, "values": other_faces(die)},
        "reason": "the die was typed wrong",
    }
    r = client.post(f"/api/battles/{battle}/fork", json=fork, headers=bearer(site.judge))
    assert r.status_code == 201, r.text
    return str(r.json()["child"])


def re_run(site: Site, battle: str) -> str:
    """A what-if re-run of ``battle`` under another ruling, saved as a battle of its own."""
    events = site.store.read(UUID(battle))
    started = events[0].event
    assert isinstance(started, BattleStarted)
    for ruling in get_game_system(started.ruleset).rulings:
        for choice in ruling.choices:
            if choice == started.rulings.get(ruling.name, ruling.default):
                continue
            wi = what_if(events, {ruling.name: choice})
            if not wi.stopped:
                return str(save_events(site.store, wi.ruleset, wi.alternative).battle)
    raise AssertionError("no ruling re-runs this battle to its end")


def whole_family(site: Site, battle: str) -> list[dict[str, Any]]:
    """The family as the battles' whole logs give it: the root (up the origins) first, then
    each battle's children (oldest first) after it, breadth first."""
    logs = {
        str(i.battle): [e.event for e in site.store.read(i.battle)] for i in site.store.battles()
    }

    def origin(b: str) -> str | None:
        started = logs[b][0]
        assert isinstance(started, BattleStarted)
        return started.origin

    root = battle
    while (up := origin(root)) is not None:
        root = up
    members: list[dict[str, Any]] = []
    todo: list[tuple[str, str | None]] = [(root, None)]
    while todo:
        b, parent = todo.pop(0)
        events = logs[b]
        started = events[0]
        assert isinstance(started, BattleStarted)
        link = events[1].link if isinstance(events[1], BattleForked) else None
        members.append(
            {
                "battle": b,
                "label": started.label,
                "parent": parent,
                "link": link,
                "rulings": dict(started.rulings),
                "superseded_by": disputes_of(events).superseded_by,
                "version": len(events),
            }
        )
        todo += [(c, b) for c in logs if origin(c) == b]
    return members


def test_every_member_s_family_is_the_one_its_whole_logs_give(
    site: Site, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = battle_of(site, client, 3)
    child = forked(site, client, root)
    grandchild = forked(site, client, child)  # a fork of a fork
    re_runs = [re_run(site, root), re_run(site, grandchild)]
    family = {root, child, grandchild, *re_runs}
    # a battle outside the family, at another table: not in it
    r = client.post(
        "/api/tournaments/spring/tables/2/battles",
        json={"ruleset": "necromunda-2023", "seed": "other", "label": "table two"},
        headers=bearer(site.tables[2]),
    )
    assert r.status_code == 201, r.text
    other = str(r.json()["battle"])

    # a server started afresh reads no battle's whole log for any member's family
    read: dict[str, list[int]] = {}
    records = site.store.records
    page, states = records.page, records.states

    def counted_page(b: UUID, gt: int, lte: int | None, limit: int) -> list[Record]:
        found = page(b, gt, lte, limit)
        read.setdefault(str(b), []).append(len(found))
        return found

    def counted_states(b: UUID, gt: int, lte: int, limit: int) -> list[tuple[int, bytes]]:
        found = states(b, gt, lte, limit)
        read.setdefault(str(b), []).append(len(found))
        return found

    monkeypatch.setattr(records, "page", counted_page)
    monkeypatch.setattr(records, "states", counted_states)
    service = Service(store=site.store, tournaments=site.tournaments, key=site.key)
    answers = {b: disputes.family(service, UUID(b)) for b in [*family, other]}
    assert read and max(n for reads in read.values() for n in reads) <= 2, read
    monkeypatch.undo()

    for b in family:
        expected = whole_family(site, b)
        members = service.door.disputes.family(UUID(b))
        assert [
            {
                "battle": str(m.battle),
                "label": m.label,
                "parent": None if m.parent is None else str(m.parent),
                "link": m.link,
                "rulings": m.rulings,
                "superseded_by": None if m.superseded_by is None else str(m.superseded_by),
                "version": m.version,
            }
            for m in members
        ] == expected
        answer = answers[b]
        assert [m.battle for m in answer.members] == [m["battle"] for m in expected]
        assert answer.goes_on_in == (grandchild if b in {root, child, grandchild} else b)
    assert [m.battle for m in answers[other].members] == [other]
    tree = {m.battle: (m.parent, m.depth, m.superseded_by) for m in answers[root].members}
    assert tree == {
        root: (None, 0, child),
        child: (root, 1, grandchild),
        re_runs[0]: (root, 1, None),
        grandchild: (child, 2, None),
        re_runs[1]: (grandchild, 3, None),
    }
    hows = {m.battle: m.how for m in answers[root].members}
    assert "forked at position" in hows[grandchild] and "what-if" in hows[re_runs[0]]

    # the API's answer is the same, and a ruling written since is seen at once
    shown = client.get(f"/api/battles/{grandchild}/family").json()
    assert [m["battle"] for m in shown["members"]] == [m.battle for m in answers[root].members]
    assert shown["goes_on_in"] == grandchild
    great = forked(site, client, grandchild)
    shown = client.get(f"/api/battles/{root}/family").json()
    assert {m["battle"]: m["superseded_by"] for m in shown["members"]}[grandchild] == great
    assert shown["goes_on_in"] == great
