"""A battle's head carries on what it worked out when it grows (``BattleHead.grown``: the events
that stand, the commands, the last command, the voids, the disputes), rather than working it out
again over the whole log at every command (issue 25): whatever the battle holds (voids, flags,
rulings, notes), a head grown one write at a time says what a head read whole says."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from web_helpers import Client, Site, bearer

from blowbyblow.replay.battles.head import BattleHead

ASKED = ("plain", "played", "commands", "last_command", "disputes", "voided", "rulings")


def _said(head: BattleHead) -> dict[str, Any]:
    disputes = head.disputes
    return {
        "plain": head.plain,
        "played": head.played,
        "commands": head.commands,
        "last_command": head.last_command,
        "disputes": (disputes.flags, disputes.rulings, disputes.notes),
        "superseded_by": disputes.superseded_by,
        "voided": head.voided,
        "rulings": head.rulings,
    }


def test_a_head_grown_write_by_write_says_what_one_read_whole_says(
    site: Site, client: Client
) -> None:
    table, judge = bearer(site.tables[1]), bearer(site.judge)
    r = client.post(
        "/api/tournaments/spring/tables/1/battles",
        json={"ruleset": "gangfight", "seed": "carried"},
        headers=table,
    )
    battle = r.json()["battle"]

    def play() -> None:
        version = client.get(f"/api/battles/{battle}/legal").json()["version"]
        r = client.post(
            f"/api/battles/{battle}/commands",
            json={"option": 0, "version": version},
            headers=table,
        )
        assert r.status_code == 201, r.text

    def post(path: str, body: dict[str, Any], who: dict[str, str]) -> None:
        r = client.post(f"/api/battles/{battle}/{path}", json=body, headers=who)
        assert r.status_code in (200, 201), r.text

    for _ in range(3):
        play()
    post("void", {"command": 3, "reason": "wrong fighter"}, table)
    play()
    post("flags", {"command": 1, "reason": "the charge was out of reach"}, table)
    play()
    post("rulings", {"command": 1, "reason": "it stands"}, judge)
    post("notes", {"position": 2, "text": "measured twice"}, judge)
    play()
    play()

    door = site.app().state.server.service.door
    whole = door.read(UUID(battle))
    events = whole.events
    assert whole.voided == 1 and whole.disputes.flags and whole.disputes.notes  # all there
    for start in range(1, len(events)):
        head = BattleHead(
            id=whole.id, events=events[:start], system=whole.system, started=whole.started
        )
        _said(head)  # what it works out, to be carried on
        at = start
        while at < len(events):  # grown a write's worth (a few events) at a time
            head = head.grown(events[at : at + 3])
            at += 3
            fresh = BattleHead(
                id=whole.id, events=events[:at], system=whole.system, started=whole.started
            )
            assert _said(head) == _said(fresh), (start, at)
    plain = BattleHead(id=whole.id, events=events[:-3], system=whole.system, started=whole.started)
    _said(plain)
    grown = plain.grown(events[-3:])  # the last command's events: nothing to work out again
    assert {name for name in ASKED if name in grown.__dict__} == set(ASKED)
