"""The server's quick odds (web/quick_odds.py): "this profile against that one" with no scenario
file; the odds of a legal option from a setup changed by hand are those of a scenario file with
the same setup and command; a setup the rules refuse is a 422 naming the field."""

from __future__ import annotations

import json
from pathlib import Path

from litestar.testing import TestClient
from web_helpers import make_site

from blowbyblow.replay.engine.codec import encode_json
from blowbyblow.replay.odds.explore import HowToExplore

from bxbtest import quick_by_hand, quick_demo_data


def test_the_servers_quick_odds_are_the_command_lines(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    setup, command = quick_demo_data()
    setup["fighters"][0]["profile"]["att"] = 1
    with TestClient(site.app()) as client:
        start = client.get("/api/rulesets/gangfight/quick").json()
        assert start["setup"] == quick_demo_data()[0] and start["options"]
        offered = client.post("/api/rulesets/gangfight/quick/options", json={"setup": setup}).json()
        option = next(i for i, o in enumerate(offered) if o["type"] == command["type"])
        got = client.post(  # the command as its JSON: a scenario file's action
            "/api/rulesets/gangfight/quick/odds",
            json={"setup": setup, "command": command, "budget": 300, "samples": 400},
        )
        picked = client.post(  # a legal option, as the page picks it
            "/api/rulesets/gangfight/quick/odds",
            json={"setup": setup, "option": option, "budget": 300, "samples": 400},
        )
        bad = client.post(
            "/api/rulesets/gangfight/quick/options",
            json={"setup": {**setup, "fighters": [{**setup["fighters"][0], "side": 3}]}},
        )
    assert got.status_code == 200, got.text
    assert picked.status_code == 200 and picked.json()["action"] == command["type"], picked.text
    expected = quick_by_hand(setup, command, HowToExplore(budget=300, samples=400))
    assert got.json()["sides"] == json.loads(encode_json(expected))["sides"]
    assert bad.status_code == 422 and "fighters[0].side" in bad.json()["message"], bad.text
