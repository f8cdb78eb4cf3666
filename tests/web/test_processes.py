"""Several server processes on one PostgreSQL database serve one tournament (issue 25): the live
notes of each reach the pages of every other through the database's LISTEN/NOTIFY
(``web/relay.py``), and what a process keeps in memory (battles at their head, paused runs,
tokens, the tables' places) stays right when another process writes.

The first test runs two real ``bxb serve`` processes with racing phones on both; the others run
two apps in this process, each with its own store, register and relay, as two processes would
have, to watch what each keeps."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import httpx
import psycopg
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from web_helpers import Site, bearer, free_port, make_site

from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore
from blowbyblow.web.api import Server
from blowbyblow.web.tournament import TournamentStore

from pgserver import postgres_server

RULESET = "gangfight"  # always offers a command: the phones play as long as asked
COMMANDS = 4  # per table


@pytest.fixture(scope="module")
def pg() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture
def db(pg: str) -> str:
    name = f"bxb_{uuid4().hex[:12]}"
    with psycopg.connect(pg, autocommit=True) as con:
        con.execute(f"create database {name}")
    return pg.rsplit("/", 1)[0] + "/" + name


def waited(done: Callable[[], bool], what: str, patience: float = 60.0) -> None:
    """Wait until ``done()`` (a guard against a hang, not a measure: the test asserts after)."""
    deadline = time.monotonic() + patience
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting for {what} after {patience:.0f} s")
        time.sleep(0.02)


# --- two real processes ------------------------------------------------------------------------


def serve(db: str, folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = ["-m", "blowbyblow.cli.main", "--db", db, "--log-level", "warning", "serve"]
    process = subprocess.Popen(
        [sys.executable, *command, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={
            **os.environ,
            "XDG_CONFIG_HOME": str(folder / "config"),  # no judge's key: no receipts
            "XDG_DATA_HOME": str(folder / "data"),
        },
    )
    return process, f"http://127.0.0.1:{port}"


def up(process: subprocess.Popen[bytes], base: str) -> None:
    def answers() -> bool:
        assert process.poll() is None, "bxb serve stopped"
        try:
            return httpx.get(f"{base}/api/rulesets", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    waited(answers, f"bxb serve at {base}")


def serving(db: str, folder: Path, tries: int = 3) -> tuple[subprocess.Popen[bytes], str]:
    """``bxb serve`` up and answering. Its port was free a moment before it starts, but another
    program may take it meanwhile (an outgoing connection draws from the same range): a server
    that stopped on a port now in use starts again on another one, rather than fail the test."""
    for attempt in range(tries):
        process, base = serve(db, folder)
        try:
            up(process, base)
            return process, base
        except AssertionError:
            process.terminate()
            process.wait(timeout=30)
            if attempt == tries - 1 or not _taken(int(base.rsplit(":", 1)[1])):
                raise
    raise AssertionError("unreachable")


def _taken(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


class Stream(threading.Thread):
    """A judge's (or a table page's) server-sent events: each note of a command played."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.played: list[tuple[str, int]] = []
        self.ready = threading.Event()
        self.stop = False

    def run(self) -> None:
        try:
            self._listen()
        except httpx.HTTPError:  # the server stopped at the test's end
            return

    def _listen(self) -> None:
        with httpx.stream("GET", self.url, timeout=None) as r:
            event = ""
            for line in r.iter_lines():
                if self.stop:
                    return
                if line.startswith(":"):
                    self.ready.set()
                elif line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "played":
                    note = json.loads(line[6:])
                    self.played.append((note["battle"], int(note["version"])))


@dataclass
class Table:
    battle: str
    token: str
    physical: bool  # its dice typed, a roll a request
    written: list[int] = field(default_factory=list)  # the commands a phone was told written


