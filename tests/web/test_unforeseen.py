"""An error the server did not foresee (a bug, a store failing in a way no refusal names): the
API answers its own error shape (``ErrorBody``, 500) and a page the refusal page (500), with
nothing of the error's detail; its traceback is logged once, with structlog (docs/web.md)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
import structlog
from litestar.testing import TestClient
from web_helpers import make_site

from blowbyblow.replay.engine import logs

SECRET = "the store's inner detail 7f3a"


def _boom(*_: Any, **__: Any) -> Any:
    raise RuntimeError(SECRET)


@pytest.mark.parametrize(("url", "page"), [("/api/battles", False), ("/", True)])
def test_an_unforeseen_error_is_answered_in_the_servers_own_shape(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    url: str,
    page: bool,
) -> None:
    site = make_site(tmp_path)
    app = site.app()
    monkeypatch.setattr(site.store, "battles", _boom)  # the test's fault: the store's read fails
    caplog.set_level(logging.DEBUG)
    with (
        TestClient(app, raise_server_exceptions=False) as c,
        structlog.testing.capture_logs() as logs,
    ):
        r = c.get(url)
    assert r.status_code == 500, r.text
    assert SECRET not in r.text and "Traceback" not in r.text
    if page:
        assert r.headers["content-type"].startswith("text/html"), r.headers
        assert "500" in r.text and "the server failed" in r.text, r.text
    else:
        body = r.json()
        assert set(body) == {"status", "field", "rule", "message", "written"}, body
        assert body["status"] == 500 and body["written"] == 0, body
        assert "the server failed" in body["message"], body
        # 0 written, but a fault may come after a write: the client is told to read again
        assert "read the battle again before sending it again" in body["message"], body
    faults = [e for e in logs if e.get("log_level") in ("error", "critical", "exception")]
    assert len(faults) == 1, logs
    assert faults[0].get("exc_info") and faults[0].get("path") == url, faults
    # once: not again by Litestar's or the ASGI server's own logging
    told = [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert not told, [r.getMessage() for r in told]


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "console"])
def test_its_traceback_is_logged_whole_without_local_values(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    as_json: bool,
) -> None:
    """``--log-json``: the traceback as text in the line (it was the exception's repr alone);
    on a console: the traceback without each frame's local values (a request's token, the
    judges' key), as structlog would print them by default."""
    site = make_site(tmp_path)
    app = site.app()
    token = site.judge

    def boom(*_: Any, **__: Any) -> Any:
        secret = token  # a local value of the failing frame
        raise RuntimeError(SECRET + secret[:0])

    monkeypatch.setattr(site.store, "battles", boom)
    logs.configure(json=as_json, level="warning")
    try:
        with TestClient(app, raise_server_exceptions=False) as c:
            capsys.readouterr()
            assert c.get("/api/battles").status_code == 500
        err = capsys.readouterr().err
    finally:
        logs.configure(json=False, level="warning")
    assert "unforeseen error" in err and "Traceback" in err and SECRET in err, err[-2000:]
    assert "in boom" in err or "boom" in err, err[-2000:]
    assert token not in err, "a local value of a frame is logged"
    if as_json:
        (line,) = [json.loads(x) for x in err.splitlines() if "unforeseen error" in x]
        assert "RuntimeError" in line["exception"], line
