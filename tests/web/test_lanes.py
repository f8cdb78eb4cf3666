"""The hot routes (a command, each typed die of it, the options before it) are served by a lane
(``web/lane.py``) below Litestar's request machinery, and say exactly what Litestar's own way
says: every refusal the same status, headers and bytes, a command's answers the same, the
OpenAPI document unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar, Request
from litestar._parsers import parse_cookie_string
from litestar._signature.model import SignatureModel
from litestar.datastructures import Headers
from litestar.handlers import HTTPRouteHandler
from litestar.testing import TestClient
from web_helpers import Site, bearer

from blowbyblow.web import api
from blowbyblow.web.access import COOKIE, _plain_cookie

LANED = (api.play_command, api.battle_legal)


@pytest.fixture
def two(site: Site) -> Iterator[tuple[TestClient[Litestar], TestClient[Litestar]]]:
    """The app as served (lanes on) and the same app over the same store with its lanes taken
    off, Litestar's own way."""
    laned = site.app()
    kept = [h.middleware for h in LANED]
    for handler in LANED:
        handler.middleware = []
    try:
        plain = site.app()
    finally:
        for handler, middleware in zip(LANED, kept, strict=True):
            handler.middleware = middleware
    with TestClient(laned) as a, TestClient(plain) as b:
        yield a, b


def _battle(client: TestClient[Litestar], site: Site, table: int = 1) -> str:
    r = client.post(
        f"/api/tournaments/spring/tables/{table}/battles",
        json={"ruleset": "necromunda-2023", "seed": "lanes"},
        headers=bearer(site.tables[table]),
    )
    assert r.status_code == 201, r.text
    return str(r.json()["battle"])


def _said(r: Any) -> tuple[int, list[tuple[str, str]], bytes]:
    return r.status_code, sorted(r.headers.items()), r.content


def test_every_refusal_and_question_is_litestars_own(
    site: Site, two: tuple[TestClient[Litestar], TestClient[Litestar]]
) -> None:
    laned, plain = two
    battle = _battle(laned, site)
    table, other = bearer(site.tables[1]), bearer(site.tables[2])
    json = {"Content-Type": "application/json"}
    commands = f"/api/battles/{battle}/commands"
    asked: list[tuple[str, str, dict[str, str], bytes | None]] = [
        ("GET", f"/api/battles/{battle}/legal", {}, None),
        ("GET", f"/api/battles/{battle[:8]}/legal", {}, None),
        ("GET", "/api/battles/no-such-battle/legal", {}, None),
        ("POST", commands, json, b'{"option": 0}'),  # no token
        ("POST", commands, {**json, "Authorization": "Bearer nonsense"}, b'{"option": 0}'),
        ("POST", commands, {**json, **other}, b'{"option": 0}'),
        ("POST", "/api/battles/no-such-battle/commands", {**json, **table}, b'{"option": 0}'),
        ("POST", commands, {**json, **table}, b'{"option": 99}'),
        ("POST", commands, {**json, **table}, b'{"option": 0, "version": 7}'),
        ("POST", commands, {**json, **table}, b'{"option": 0, "dice": [9, 9, 9, 9, 9, 9]}'),
        ("POST", commands, {**json, **table}, b'{"option": 0, "ask": true}'),
        ("POST", commands, {**json, **table}, b'{"option": 0, "ask": true, "dice": [3]}'),
        ("POST", commands, {**json, **table}, b'{"option": "x"}'),
        ("POST", commands, {**json, **table}, b'{"option": 0, "unheard": 1}'),
        ("POST", commands, {**json, **table}, b'{"option": '),
        ("POST", commands, {**json, **table}, b'{"option": 0, "label": "\xff"}'),
        ("POST", commands, {**json, **table}, b"[" * 5000 + b"]" * 5000),
        # deep inside a field the type leaves open (``command``): msgspec's RecursionError
        (
            "POST",
            commands,
            {**json, **table},
            b'{"command": {"a": ' + b"[" * 5000 + b"]" * 5000 + b"}}",
        ),
        ("POST", commands, {**json, **table}, b"null"),
        ("POST", commands, {**table, "Content-Type": "text/plain"}, b'{"option": 0}'),
        ("POST", commands, {**table}, b""),
        ("POST", commands, {**json, **table}, b'{"option": 0, "version": "stale"}'),
    ]
    before = site.written()
    for method, path, headers, body in asked:
        a = laned.request(method, path, headers=headers, content=body)
        b = plain.request(method, path, headers=headers, content=body)
        assert _said(a) == _said(b), (method, path, body)
        assert a.status_code in (200, 400, 401, 403, 404, 409, 415, 422), (body, a.text)
    assert site.written() == before  # none of these wrote anything, either way