def phone(base: str, table: Table, errors: list[str]) -> None:
    """Read what the rules offer, play the first option from that version; beaten (409): read
    again. Physical dice are typed one request a roll, as the table page sends them."""
    battle, written, physical = table.battle, table.written, table.physical
    with httpx.Client(base_url=base, timeout=60, headers=bearer(table.token)) as client:
        die = 0
        while len(written) < COMMANDS:
            legal = client.get(f"/api/battles/{battle}/legal").json()
            body: dict[str, Any] = {"option": 0, "version": legal["version"], "choices": {}}
            if physical:
                body["dice"] = []
            for _ in range(100):
                r = client.post(f"/api/battles/{battle}/commands", json=body)
                if r.status_code == 201:
                    issued = [e for e in r.json()["events"] if e["type"] == "CommandIssued"]
                    written.append(int(issued[0]["event"]["index"]))
                    break
                if r.status_code == 409:
                    break
                if r.status_code != 200:
                    errors.append(f"{r.status_code} {r.text[:300]}")
                    return
                need = r.json()["need"]
                if need["kind"] == "dice":
                    die += 1
                    body["dice"].append(1 + die % need["sides"])  # one die a request
                else:
                    body["choices"][need["key"]] = need["default"]


def played_through(
    client: TestClient[Litestar], battle: str, body: dict[str, Any], headers: dict[str, str]
) -> Any:
    """The command in ``body`` played through at ``client``, a die a request (every die a 1,
    every choice its default, added to ``body``): the answer that wrote it."""
    while True:
        r = client.post(f"/api/battles/{battle}/commands", json=body, headers=headers)
        if r.status_code == 201:
            return r
        need = r.json()["need"]
        if need["kind"] == "dice":
            body["dice"].append(1)
        else:
            body["choices"][need["key"]] = need["default"]


def test_two_server_processes_serve_one_tournament(db: str, tmp_path: Path) -> None:
    tournaments = TournamentStore(db)
    tournaments.new_tournament("spring")
    tables = dict(tournaments.add_tables("spring", 4).tables)
    BattleStore(db)  # the store's tables made before two servers start at once
    servers: list[tuple[subprocess.Popen[bytes], str]] = []
    try:
        servers.extend(serving(db, tmp_path) for _ in range(2))
        (_, a), (_, b) = servers
        battles: dict[int, str] = {}
        for number, token in tables.items():
            seeded = {} if number > 2 else {"seed": f"t{number}"}  # tables 3 and 4 type dice
            r = httpx.post(
                f"{[a, b][number % 2]}/api/tournaments/spring/tables/{number}/battles",
                json={"ruleset": RULESET, **seeded},
                headers=bearer(token),
            )
            assert r.status_code == 201, r.text
            battles[number] = r.json()["battle"]
        judge = Stream(f"{b}/api/tournaments/spring/stream")  # hears through B only
        table = Stream(f"{a}/api/tournaments/spring/tables/1/stream")  # table 1's page, on A
        for stream in (judge, table):
            stream.start()
            assert stream.ready.wait(30)
        played = {n: Table(battles[n], tables[n], physical=n > 2) for n in tables}
        written = {n: played[n].written for n in tables}
        errors: list[str] = []
        phones = [
            threading.Thread(target=phone, args=(base, played[n], errors))
            for n in tables
            for base in (a, b)  # two phones a table, one on each server, racing
        ]
        for t in phones:
            t.start()
        for t in phones:
            t.join(timeout=300)
        assert not errors, errors
        total = sum(len(w) for w in written.values())
        waited(lambda: len(judge.played) >= total, "the judge's notes")
        waited(lambda: len(table.played) >= len(written[1]), "table 1's notes")
        time.sleep(0.5)  # a note sent twice would come now
        judge.stop = table.stop = True
    finally:
        for process, _ in servers:
            process.terminate()
            process.wait(timeout=30)
    store = BattleStore(db)
    for number, battle in battles.items():
        bid = UUID(battle)
        issued = [e.event.index for e in store.read(bid) if isinstance(e.event, CommandIssued)]
        assert sorted(written[number]) == issued == list(range(1, len(issued) + 1)), number
        assert len(issued) >= COMMANDS
        assert verify_battle(store, bid).ok
    # the judge on B heard every command, those written through A too, each once
    versions = {(battles[n], v) for n in tables for v in _versions(store, battles[n])}
    assert sorted(judge.played) == sorted(versions)
    assert sorted(table.played) == sorted(v for v in versions if v[0] == battles[1])


