"""A table's setup, each side its own (issue 23): a phone takes its side and alone changes that
side's part and confirms for it (the other phone's writes to it are refused, nothing written);
the rulings the event plays with and the dice are part of the setup both confirm, and are
recorded in the battle's first event; fair dice are committed when the battle starts, before
any side's value is taken; a name longer than a name is refused with the field named."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import msgspec
import pytest
from litestar.testing import TestClient
from web_helpers import Client, Site, bearer

from blowbyblow.domain.core import BattleStarted
from blowbyblow.domain.judging import SeedEscrowed
from blowbyblow.replay.engine.registry import get_game_system

SETUP = "/api/tournaments/spring/tables/1/setup"
RULESET = "necromunda-2023"


def demo() -> dict[str, Any]:
    found: dict[str, Any] = msgspec.json.decode(
        msgspec.json.encode(get_game_system(RULESET).demo().setup)
    )
    return found


def only(setup: dict[str, Any], gang: str) -> dict[str, Any]:
    """The setup with one gang's part alone (its fighters, its entry in ``gangs``)."""
    return dict(
        setup,
        fighters=[f for f in setup["fighters"] if f["gang"] == gang],
        gangs=[g for g in setup["gangs"] if g["id"] == gang],
    )


def revision(client: Client) -> int:
    draft = client.get(SETUP).json()["draft"]
    return int(draft["revision"]) if draft else 0


def test_a_side_taken_is_changed_and_confirmed_only_on_its_phone(
    site: Site, client: Client
) -> None:
    h = bearer(site.tables[1])
    take = client.post(f"{SETUP}/claim", json={"side": "goliath"}, headers=h)
    assert take.status_code == 200, take.text
    goliath = take.json()["key"]
    assert client.post(f"{SETUP}/claim", json={"side": "goliath"}, headers=h).status_code == 409
    escher = client.post(f"{SETUP}/claim", json={"side": "escher"}, headers=h).json()["key"]
    setup = demo()

    # the Goliath phone saves the table's part and its gang, not the Escher's fighters
    r = client.put(
        SETUP,
        json={"ruleset": RULESET, "setup": setup, "side": "goliath", "key": goliath},
        headers=h,
    )
    assert r.status_code == 403, r.text
    assert r.json()["field"] == "setup.fighters" and "'escher'" in r.json()["message"]
    assert revision(client) == 0  # nothing written
    mine = only(setup, "goliath")
    body = {"ruleset": RULESET, "setup": mine, "side": "goliath", "key": goliath}
    r = client.put(SETUP, json=body, headers=h)
    assert r.status_code == 200, r.text
    assert r.json()["named"] == ["goliath"]
    assert r.json()["claimed"] == ["escher", "goliath"]

    # the Escher phone adds its fighters; a change to a Goliath is refused, as is a wrong key
    theirs = dict(setup, fighters=[dict(setup["fighters"][0], ws=2), *setup["fighters"][1:]])
    body = {"ruleset": RULESET, "setup": theirs, "revision": 1, "side": "escher", "key": escher}
    r = client.put(SETUP, json=body, headers=h)
    assert r.status_code == 403 and "'goliath'" in r.json()["message"]
    r = client.put(SETUP, json=dict(body, setup=setup, key=goliath), headers=h)
    assert r.status_code == 403 and r.json()["field"] == "key"
    assert revision(client) == 1
    r = client.put(SETUP, json=dict(body, setup=setup), headers=h)
    assert r.status_code == 200, r.text
    assert not r.json()["problem"] and r.json()["named"] == ["goliath", "escher"]

    # each side confirms on its own phone: without the key, or with the other's, refused
    for key in ("", escher):
        r = client.post(
            f"{SETUP}/confirm", json={"side": "goliath", "revision": 2, "key": key}, headers=h
        )
        assert r.status_code in (403, 422) and r.json()["field"] == "key", r.text
    r = client.post(
        f"{SETUP}/confirm", json={"side": "goliath", "revision": 2, "key": goliath}, headers=h
    )
    assert r.json()["confirmed"] == ["goliath"]
    # a judge may confirm for a side (or start the battle)
    r = client.post(
        f"{SETUP}/confirm", json={"side": "escher", "revision": 2}, headers=bearer(site.judge)
    )
    assert r.json()["battle"] is not None
    started = site.store.read(UUID(r.json()["battle"]["battle"]))[0].event
    assert isinstance(started, BattleStarted)
    assert msgspec.json.decode(msgspec.json.encode(started.setup)) == setup
    assert client.get(SETUP).json()["claimed"] == []  # the sides are free for the next battle


