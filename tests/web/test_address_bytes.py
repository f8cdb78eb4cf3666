"""A byte of an address that is not UTF-8 text (%FF) is shown in a refusal as ``bxb`` shows such a
byte of an argument, ``\\xff``: one escape style, not U+FFFD, a character nobody sent; a U+FFFD
that was sent (%EF%BF%BD) is shown as itself."""

from __future__ import annotations

from web_helpers import Client


def test_the_api_shows_a_byte_that_is_not_utf_8_as_the_cli_does(client: Client) -> None:
    r = client.get("/api/tournaments/a%FFb%EF%BF%BD")
    assert r.status_code == 404, r.text
    assert r.json()["message"].startswith("no tournament 'a\\xffb\ufffd'"), r.json()


def test_a_page_shows_a_byte_that_is_not_utf_8_as_the_cli_does(client: Client) -> None:
    r = client.get("/tournaments/%FF")
    assert r.status_code == 404, r.text
    assert "no tournament &#39;\\xff&#39;" in r.text or "no tournament '\\xff'" in r.text, r.text
    assert "\ufffd" not in r.text