def _versions(store: BattleStore, battle: str) -> list[int]:
    """The version the battle was at right after each of its commands."""
    events = store.read(UUID(battle))
    starts = [i for i, e in enumerate(events) if isinstance(e.event, CommandIssued)]
    return [s for s in starts[1:]] + [len(events)]


# --- two apps in this process, each with what a process keeps ---------------------------------


def second(site: Site) -> Litestar:
    """Another process's app over the same database: its own store, register and relay."""
    return create_other(site.db, site)


def create_other(db: str, site: Site) -> Litestar:
    from blowbyblow.web.app import create_app

    return create_app(BattleStore(db), TournamentStore(db), key=site.key)


def relay_of(app: Litestar) -> Any:
    srv = app.state.server
    assert isinstance(srv, Server) and srv.hub.relay is not None
    return srv.hub.relay


@pytest.fixture
def two(
    db: str, tmp_path: Path
) -> Iterator[tuple[Site, TestClient[Litestar], TestClient[Litestar]]]:
    site = make_site(tmp_path, db)
    with TestClient(site.app()) as a, TestClient(second(site)) as b:
        for c in (a, b):
            relay = relay_of(c.app)
            assert relay.listening.wait(30)
        yield site, a, b


def _heard_after(client: TestClient[Litestar], before: int) -> None:
    relay = relay_of(client.app)
    waited(lambda: relay.heard > before, "the other process's note")


def test_a_token_revoked_through_one_process_is_refused_by_the_other(
    two: tuple[Site, TestClient[Litestar], TestClient[Litestar]],
) -> None:
    site, a, b = two
    start = {"ruleset": RULESET, "seed": "revoke"}
    r = a.post(
        "/api/tournaments/spring/tables/1/battles", json=start, headers=bearer(site.tables[1])
    )
    assert r.status_code == 201, r.text  # A now trusts table 1's token
    battle = r.json()["battle"]
    before = relay_of(a.app).heard
    r = b.delete("/api/tournaments/spring/tables/1/token", headers=bearer(site.judge))
    assert r.status_code == 200, r.text
    _heard_after(a, before)
    r = a.post(
        f"/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(site.tables[1])
    )
    assert r.status_code == 401, r.text


def test_a_battle_ended_through_one_process_is_voided_only_by_the_judge_on_the_other(
    two: tuple[Site, TestClient[Litestar], TestClient[Litestar]],
) -> None:
    site, a, b = two
    t1 = bearer(site.tables[1])
    r = a.post(
        "/api/tournaments/spring/tables/1/battles",
        json={"ruleset": RULESET, "seed": "e"},
        headers=t1,
    )
    battle = r.json()["battle"]
    assert (
        a.post(f"/api/battles/{battle}/commands", json={"option": 0}, headers=t1).status_code == 201
    )
    assert a.get(f"/api/battles/{battle}").json()["status"] == "playing"  # A keeps its place
    before = relay_of(a.app).heard
    assert b.post(f"/api/battles/{battle}/finish", headers=t1).status_code == 200
    r = a.post(f"/api/battles/{battle}/void", json={"command": 1, "reason": "oops"}, headers=t1)
    assert r.status_code == 403, r.text  # once ended, only a judge voids
    _heard_after(a, before)
    assert a.get(f"/api/battles/{battle}").json()["status"] == "finished"


