"""Free text a request carries is bounded (issue 26: a start's label of 100,000 characters was
accepted and written): each over-long field is refused with one error naming it, and nothing is
written."""

from __future__ import annotations

from typing import Any

import pytest
from web_helpers import Client, Site, bearer

LONG = "x" * 100_000
START = "/api/tournaments/spring/tables/1/battles"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ruleset": "necromunda-2023", "seed": "s", "label": LONG}, "label"),
        ({"ruleset": "necromunda-2023", "seed": LONG}, "seed"),
        ({"ruleset": LONG}, "ruleset"),
        ({"ruleset": "necromunda-2023", "seed": "s", "rulings": {LONG: "x"}}, "rulings"),
        ({"ruleset": "necromunda-2023", "seed": "s", "choices": {"c1/x": LONG}}, "choices"),
        (
            {
                "ruleset": "necromunda-2023",
                "seed": "s",
                "choices": {f"k{i}": "v" for i in range(1001)},
            },
            "choices",
        ),
        ({"ruleset": "necromunda-2023", "dice": [1] * 10_001}, "dice"),
        (
            {"ruleset": "necromunda-2023", "fair": True, "contributions": {"a": LONG}},
            "contributions",
        ),
    ],
)
def test_an_over_long_start_is_refused_naming_its_field(
    site: Site, client: Client, body: dict[str, Any], field: str
) -> None:
    before = site.written()
    r = client.post(START, json=body, headers=bearer(site.tables[1]))
    assert r.status_code == 400, r.text[:300]
    answer = r.json()
    assert answer["field"].startswith(field) and answer["written"] == 0, answer
    assert len(r.text) < 2000  # one clear error, not the text echoed back
    assert site.written() == before


def test_a_label_at_the_bound_is_kept_whole(site: Site, client: Client) -> None:
    label = "y" * 1000
    r = client.post(
        START,
        json={"ruleset": "necromunda-2023", "seed": "s", "label": label},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 201, r.text[:300]
    assert r.json()["label"] == label


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("commands", {"option": 0, "picks": {"x": LONG}}, "picks"),
        ("commands", {"option": 0, "choices": {LONG: "x"}}, "choices"),
        ("whatif", {"rulings": {"x": LONG}}, "rulings"),
        ("contributions", {"contributions": {LONG: "x"}}, "contributions"),
    ],
)
def test_over_long_text_on_a_battle_is_refused(  # noqa: PLR0913 - pytest parameters
    site: Site, client: Client, seeded_battle: str, path: str, body: dict[str, Any], field: str
) -> None:
    before = site.written()
    who = site.judge if path == "whatif" else site.tables[1]
    r = client.post(f"/api/battles/{seeded_battle}/{path}", json=body, headers=bearer(who))
    assert r.status_code == 400, r.text[:300]
    assert r.json()["field"].startswith(field), r.text[:300]
    assert site.written() == before