def test_a_command_written_is_answered_alike(
    site: Site, two: tuple[TestClient[Litestar], TestClient[Litestar]]
) -> None:
    laned, plain = two
    answers = []
    for table, client in enumerate((laned, plain), start=1):
        battle = _battle(client, site, table)
        r = client.post(
            f"/api/battles/{battle}/commands",
            json={"option": 0, "page": True},
            headers=bearer(site.tables[table]),
        )
        assert r.status_code == 201, r.text
        answers.append(r)
    a, b = answers
    assert sorted(k for k in a.headers if k != "content-length") == sorted(
        k for k in b.headers if k != "content-length"
    )
    assert a.headers["content-type"] == b.headers["content-type"] == "application/json"
    assert a.json().keys() == b.json().keys()
    assert a.json()["page"].keys() == b.json()["page"].keys()


def test_the_openapi_document_is_unchanged(
    two: tuple[TestClient[Litestar], TestClient[Litestar]],
) -> None:
    laned, plain = two
    document = laned.get("/schema/openapi.json").json()
    assert document == plain.get("/schema/openapi.json").json()
    assert "post" in document["paths"]["/api/battles/{battle}/commands"]
    assert "get" in document["paths"]["/api/battles/{battle}/legal"]


def test_the_common_case_skips_litestars_signature_model(
    site: Site,
    two: tuple[TestClient[Litestar], TestClient[Litestar]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the lane is for: a well-formed command and the options read before it are not
    worked out by Litestar's signature model (the request's arguments made from its path and
    body); a body the lane cannot read strictly still is, as before."""
    laned, plain = two
    parsed: list[str] = []
    parse = SignatureModel.parse_values_from_connection_kwargs.__func__  # type: ignore[attr-defined]

    def counted(cls: type[SignatureModel], connection: Any, kwargs: dict[str, Any]) -> Any:
        parsed.append(connection.scope["path"])
        return parse(cls, connection=connection, kwargs=kwargs)

    monkeypatch.setattr(SignatureModel, "parse_values_from_connection_kwargs", classmethod(counted))
    battle = _battle(laned, site)
    parsed.clear()
    table = bearer(site.tables[1])
    for client in (laned, plain):
        assert client.get(f"/api/battles/{battle}/legal").status_code == 200
        version = client.get(f"/api/battles/{battle}/legal").json()["version"]
        r = client.post(
            f"/api/battles/{battle}/commands",
            json={"option": 0, "version": version},
            headers=table,
        )
        assert r.status_code == 201, r.text
        if client is laned:
            assert parsed == []  # the lane served all three
    assert len(parsed) == 3  # Litestar's way, each worked out
    parsed.clear()
    r = laned.post(
        f"/api/battles/{battle}/commands", json={"option": "0", "version": 99}, headers=table
    )
    assert r.status_code == 409, r.text  # "0" read as 0 by Litestar's lax conversion
    assert parsed == [f"/api/battles/{battle}/commands"]


def test_the_common_case_makes_no_header_map(
    site: Site,
    two: tuple[TestClient[Litestar], TestClient[Litestar]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A well-formed command, a typed die of it and the options before it read the token and the
    body's length from the request's header list as sent: Litestar's header map of every header
    (``Headers``, a case-insensitive multidict) is not made for them (issue 25: about 40 K
    instructions a request), by the lane or by Litestar's way; a cookie sent is still read by
    Litestar's own parser, from its map."""
    laned, plain = two
    made: list[int] = []
    init = Headers.__init__

    def counted(self: Headers, *args: Any, **kwargs: Any) -> None:
        made.append(1)
        init(self, *args, **kwargs)

    monkeypatch.setattr(Headers, "__init__", counted)
    for number, client in ((1, laned), (2, plain)):
        table = bearer(site.tables[number])
        r = client.post(
            f"/api/tournaments/spring/tables/{number}/battles",
            json={"ruleset": "gangfight"},  # physical dice: typed, one request a roll
            headers=table,
        )
        assert r.status_code == 201, r.text
        battle = r.json()["battle"]
        made.clear()
        legal = client.get(f"/api/battles/{battle}/legal").json()
        body = {"option": 0, "version": legal["version"], "ask": True}
        r = client.post(f"/api/battles/{battle}/commands", json=body, headers=table)
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "needs"
        assert made == []  # both ways: the two reads are the server's own (web/guard.py)
    token = site.tables[2]
    commands = f"/api/battles/{battle}/commands"
    r = laned.post(commands, json=body, headers={"Cookie": f"a=b; {COOKIE}={token}"})
    assert r.status_code == 200, r.text  # the page's phones: the token in its cookie
    r = laned.post(commands, json=body, headers={"Cookie": "a=b"})
    assert r.status_code == 401, r.text  # a cookie, not the token's
    assert made == []
    r = laned.post(commands, json=body, headers={"Cookie": f'{COOKIE}="{token}"'})
    assert r.status_code == 200, r.text  # quoted: Litestar's parser reads it, from its map
    assert made == [1]


@pytest.mark.parametrize(
    "cookie",
    [
        "",
        "a=b",
        f"{COOKIE}=tok",
        f" {COOKIE} = tok ; a=b",
        f"a=b;{COOKIE}=tok;c",
        f"{COOKIE}=",
        f"{COOKIE}",
        f'{COOKIE}="tok"',
        f"{COOKIE}=t%41k",
        f"{COOKIE}=t\\k",
        f"{COOKIE}=one; {COOKIE}=two",
        f"x{COOKIE}=tok",
        f"{COOKIE}=to=k",
    ],
)
def test_a_plain_cookie_is_read_as_litestar_reads_it(cookie: str) -> None:
    """The token read from a cookie header without Litestar's parser is the value Litestar's
    parser gives, or is left to it (None)."""
    plain = _plain_cookie(cookie)
    if plain is not None:
        assert plain == (parse_cookie_string(cookie).get(COOKIE) or "")
    else:
        assert any(c in cookie for c in '"\\%') or cookie.count(f"{COOKIE}=") > 1


def test_the_lane_reads_the_body_itself_and_hands_it_on(
    site: Site,
    two: tuple[TestClient[Litestar], TestClient[Litestar]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A well-formed command's body is read from its request's message by the lane, not through
    Litestar's stream (issue 25: about 20 K instructions a command); a body over the route's limit
    is refused by Litestar's own 413, the lane's reading handed on to it, byte for byte as
    Litestar's way refuses it."""
    laned, plain = two
    streamed: list[str] = []
    stream = Request.stream

    def counted(self: Request[Any, Any, Any]) -> Any:
        streamed.append(self.scope["path"])
        return stream(self)

    monkeypatch.setattr(Request, "stream", counted)
    battle = _battle(laned, site)
    table = bearer(site.tables[1])
    version = laned.get(f"/api/battles/{battle}/legal").json()["version"]
    commands = f"/api/battles/{battle}/commands"
    streamed.clear()  # the battle's start: not a lane's
    r = laned.post(commands, json={"option": 0, "version": version, "ask": True}, headers=table)
    assert r.status_code in (200, 201), r.text
    assert streamed == []
    monkeypatch.setattr(
        HTTPRouteHandler, "resolve_request_max_body_size", lambda self: 20, raising=True
    )
    big = {"option": 0, "version": version, "choices": {"a": "b" * 30}}
    said = [_said(c.post(commands, json=big, headers=table)) for c in (laned, plain)]
    assert said[0] == said[1]
    assert said[0][0] == 413
    assert streamed == [commands, commands]  # Litestar's way read it, the lane's reading given