def test_a_run_paused_in_one_process_is_put_aside_when_the_other_writes_past_it(
    two: tuple[Site, TestClient[Litestar], TestClient[Litestar]],
) -> None:
    site, a, b = two
    t1 = bearer(site.tables[1])
    r = a.post("/api/tournaments/spring/tables/1/battles", json={"ruleset": RULESET}, headers=t1)
    battle = r.json()["battle"]
    body: dict[str, Any] = {"option": 0, "version": 1, "dice": [], "choices": {}}
    r = a.post(f"/api/battles/{battle}/commands", json=body, headers=t1)
    assert r.status_code == 200 and r.json()["status"] == "needs", r.text
    door = a.app.state.server.service.door
    assert len(door.pending) == 1  # A keeps the command's run paused at its first roll
    before = relay_of(a.app).heard
    played_through(b, battle, body, t1)  # B plays the same command through
    _heard_after(a, before)
    assert len(door.pending) == 0
    r = a.post(f"/api/battles/{battle}/commands", json=body, headers=t1)
    assert r.status_code == 409, r.text  # the same answers again at A: written past, refused


def test_a_phone_behind_the_other_process_is_refused_at_once_not_asked_its_dice(
    two: tuple[Site, TestClient[Litestar], TestClient[Litestar]],
) -> None:
    """B keeps the battle at its head; A writes a command past it, and B hears that. A phone
    still at the old version that sends B its command is told at once that someone has played
    (409, as one process tells it), not asked to roll dice for a command that could only be
    refused when written; nothing is written; B then plays on from the battle as it stands."""
    site, a, b = two
    t1 = bearer(site.tables[1])
    before = relay_of(b.app).heard
    r = a.post("/api/tournaments/spring/tables/1/battles", json={"ruleset": RULESET}, headers=t1)
    battle = r.json()["battle"]
    _heard_after(b, before)  # A's "started" note: else it could pass for the "played" one below
    assert b.get(f"/api/battles/{battle}/legal", headers=t1).json()["version"] == 1  # B keeps it
    before = relay_of(b.app).heard
    body: dict[str, Any] = {"option": 0, "version": 1, "dice": [], "choices": {}}
    r = played_through(a, battle, body, t1)  # A plays the first command through
    written = r.json()["version"]
    _heard_after(b, before)
    stale = {"option": 0, "version": 1, "dice": [], "choices": {}}
    r = b.post(f"/api/battles/{battle}/commands", json=stale, headers=t1)
    assert r.status_code == 409, r.text  # not 200 "needs" (roll the dice)
    assert b.get(f"/api/battles/{battle}/legal", headers=t1).json()["version"] == written
    r = b.post(f"/api/battles/{battle}/commands", json={**stale, "version": written}, headers=t1)
    assert r.status_code == 200 and r.json()["status"] == "needs", r.text
    assert b.get(f"/api/battles/{battle}/verify", headers=t1).json()["ok"] is True


