"""Every route that reads a body (read from the app itself, so a new one is tried without being listed
here), sent bodies a careless or hostile device sends: not JSON, not UTF-8, nested ten thousand
deep, NaN, an integer of five thousand digits, a lone surrogate, the wrong kind of value. Each is
refused with a 4xx answer naming what was wrong, and nothing is written; never a 500 (bytes not
UTF-8 and deep nesting each ended every JSON route in one)."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from web_helpers import Client, Site, bearer

BODIES = {
    "not JSON": b'{"label": ',
    "not UTF-8": b'{"label": "\xff"}',
    # in a field the route reads (a command's picks, a void's reason): the bytes are decoded as
    # the field is, past the fields a route refuses as unknown (a 500 at the commands' lane)
    "not UTF-8 in a command's picks": b'{"picks": {"a": "\xff"}}',
    "not UTF-8 in a reason": b'{"reason": "\xff"}',
    "nested deep": b"[" * 10_000 + b"]" * 10_000,
    # deep inside a field a type leaves open (a command's ``command``): a RecursionError where the
    # field is read, not where the body is
    "nested deep in a field": b'{"command": {"a": ' + b"[" * 10_000 + b"]" * 10_000 + b"}}",
    "NaN": b"NaN",
    "5000 digits": b"1" + b"0" * 5000,
    "a lone surrogate": b'{"label": "\\udcff"}',
    "null": b"null",
    "an array": b"[]",
    "a string": b'"x"',
    "fields of the wrong type": b'{"ruleset": 1, "command": 5, "option": "x", "reason": []}',
}
START = "/api/tournaments/spring/tables/1/battles"


def write_routes(app: Litestar) -> list[tuple[str, str]]:
    """Each method and path whose handler reads a request body (``data``)."""
    found = set()
    for route in app.routes:
        for method, handler in getattr(route, "route_handler_map", {}).items():
            handler = handler[0] if isinstance(handler, tuple) else handler
            if "data" in handler.parsed_fn_signature.parameters:
                found.add((method, route.path))
    return sorted(found)


def filled(path: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        for kind in ("str", "int", "uuid"):
            path = path.replace(f"{{{name}:{kind}}}", value)
    assert "{" not in path, f"a path parameter this test does not fill: {path}"
    return path


def test_bad_bodies_to_every_write_route_are_refused(site: Site, client: Client) -> None:
    r = client.post(
        START, json={"ruleset": "necromunda-2023", "seed": "b"}, headers=bearer(site.tables[1])
    )
    assert r.status_code == 201, r.text
    values = {"battle": str(r.json()["battle"]), "slug": "spring", "table": "1"}
    values["ruleset"] = "necromunda-2023"
    routes = write_routes(client.app)
    assert len(routes) > 15, routes  # the app's routes were read, not none
    findings: list[str] = []
    for method, path in routes:
        url = filled(path, values)
        for who, token in (("judge", site.judge), ("table", site.tables[1])):
            for what, body in BODIES.items():
                before = site.written()
                answer = client.request(
                    method,
                    url,
                    content=body,
                    headers={**bearer(token), "Content-Type": "application/json"},
                )
                case = f"{method} {path} as the {who}, {what}: {answer.status_code}"
                if not 400 <= answer.status_code < 500:
                    findings.append(f"{case} {answer.text[:200]}")
                elif site.written() != before:
                    findings.append(f"{case}, and written")
                else:
                    _refusal_names_its_fault(answer.json(), case, findings)
    assert not findings, f"{len(findings)} finding(s):\n" + "\n".join(findings[:20])


def _refusal_names_its_fault(answer: Any, case: str, findings: list[str]) -> None:
    """The server's refusals say what was wrong: a message (or Litestar's detail), one short
    answer, not the body echoed back."""
    said = answer.get("message") or answer.get("detail") if isinstance(answer, dict) else None
    if not said or len(str(answer)) > 2000:
        findings.append(f"{case}: {str(answer)[:200]}")


@pytest.mark.parametrize(("what", "said"), [("not UTF-8", "not UTF-8"), ("nested deep", "deep")])
def test_a_body_json_cannot_read_is_named(site: Site, client: Client, what: str, said: str) -> None:
    answer = client.post(
        START,
        content=BODIES[what],
        headers={**bearer(site.tables[1]), "Content-Type": "application/json"},
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["field"] == "body" and said in answer.json()["message"]


@pytest.mark.parametrize("name", ["%00", "x" * 300, "a/" + "y" * 5000 + ".js"])
def test_a_static_file_name_no_file_may_have_is_no_file(client: Client, name: str) -> None:
    """A name holding NUL or longer than a file's name may be: 404, never a 500 (the file
    system's ValueError or 'File name too long')."""
    answer = client.get(f"/static/{name}")
    assert answer.status_code == 404, answer.text[:200]
    assert client.get("/static/bxb.js").status_code == 200


def test_a_body_that_is_not_json_is_named_as_the_body(site: Site, client: Client) -> None:
    """Litestar's own refusal of a body it cannot read (the commands' lane reads it first, then
    hands it over) names the body, not the path ("a route of this server")."""
    answer = client.post(
        "/api/battles/b/commands",
        content=b"not json",
        headers={**bearer(site.tables[1]), "Content-Type": "application/json"},
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["field"] == "body" and "JSON" in answer.json()["message"]


def test_a_method_a_route_does_not_take_is_named(client: Client) -> None:
    answer = client.get("/api/battles/b/commands")
    assert answer.status_code == 405, answer.text
    assert answer.json()["field"] == "method"
