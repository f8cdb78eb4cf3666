"""What the server refuses or adds around every handler (issue 26, hole 7): a body that is not
JSON is refused before anything runs (a form on another site cannot post, whatever cookie its
browser sends), every answer carries the page policy (Content-Security-Policy: this server's own
scripts and style sheets only), and a request left half-sent is closed."""

from __future__ import annotations

import base64
import hashlib
import socket
import time

import pytest
from web_helpers import Client, Site, bearer, live_server

from blowbyblow.web.guard import CSP, PatientHttp

START = "/api/tournaments/spring/tables/1/battles"


@pytest.mark.parametrize(
    "kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
)
def test_a_body_that_is_not_json_is_refused_with_the_cookie_and_nothing_is_written(
    site: Site, client: Client, kind: str
) -> None:
    client.cookies.set("bxb_token", site.tables[1])
    before = site.written()
    r = client.post(
        START, content=b'{"ruleset": "necromunda-2023"}', headers={"Content-Type": kind}
    )
    assert r.status_code == 415, r.text
    assert r.json()["field"] == "Content-Type" and "nothing was written" in r.json()["message"]
    assert site.written() == before
    r = client.post(START, json={"ruleset": "necromunda-2023"})  # the same, as JSON
    assert r.status_code == 201, r.text


def test_a_post_with_no_body_needs_no_type(site: Site, client: Client, seeded_battle: str) -> None:
    r = client.post(f"/api/battles/{seeded_battle}/finish", headers=bearer(site.tables[1]))
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    "path",
    ["/", "/tournaments/spring", "/api/battles", "/static/bxb.js", "/battles/no-such-battle"],
)
def test_every_answer_carries_the_page_policy(client: Client, path: str) -> None:
    r = client.get(path)
    assert r.headers.get("content-security-policy") == CSP, (path, r.status_code)
    assert "script-src 'self' 'sha256-" in CSP and "unsafe-inline" not in CSP


def test_the_pages_have_no_inline_script_nor_style(site: Site, client: Client) -> None:
    """What the policy forbids the pages do not do (else they would break in a browser): no
    inline script but the viewer's loader of its scripts, no inline style but the viewer's style
    sheets, each of which the policy allows by its hash."""
    r = client.post(
        START, json={"ruleset": "necromunda-2023", "seed": "csp"}, headers=bearer(site.tables[1])
    )
    battle = r.json()["battle"]
    for path in ("/", "/tournaments/spring", "/tournaments/spring/tables/1", f"/battles/{battle}"):
        html = client.get(path, headers=bearer(site.tables[1])).text
        assert "style=" not in html, path
        for block in html.split("<style")[1:]:  # only the one the policy allows, by its hash
            text = block.split(">", 1)[1].split("</style>", 1)[0]
            digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in CSP and path == f"/battles/{battle}", path
        scripts = [s for s in html.split("<script")[1:] if "src=" not in s.split(">", 1)[0]]
        for block in scripts:
            attributes, text = block.split(">", 1)
            if 'type="application/json"' in attributes:
                continue  # data, which no browser runs
            text = text.split("</script>", 1)[0]  # only the one the policy allows, by its hash
            digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in CSP and path == f"/battles/{battle}", path
    for name in ("bxb.js", "table.js", "viewer.js", "dashboard.js"):
        assert 'style="' not in client.get(f"/static/{name}").text, name


class _Quick(PatientHttp):
    patience = 0.5


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass  # a 4xx answer, then the close
    except TimeoutError:
        return False
    except ConnectionResetError:
        pass
    return True


@pytest.mark.parametrize(
    "half",
    [
        b"",
        b"GET /api/battles HTTP/1.1\r\nHost: x\r\n",
        b"POST /api/import HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"text": ',
    ],
    ids=["nothing", "headers", "body"],
)
def test_a_request_left_half_sent_is_closed(site: Site, half: bytes) -> None:
    with live_server(site.app(), http=_Quick) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(half)
            assert _closed_within(sock, 5.0)
        with socket.create_connection(("127.0.0.1", port)) as sock:  # a whole one is answered
            sock.sendall(b"GET /api/battles HTTP/1.1\r\nHost: x\r\n\r\n")
            sock.settimeout(5)
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            time.sleep(1.0)  # idle after its answer: kept alive (uvicorn's 5 s), not cut at 0.5
            sock.sendall(b"GET /api/battles HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
