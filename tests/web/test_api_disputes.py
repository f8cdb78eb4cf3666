"""Disputes through the JSON API (docs/judging.md, Disputes; the token rules are in
test_api_auth.py): a table flags a command of its battle, bounded and named by the token; a judge
rules and notes, signed with the server's key; a judge forks with a corrected die, previewed
first (nothing written), and the table's battle moves to the child, where the table plays on;
the parent refuses a command and names the child; parent and child verify and diff at the
corrected die. Racing forks write one child, placed once. Every refusal writes nothing."""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

import pytest
from litestar.testing import TestClient
from web_helpers import Client, Site, bearer

from blowbyblow.domain.core import CommandIssued, DiceRolled
from blowbyblow.domain.judging import (
    CORRECTED_BY_JUDGE,
    CommandFlagged,
    DieCorrected,
    NoteAdded,
    RulingGiven,
)
from blowbyblow.replay.battles.diff import diff_battles
from blowbyblow.replay.battles.refusals import Refused
from blowbyblow.replay.evidence.disputes import signed_ok
from blowbyblow.replay.evidence.seals import public_hex
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.web import disputes
from blowbyblow.web.dispute_schemas import ChangeBody, ForkRequest
from blowbyblow.web.service import Service


def battle_of(site: Site, client: Client, commands: int = 3) -> str:
    """A seeded battle at spring's table 1 with ``commands`` commands played."""
    r = client.post(
        "/api/tournaments/spring/tables/1/battles",
        json={"ruleset": "necromunda-2023", "seed": "dispute", "label": "table one"},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 201, r.text
    battle = str(r.json()["battle"])
    for _ in range(commands):
        r = client.post(
            f"/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(site.tables[1])
        )
        assert r.status_code == 201, r.text
    return battle


def a_die_of(site: Site, battle: str, command: int) -> DiceRolled:
    return next(
        e.event
        for e in site.store.read(UUID(battle))
        if isinstance(e.event, DiceRolled) and e.event.key.startswith(f"c{command}/")
    )


def other_faces(die: DiceRolled) -> list[int]:
    return [1 + (die.values[0] % die.sides), *die.values[1:]]


def refused(response: Any, status: int, field: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["field"] == field and body["written"] == 0, body
    return body


def test_a_table_flags_a_command_and_the_judge_rules_and_notes(site: Site, client: Client) -> None:
    battle = battle_of(site, client, 2)
    r = client.post(
        f"/api/battles/{battle}/flags",
        json={"command": 2, "reason": "that die was a 5", "by": "the Escher"},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 201, r.text
    flagged = site.store.read(UUID(battle))[-1].event
    assert isinstance(flagged, CommandFlagged)
    # who flagged is the token's; a name typed with it is a note in the reason
    assert flagged.by == "table 1 of spring" and flagged.index == 2
    assert flagged.reason == "that die was a 5 (note: the Escher)"
    assert r.json()["row"]["type"] == "CommandFlagged" and r.json()["receipt"]
    # the table's page lists the open flag, and offers the flag form to the table's phone
    client.cookies.set("bxb_token", site.tables[1])
    page = client.get("/tournaments/spring/tables/1").text
    assert 'id="open-flags"' in page and "that die was a 5 (note: the Escher)" in page
    assert 'id="flag-form"' in page
    client.cookies.clear()
    assert 'id="flag-form"' not in client.get("/tournaments/spring/tables/1").text

    r = client.post(
        f"/api/battles/{battle}/notes",
        json={"position": flagged.position, "text": "both agree it showed a 5"},
        headers=bearer(site.judge),
    )
    assert r.status_code == 201, r.text
    noted = site.store.read(UUID(battle))[-1].event
    assert isinstance(noted, NoteAdded) and noted.note.judge == "judge of spring"
    r = client.post(
        f"/api/battles/{battle}/rulings",
        json={"command": 2, "reason": "the die stands as typed"},
        headers=bearer(site.judge),
    )
    assert r.status_code == 201, r.text
    ruled = site.store.read(UUID(battle))[-1].event
    assert isinstance(ruled, RulingGiven)
    assert ruled.ruling.decision == "stands" and ruled.ruling.judge == "judge of spring"
    # signed with the key the server holds
    assert ruled.public_key == public_hex(site.key)
    assert signed_ok(ruled) and signed_ok(noted)
    assert verify_battle(site.store, UUID(battle)).ok


@pytest.mark.parametrize(
    ("path", "body", "status", "field"),
    [
        ("flags", {"command": 1, "reason": "x" * 301}, 400, "reason"),
        ("flags", {"command": 1, "reason": "  "}, 422, "reason"),
        ("flags", {"command": 1, "reason": "long name", "by": "y" * 81}, 400, "by"),
        ("flags", {"command": 9, "reason": "no such command"}, 422, "command"),
        ("flags", {"command": 1}, 400, "reason"),
        ("rulings", {"command": 0, "reason": "which?"}, 422, "command"),
        ("notes", {"position": 999, "text": "far away"}, 422, "position"),
        ("notes", {"position": 2, "text": "z" * 1001}, 400, "text"),
        ("fork", {"reason": "both", "position": 2, "before": 2}, 422, "position"),
        ("fork", {"reason": "neither"}, 422, "position"),
        ("fork", {"reason": "far", "position": 999}, 422, "position"),
        ("fork", {"reason": "", "position": 1}, 422, "reason"),
        ("fork", {"reason": "r", "position": 1, "change": {"kind": "die"}}, 422, "change.key"),
        (
            "fork",
            {"reason": "r", "position": 1, "change": {"kind": "die", "key": "c1/no/such"}},
            422,
            "change.values",
        ),
        (
            "fork",
            {"reason": "r", "position": 1, "change": {"kind": "die", "key": "c1/x", "values": [7]}},
            422,
            "change.key",
        ),
        (
            "fork",
            {
                "reason": "r",
                "position": 1,
                "change": {"kind": "ruling", "name": "no", "value": "x"},
            },
            422,
            "change.name",
        ),
        ("fork", {"reason": "r", "position": 1, "change": {"kind": "lunch"}}, 400, "change.kind"),
    ],
)
def test_a_dispute_refused_writes_nothing(  # noqa: PLR0913 - pytest parameters
    site: Site, client: Client, path: str, body: dict[str, Any], status: int, field: str
) -> None:
    battle = battle_of(site, client, 1)
    before = site.written()
    who = site.tables[1] if path == "flags" else site.judge
    body = refused(
        client.post(f"/api/battles/{battle}/{path}", json=body, headers=bearer(who)), status, field
    )
    assert "\n" not in body["message"]
    assert site.written() == before


def test_without_a_signing_key_a_judge_neither_rules_nor_forks(site: Site) -> None:
    with TestClient(site.app(key=False)) as client:
        battle = battle_of(site, client, 1)
        before = site.written()
        for path, body in (
            ("rulings", {"command": 1, "reason": "stands"}),
            ("notes", {"position": 2, "text": "seen"}),
            ("fork", {"position": 1, "reason": "again"}),
        ):
            r = client.post(f"/api/battles/{battle}/{path}", json=body, headers=bearer(site.judge))
            refused(r, 409, "key")
        assert site.written() == before


def test_a_fork_with_a_corrected_die_moves_the_table_to_the_child(
    site: Site, client: Client
) -> None:
    parent = battle_of(site, client, 2)
    die = a_die_of(site, parent, 2)
    fork = {
        "before": 2,
        "change": {"kind": "die", "key": die.key, "values": other_faces(die)},
        "reason": "the die was typed wrong",
    }
    before = site.written()
    seen = client.post(
        f"/api/battles/{parent}/fork", json={**fork, "preview": True}, headers=bearer(site.judge)
    )
    assert seen.status_code == 201, seen.text
    assert site.written() == before, "a preview writes nothing"
    preview = seen.json()
    assert not preview["written"] and preview["kept"] == 1
    assert preview["rows"][0]["type"] == "CommandIssued" and preview["rows"][0]["command"] == 2

    r = client.post(f"/api/battles/{parent}/fork", json=fork, headers=bearer(site.judge))
    assert r.status_code == 201, r.text
    done = r.json()
    child = done["child"]
    assert done["written"] and child == preview["child"]
    assert (done["kept"], done["replayed"], done["stopped"]) == (
        preview["kept"],
        preview["replayed"],
        preview["stopped"],
    )
    assert [row["text"] for row in done["rows"]] == [row["text"] for row in preview["rows"]]
    assert done["place"] == {"tournament": "spring", "table": 1, "round": 1}
    corrected = a_die_of(site, child, 2)
    assert corrected.key == die.key and corrected.source == CORRECTED_BY_JUDGE
    assert list(corrected.values) == other_faces(die)

    # the table's battle is the child: its page (saying how the judge rewound it), the
    # register, and its plays
    assert site.tournaments.battles("spring", 1)[-1].battle == UUID(child)
    page = client.get("/tournaments/spring/tables/1")
    assert f'data-battle="{child}"' in page.text
    assert 'id="forked"' in page.text and "the die was typed wrong" in page.text
    r = client.post(
        f"/api/battles/{parent}/commands", json={"option": 0}, headers=bearer(site.tables[1])
    )
    body = refused(r, 409, "battle")
    assert child in body["message"]
    r = client.post(
        f"/api/battles/{child}/commands", json={"option": 0}, headers=bearer(site.tables[1])
    )
    assert r.status_code == 201, r.text

    # both verify; compared as played, they part at the corrected die
    assert verify_battle(site.store, UUID(parent)).ok
    report = verify_battle(site.store, UUID(child))
    assert report.ok and any("link holds" in n for n in report.notes), report.notes
    diff = client.get(f"/api/diff?a={parent}&b={child}").json()
    assert diff["b_row"]["event"]["key"] == die.key and diff["b_row"]["type"] == "DiceRolled"
    expected = diff_battles(site.store.read(UUID(parent)), site.store.read(UUID(child)))
    assert diff["a_position"] == expected.a.position and diff["b_position"] == expected.b.position
    # the family: the parent, superseded by the child, where the table goes on
    family = client.get(f"/api/battles/{parent}/family").json()
    assert [m["battle"] for m in family["members"]] == [parent, child]
    assert family["members"][0]["superseded_by"] == child and family["goes_on_in"] == child
    assert "forked at position" in family["members"][1]["how"]
    # a second fork of the parent is refused: it goes on in the child
    again = client.post(f"/api/battles/{parent}/fork", json=fork, headers=bearer(site.judge))
    refused(again, 409, "battle")


def test_racing_forks_write_one_child_placed_once(site: Site, client: Client) -> None:
    """Two judges' servers (each its own front door, as two processes) fork the same battle at
    once, with different dice: one child is written and placed; the other is refused whole."""
    parent = UUID(battle_of(site, client, 3))
    die = a_die_of(site, str(parent), 2)
    services = [Service(store=site.store, tournaments=site.tournaments, key=site.key) for _ in "ab"]
    for s in services:
        s.read(parent)  # each has the parent at its head, as a server would
    start = threading.Barrier(2)
    results: list[Any] = [None, None]

    def run(n: int) -> None:
        values = other_faces(die) if n == 0 else [*other_faces(die)[:1], *die.values[1:]]
        values[0] = 1 + (die.values[0] + n) % die.sides
        req = ForkRequest(
            before=2,
            change=ChangeBody(kind="die", key=die.key, values=values),
            reason=f"judge {n}",
        )
        start.wait()
        try:
            results[n] = disputes.fork(services[n], parent, req, f"judge {n}")
        except Refused as e:
            results[n] = e

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    written = [r for r in results if not isinstance(r, Refused)]
    assert len(written) == 1, results
    [loser] = [r for r in results if isinstance(r, Refused)]
    assert loser.kind == "conflict"
    placed = [p.battle for p in site.tournaments.battles("spring", 1)]
    assert placed == [parent, UUID(written[0].child)]
    assert len(site.store.battles()) == 2, "the refused fork wrote no child"
    assert verify_battle(site.store, UUID(written[0].child)).ok
    rulings = [e for e in site.store.read(parent) if isinstance(e.event, RulingGiven)]
    assert len(rulings) == 1


def test_a_fork_made_elsewhere_is_followed_by_the_table(site: Site, client: Client) -> None:
    """A fork written but not placed (``bxb fork`` on the server's database, or a server that
    stopped between the two): the table's page goes on in the child and places it."""
    parent = UUID(battle_of(site, client, 2))
    die = a_die_of(site, str(parent), 2)
    service = Service(store=site.store, tournaments=site.tournaments, key=site.key)
    from blowbyblow.replay.battles.fork import Judge

    done = service.door.disputes.fork(
        parent,
        position=service.door.disputes.position(parent, at=None, before=2),
        change=DieCorrected(key=die.key, values=tuple(other_faces(die))),
        judge=Judge("judge at the terminal", site.key),
        reason="typed wrong",
    )
    assert site.tournaments.place_of(done.child) is None
    page = client.get("/tournaments/spring/tables/1")
    assert f'data-battle="{done.child}"' in page.text
    assert site.tournaments.battles("spring", 1)[-1].battle == done.child


def test_a_fair_battle_forked_goes_on_with_its_fair_dice(site: Site, client: Client) -> None:
    """A fair battle's child rolls dice of its own (docs/dice.md, Fair dice in a fork): once
    each side has given a value for it, the table plays on in it through the server."""
    table = bearer(site.tables[1])
    r = client.post(
        "/api/tournaments/spring/tables/1/battles",
        json={"ruleset": "necromunda-2023", "fair": True},
        headers=table,
    )
    parent = r.json()["battle"]
    r = client.post(
        f"/api/battles/{parent}/contributions",
        json={"contributions": {"goliath": "axe", "escher": "whip"}},
        headers=table,
    )
    assert r.status_code == 201, r.text
    for _ in range(2):
        r = client.post(f"/api/battles/{parent}/commands", json={"option": 0}, headers=table)
        assert r.status_code == 201, r.text
    r = client.post(
        f"/api/battles/{parent}/fork",
        json={"before": 2, "reason": "command 2 again"},
        headers=bearer(site.judge),
    )
    assert r.status_code == 201, r.text
    child = r.json()["child"]
    page = client.get("/tournaments/spring/tables/1").text
    assert f'data-battle="{child}"' in page and 'id="fair-form"' not in page  # no cookie
    r = client.post(f"/api/battles/{child}/commands", json={"option": 0}, headers=table)
    refused(r, 409, "contributions")  # its sides' values first
    r = client.post(
        f"/api/battles/{child}/contributions",
        json={"contributions": {"goliath": "hammer", "escher": "knife"}},
        headers=table,
    )
    assert r.status_code == 201, r.text
    r = client.post(f"/api/battles/{child}/commands", json={"option": 0}, headers=table)
    assert r.status_code == 201, r.text
    report = verify_battle(site.store, UUID(child))
    assert report.ok, report.problem and report.problem.describe()


def test_steps_by_command_and_what_was_said_about_each_event(site: Site, client: Client) -> None:
    battle = battle_of(site, client, 3)
    starts = [
        e.position for e in site.store.read(UUID(battle)) if isinstance(e.event, CommandIssued)
    ]
    one, two, three = starts

    def step(query: str) -> dict[str, Any]:
        r = client.get(f"/api/battles/{battle}/step?{query}")
        assert r.status_code == 200, r.text
        found: dict[str, Any] = r.json()
        return found

    assert step("position=1") | {"of": 0} == {
        "position": 1,
        "of": 0,
        "command": 0,
        "issued": 0,
        "previous": None,
        "next": one,
    }
    inside = step(f"position={two + 2}")
    assert (inside["command"], inside["issued"], inside["previous"], inside["next"]) == (
        2,
        two,
        two,
        three,
    )
    at_start = step(f"position={two}")
    assert (at_start["previous"], at_start["next"]) == (one, three)
    last = step("")
    assert (last["command"], last["next"], last["position"]) == (3, None, last["of"])
    assert step("command=3")["position"] == three and step("command=0")["position"] == 1
    refused(client.get(f"/api/battles/{battle}/step?command=9"), 422, "command")
    refused(client.get(f"/api/battles/{battle}/step?position=9999"), 422, "position")

    # a flag, a note and a ruling, each on the event it is about
    client.post(
        f"/api/battles/{battle}/flags",
        json={"command": 2, "reason": "out of reach"},
        headers=bearer(site.tables[1]),
    )
    client.post(
        f"/api/battles/{battle}/notes",
        json={"position": two + 1, "text": "measured: 2 inches"},
        headers=bearer(site.judge),
    )
    client.post(
        f"/api/battles/{battle}/rulings",
        json={"command": 2, "reason": "in reach"},
        headers=bearer(site.judge),
    )
    said = client.get(f"/api/battles/{battle}/annotations").json()
    assert [(a["type"], a["about"]) for a in said] == [
        ("CommandFlagged", two),
        ("NoteAdded", two + 1),
        ("RulingGiven", two),
    ]
    assert "out of reach" in said[0]["text"] and "measured: 2 inches" in said[1]["text"]


def test_what_was_said_is_looked_for_only_in_the_records_after_the_last_look(
    site: Site, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The viewer asks for a battle's flags, rulings and notes at every page: the records'
    topics up to the version looked at last are not read again, and what is said after it is
    found all the same."""
    battle = battle_of(site, client, 2)
    asked: list[tuple[int, int]] = []
    topics = site.store.records.topics

    def spy(b: UUID, gt: int, lt: int) -> list[tuple[int, str]]:
        if str(b) == battle:
            asked.append((gt, lt))
        return topics(b, gt, lt)

    monkeypatch.setattr(site.store.records, "topics", spy)

    def said() -> list[dict[str, Any]]:
        answer: list[dict[str, Any]] = client.get(f"/api/battles/{battle}/annotations").json()
        return answer

    assert said() == []
    of = site.store.version(UUID(battle))
    assert asked == [(0, of + 1)]
    assert said() == [] and asked == [(0, of + 1)]  # nothing new: nothing read
    client.post(
        f"/api/battles/{battle}/notes",
        json={"position": 2, "text": "measured: 2 inches"},
        headers=bearer(site.judge),
    )
    asked.clear()
    assert [(a["type"], a["about"]) for a in said()] == [("NoteAdded", 2)]
    assert asked and all(gt >= of for gt, _ in asked)  # only the records after the last look
    assert [a["about"] for a in said()] == [2]
