"""Helpers for the tournament server's tests: a store with two tournaments and their tokens, the
app over it, a live server on a loopback port (uvicorn in a thread), a listener to its
server-sent events and Debian's chromium."""

from __future__ import annotations

import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import uvicorn
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from litestar import Litestar
from litestar.testing import TestClient
from playwright.sync_api import Page, ViewportSize
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.engine.dice import ScriptedChoices, SeededDice
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.desk import DeskLimits
from blowbyblow.replay.store.log import BattleStore
from blowbyblow.web.access import Reading
from blowbyblow.web.app import create_app
from blowbyblow.web.tournament import TournamentStore

Client = TestClient[Litestar]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
PHONE = ViewportSize(width=390, height=844)  # a phone held upright


@dataclass
class Site:
    """A store holding tournament "spring" (3 tables) and "autumn" (1 table), with every token."""

    db: str
    store: BattleStore
    tournaments: TournamentStore
    tables: dict[int, str]  # spring's table tokens
    judge: str  # spring's judge
    autumn_table: str
    autumn_judge: str
    key: Ed25519PrivateKey

    def app(
        self, reading: Reading = "open", *, key: bool = True, odds: DeskLimits | None = None
    ) -> Litestar:
        return create_app(
            self.store, self.tournaments, key=self.key if key else None, reading=reading, odds=odds
        )

    def written(self) -> tuple[Any, ...]:
        """Everything a write could change: each battle and its version, each table's battles."""
        battles = tuple((b.battle, self.store.version(b.battle)) for b in self.store.battles())
        placed = tuple(
            (p.battle, p.finished)
            for slug in ("spring", "autumn")
            for p in self.tournaments.battles(slug)
        )
        return battles, placed


def make_site(folder: Path, db: str | None = None) -> Site:
    """The site in ``folder``'s SQLite file, or in the database ``db`` names (PostgreSQL)."""
    db = db or str(folder / "site.sqlite")
    store = BattleStore(db)
    tournaments = TournamentStore(db)
    tournaments.new_tournament("spring", "Spring Open")
    spring = tournaments.add_tables("spring", 3)
    tournaments.new_tournament("autumn")
    autumn = tournaments.add_tables("autumn", 1)
    return Site(
        db=db,
        store=store,
        tournaments=tournaments,
        tables=dict(spring.tables),
        judge=spring.judge_token,
        autumn_table=autumn.tables[0][1],
        autumn_judge=autumn.judge_token,
        key=Ed25519PrivateKey.generate(),
    )


def bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def started_at_two(site: Site, seed: str) -> str:
    """A Gangfight battle of seeded dice started at spring's table 2: its id."""
    with TestClient(site.app()) as c:
        r = c.post(
            "/api/tournaments/spring/tables/2/battles",
            json={"ruleset": "gangfight", "seed": seed},
            headers=bearer(site.tables[2]),
        )
        assert r.status_code == 201, r.text
        return str(r.json()["battle"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_server(app: Litestar, http: Any = "auto", access_log: bool = True) -> Iterator[str]:
    """The app served by uvicorn on a free loopback port, in a thread; yields its base URL.
    ``http``: uvicorn's HTTP protocol (``bxb serve``'s is ``web/guard.py``'s ``PatientHttp``).
    The socket is bound here and handed to uvicorn, so no other program can take the port
    between its choice and the bind (``free_port`` then a bind by uvicorn could lose it)."""
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    port = int(listening.getsockname()[1])
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=1,
        http=http,
        access_log=access_log,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listening.close()


@dataclass
class Heard:
    """What a listener read of a stream of server-sent events: its headers and its bytes."""

    headers: httpx.Headers | None = None
    bytes: bytes = b""

    def data(self) -> list[str]:
        """The notes' data lines, in the order heard."""
        lines = self.bytes.decode().split("\r\n")
        return [line.removeprefix("data: ") for line in lines if line.startswith("data:")]


@contextmanager
def listening(url: str, until: str = "played") -> Iterator[Heard]:
    """Listen to the server-sent events at ``url`` in a thread while the block runs: entered once
    the stream has sent its first bytes (the server holds the listener then, so what the block
    writes is heard), left once a whole note of kind ``until`` is read (or after 10 s)."""
    heard = Heard()
    ready = threading.Event()
    end = f"event: {until}".encode()

    def listen() -> None:
        with httpx.stream("GET", url, timeout=10) as r:
            heard.headers = r.headers
            for chunk in r.iter_raw():
                heard.bytes += chunk
                ready.set()
                if end in heard.bytes and heard.bytes.endswith(b"\r\n\r\n"):
                    return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert ready.wait(10), f"{url}: nothing heard"
    try:
        yield heard
    finally:
        thread.join(10)


def played_heard(base: str, stream: str, battle: str, token: str) -> tuple[Heard, httpx.Response]:
    """A command (the first option) played in ``battle`` through the server at ``base`` by the
    table holding ``token``, while listening to the stream at ``stream`` (a path): what was
    heard, and the command's answer (written)."""
    with listening(f"{base}{stream}") as heard:
        r = httpx.post(
            f"{base}/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(token)
        )
        assert r.status_code == 201, r.text
    return heard, r


def fresh_profile() -> str:
    return tempfile.mkdtemp(prefix="bxb-chromium-")


def phone(p: Any) -> Any:
    """A phone held upright: Debian's chromium at 390x844, touch, a fresh profile."""
    context = p.chromium.launch_persistent_context(
        fresh_profile(),
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
    )
    context.set_default_timeout(15_000)
    return context


def close_page(page: Page) -> None:
    """Close a page, asking again until it is gone. Chromium can acknowledge a close that races
    a navigation's commit and leave the page open (crbug.com/536385539; Playwright issue #42068):
    ``page.close()`` then waits forever, as it did when a table page reloaded on a note from the
    other phone just as the test closed it. Closing with the page's unload handlers run returns
    at once; the page's close event is awaited a bounded time and the close asked again."""
    for _ in range(10):
        if page.is_closed():
            return
        try:
            with page.expect_event("close", timeout=2_000):
                page.close(run_before_unload=True)  # bxb.js's handler only closes its stream
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"{page.url} would not close: asked ten times")


def ready(page: Page) -> Page:
    """Wait for a page whose scripts run once it is on screen (the judge's viewer: its body's
    ``data-after-paint``) to say they have run: before that, a tap or a key does nothing; and
    that none of them failed to come (it would say which, ``data-failed``)."""
    page.locator("body[data-ready]").wait_for(state="attached")
    failed = page.get_attribute("body", "data-failed")
    assert failed is None, f"{page.url}: its scripts {failed} did not load"
    return page


def grow(store: BattleStore, battle: UUID, until: int, seed: str = "long") -> None:
    """Play Gangfight commands in ``battle`` (seeded dice, the rules' options taken in turn) until
    it has at least ``until`` events, a hundred commands to a transaction: a long battle made
    quickly, for the tests that read one (how it is written is not what they test)."""
    system = get_game_system("gangfight")
    head = Battle(store).read(battle)
    table = Table(
        system=system,
        rulings=head.started.rulings,
        dice=SeededDice(seed),
        choices=ScriptedChoices({}),
        quiet=True,
    )
    state, version, index = head.state, head.version, head.commands
    pending: list[Any] = []
    while version + len(pending) < until:
        index += 1
        options = system.legal_commands(state, head.started.rulings)
        command = system.build_command(options[index % len(options)], {})
        result = table.adjudicate(state, command, index, first_position=version + len(pending) + 1)
        pending.extend(result.events)
        state = result.state
        if index % 100 == 0:
            store.append(battle, system.id, version, pending)
            version, pending = version + len(pending), []
    if pending:
        store.append(battle, system.id, version, pending)