def test_notes_travel_byte_for_byte_without_the_text_arrays_quoting(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note's JSON goes to PostgreSQL as it is (the binary array format): psycopg's text
    format quoted each of its '"' with a regular expression in Python, about a quarter of a
    million instructions a note. What the other process hears is the same text, whatever it
    holds (quotes, backslashes, braces, commas, NULL, non-ASCII)."""
    from psycopg.types.array import ListDumper

    from blowbyblow.web.relay import Payload, PostgresRelay

    def quoted(self: Any, obj: Any) -> Any:
        raise AssertionError("a note went through the text array's quoting")

    monkeypatch.setattr(ListDumper, "dump", quoted)
    heard: list[Payload] = []
    listener = PostgresRelay(db, "listener", heard.append)
    sender = PostgresRelay(db, "sender", lambda p: None)
    try:
        assert listener.listening.wait(30) and sender.listening.wait(30)
        odd = ['"quoted" \\ back\\slash', "{a,b}", "NULL", "é ☃ \u2028", "", "'"]
        sent = [
            Payload(origin="sender", topics=[t], note={"kind": t, "n": i})
            for i, t in enumerate(odd)
        ]
        for payload in sent:
            sender.send(payload)
        waited(lambda: len(heard) >= len(sent), "the sender's notes", patience=20)
        assert heard == sent
    finally:
        sender.close()
        listener.close()


def _sessions(db: str) -> int:
    with psycopg.connect(db, autocommit=True) as con:
        row = con.execute(
            "select count(*) from pg_stat_activity where datname = current_database()"
        ).fetchone()
    assert row is not None
    return int(row[0]) - 1  # this one


def test_one_connection_listens_and_sends_and_hears_its_own_notes_in_its_answers(
    db: str,
) -> None:
    """A process's relay is one session, which both listens and sends: its own notes come back
    in its statement's answer, no other session (and no thread of its) woken for them. Fails
    with a listening session beside a sending one (main f0f3752: two)."""
    from blowbyblow.web.relay import Payload, PostgresRelay

    heard: list[Payload] = []
    relay = PostgresRelay(db, "one", heard.append)
    other = PostgresRelay(db, "other", heard.append)
    try:
        assert relay.listening.wait(30) and other.listening.wait(30)
        relay.send(Payload(origin="one", topics=["t"], note={"kind": "first"}))
        other.send(Payload(origin="other", topics=["t"], note={"kind": "second"}))
        waited(lambda: len(heard) >= 2, "each relay's note at the other")
        assert sorted(p.origin for p in heard) == ["one", "other"]  # never its own
        assert _sessions(db) == 2
    finally:
        relay.close()
        other.close()


def test_a_relay_whose_session_is_ended_is_heard_again(db: str) -> None:
    """The database ends the relay's session (as a restart would): it connects again, tells its
    process it may have missed notes, and its later notes reach the other process."""
    from blowbyblow.web.relay import Payload, PostgresRelay

    told: list[Payload] = []
    heard: list[Payload] = []
    relay = PostgresRelay(db, "one", told.append)
    other = PostgresRelay(db, "other", heard.append)
    try:
        assert relay.listening.wait(30) and other.listening.wait(30)
        with psycopg.connect(db, autocommit=True) as con:
            con.execute("select pg_terminate_backend(%s)", (relay._own,))
        waited(lambda: relay.lost == 1 and relay.listening.is_set(), "the relay back")
        assert [p.register for p in told] == ["everything"]
        relay.send(Payload(origin="one", topics=["t"], note={"kind": "after"}))
        waited(lambda: len(heard) >= 1, "the note sent after")
        assert heard == [Payload(origin="one", topics=["t"], note={"kind": "after"})]
    finally:
        relay.close()
        other.close()


def test_a_note_that_comes_while_the_relay_sends_is_heard(db: str) -> None:
    """The relay's one session hears another's note that PostgreSQL holds for it while its own
    statement runs (delivered with that statement's answer, then read by ``notifies``): psycopg
    keeps such notes for ``notifies`` from 3.2.4 on, and drops them before (pyproject's floor).
    The relay's statement is held on an advisory lock until the note is committed."""
    from blowbyblow.web.relay import CHANNEL, Payload, PostgresRelay, payload_text

    class Held(PostgresRelay):
        def _connect(self) -> Any:
            conn = super()._connect()
            execute = conn.execute

            def held(query: Any, *args: Any, **kwargs: Any) -> Any:
                if "pg_notify" in str(query):  # its own notes: wait for the lock first
                    execute("select pg_advisory_lock(7)")
                    execute("select pg_advisory_unlock(7)")
                return execute(query, *args, **kwargs)

            conn.execute = held
            return conn

    heard: list[Payload] = []
    relay = Held(db, "one", heard.append)
    try:
        assert relay.listening.wait(30)
        with psycopg.connect(db, autocommit=True) as con:
            # another process says hello: the relay, no longer alone, sends its notes
            hello = Payload(origin="other", register="hello")
            con.execute("select pg_notify(%s, %s)", (CHANNEL, payload_text(hello)))
            waited(lambda: relay.statements == 1, "the relay's answer, here")
            con.execute("select pg_advisory_lock(7)")
            relay.send(Payload(origin="one", topics=["t"], note={"kind": "mine"}))

            def waiting_for_the_lock() -> bool:
                row = con.execute(
                    "select wait_event_type from pg_stat_activity where pid = %s", (relay._own,)
                ).fetchone()
                return row is not None and row[0] == "Lock"

            waited(waiting_for_the_lock, "the relay's statement held on the lock")
            other = Payload(origin="other", topics=["t"], note={"kind": "theirs"})
            con.execute("select pg_notify(%s, %s)", (CHANNEL, payload_text(other)))
            con.execute("select pg_advisory_unlock(7)")
        waited(lambda: len(heard) >= 1, "the note that came while the relay sent")
        assert heard == [other]
    finally:
        relay.close()


class Counted:
    """A relay's statements of notes (not its LISTEN or its hello), counted as it sends them."""

    def __init__(self) -> None:
        self.notes = 0

    def relay(self, db: str, origin: str, heard: Callable[[Any], None]) -> Any:
        from blowbyblow.web.relay import PostgresRelay

        counted = self

        class Relay(PostgresRelay):
            def _connect(self) -> Any:
                conn = super()._connect()
                execute = conn.execute

                def sent(query: Any, *args: Any, **kwargs: Any) -> Any:
                    if "unnest" in str(query):
                        counted.notes += 1
                    return execute(query, *args, **kwargs)

                conn.execute = sent
                return conn

        return Relay(db, origin, heard)


def test_a_relay_alone_sends_nothing_and_one_started_later_hears_every_note_after_hello(
    db: str,
) -> None:
    """A process alone on its database sends no note (issue 25: a statement and a wake-up of
    the relay's thread a command, for nobody). Another that starts while the first publishes
    a note every 2 ms hears, once it has said hello (``listening``), every note published
    after, in order and once each: those the first kept while it had not yet heard the hello
    included. When the second stops (``bye``) the first sends nothing again. Fails on main
    d055c3b: the lone relay sent its notes."""
    from blowbyblow.web.relay import Payload, PostgresRelay

    counted = Counted()
    alone = counted.relay(db, "alone", lambda p: None)
    late: PostgresRelay | None = None
    heard: list[Payload] = []
    published = 0
    stop = threading.Event()

    def publish() -> None:
        nonlocal published
        while not stop.is_set():
            alone.send(Payload(origin="alone", topics=["t"], note={"n": published}))
            published += 1
            time.sleep(0.002)

    try:
        assert alone.listening.wait(30)
        publisher = threading.Thread(target=publish)
        publisher.start()
        time.sleep(1.2)  # the relay's thread wakes twice a second: it has kept them by now
        assert counted.notes == 0 and published > 0
        late = PostgresRelay(db, "late", heard.append)
        assert late.listening.wait(30)
        said = published  # every note numbered from here on was published after the hello
        time.sleep(0.3)
        stop.set()
        publisher.join()
        last = published - 1
        waited(lambda: any(p.note["n"] == last for p in heard), "the last note at the late one")
        numbers = [p.note["n"] for p in heard]
        assert numbers == sorted(set(numbers))  # in order, once each
        assert set(range(said, published)) <= set(numbers)
        assert counted.notes > 0
        late.close()
        late = None
        waited(lambda: not alone.others, "the late one's bye")
        before = counted.notes
        alone.send(Payload(origin="alone", topics=["t"], note={"n": -1}))
        time.sleep(1.2)
        assert counted.notes == before
    finally:
        stop.set()
        if late is not None:
            late.close()
        alone.close()