def test_a_judge_gives_a_side_to_a_new_phone(site: Site, client: Client) -> None:
    h = bearer(site.tables[1])
    old = client.post(f"{SETUP}/claim", json={"side": "goliath"}, headers=h).json()["key"]
    new = client.post(f"{SETUP}/claim", json={"side": "goliath"}, headers=bearer(site.judge))
    assert new.status_code == 200
    body = {"ruleset": RULESET, "setup": only(demo(), "goliath"), "side": "goliath"}
    assert client.put(SETUP, json=dict(body, key=old), headers=h).status_code == 403
    assert client.put(SETUP, json=dict(body, key=new.json()["key"]), headers=h).status_code == 200
    other = bearer(site.tables[2])
    assert client.post(f"{SETUP}/claim", json={"side": "x"}, headers=other).status_code == 403


def test_the_rulings_and_dice_both_confirmed_are_in_the_first_event(
    site: Site, client: Client
) -> None:
    h = bearer(site.tables[1])
    body = {"ruleset": RULESET, "setup": demo(), "rulings": {"no-such-ruling": "x"}}
    r = client.put(SETUP, json=body, headers=h)
    assert r.status_code == 422 and r.json()["field"] == "setup.rulings.no-such-ruling", r.text
    r = client.put(SETUP, json=dict(body, rulings={"coup-de-grace-effect": "x"}), headers=h)
    assert r.status_code == 422 and "out-of-action" in r.json()["message"]
    chosen = {"coup-de-grace-effect": "injury-dice"}
    r = client.put(SETUP, json=dict(body, rulings=chosen, seed="club-night"), headers=h)
    assert r.status_code == 200, r.text
    for side in ("goliath", "escher"):
        r = client.post(f"{SETUP}/confirm", json={"side": side, "revision": 1}, headers=h)
    started = site.store.read(UUID(r.json()["battle"]["battle"]))[0].event
    assert isinstance(started, BattleStarted)
    system = get_game_system(RULESET)
    assert started.rulings == system.resolve_rulings(chosen)  # every ruling, one changed
    assert started.rulings["coup-de-grace-effect"] == "injury-dice"
    assert (started.dice.mode, started.dice.seed) == ("seeded", "club-night")


def test_fair_dice_are_committed_before_any_side_gives_its_value(
    site: Site, client: Client
) -> None:
    h = bearer(site.tables[1])
    body = {"ruleset": RULESET, "setup": demo(), "fair": True}
    r = client.put(SETUP, json=dict(body, seed="x"), headers=h)
    assert r.status_code == 422 and r.json()["field"] == "fair"
    r = client.put(SETUP, json=body, headers=h)
    assert r.status_code == 200, r.text
    for side in ("goliath", "escher"):
        r = client.post(f"{SETUP}/confirm", json={"side": side, "revision": 1}, headers=h)
    battle = r.json()["battle"]
    assert battle["fair"]["commitment"] and battle["fair"]["missing"] == ["goliath", "escher"]
    events = [e.event for e in site.store.read(UUID(battle["battle"]))]
    # the start (its commitment) and the seed escrowed to the judges; no side's value yet
    assert [type(e) for e in events] == [BattleStarted, SeedEscrowed]
    assert isinstance(events[0], BattleStarted) and events[0].dice.mode == "fair"
    page = client.get("/tournaments/spring/tables/1")
    assert battle["fair"]["commitment"] in page.text and "Waiting for goliath, escher" in page.text


def test_fair_dice_need_a_server_that_can_escrow_its_seed(site: Site) -> None:
    with TestClient(site.app(key=False)) as client:
        body = {"ruleset": RULESET, "setup": demo(), "fair": True}
        r = client.put(SETUP, json=body, headers=bearer(site.tables[1]))
        assert r.status_code == 422 and r.json()["field"] == "fair", r.text
        assert revision(client) == 0


@pytest.mark.parametrize(
    ("where", "path"),
    [("name", "setup.fighters[0].name"), ("id", "setup.fighters[0].id")],
)
def test_a_name_longer_than_a_name_is_refused(
    site: Site, client: Client, where: str, path: str
) -> None:
    setup = demo()
    setup["fighters"][0][where] = "x" * 201
    r = client.put(SETUP, json={"ruleset": RULESET, "setup": setup}, headers=bearer(site.tables[1]))
    assert r.status_code == 422 and r.json()["field"] == path, r.text
    assert "expected at most 200" in r.json()["message"]
    assert revision(client) == 0
    check = client.post(
        f"/api/rulesets/{RULESET}/setup/check", json={"setup": setup, "field": path[6:]}
    ).json()
    assert check["field_message"].startswith(f"setup: {path[6:]}: 201 characters")
    r = client.post(f"{SETUP}/claim", json={"side": "y" * 201}, headers=bearer(site.tables[1]))
    assert r.status_code in (400, 422) and "side" in r.text
