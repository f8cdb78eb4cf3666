"""The tournament server: ``bxb serve``, ``bxb tournament new|list``, ``bxb tables add|list|
reissue|revoke``.

The organiser creates a tournament and its tables on the server's store; ``tables add`` prints
each table's token once, with its join link and a QR code of the link for a phone, and a judge
token. Tokens are kept hashed, never shown again: `bxb tables list` names them, `reissue` gives
a table (a lost phone) or the judges a new one, `revoke` stops one."""

from __future__ import annotations

import errno
import gc
import io
import signal
from pathlib import Path
from typing import Annotated, Any

import typer

from blowbyblow.cli import STOPPED
from blowbyblow.cli.app import OPTS, NumbersCommand, app, fail, open_store, require_store
from blowbyblow.cli.made import register_to_read
from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.engine.numbers import whole_number
from blowbyblow.replay.evidence.seals import (
    ESCROW_KEY_TAG,
    default_key_dir,
    load_escrow_public_key,
    load_private_key,
)
from blowbyblow.replay.store.persistence import is_postgres

FULL_AFTER = 100  # the server's collections of generation 1 before a full one (Python's: 10)

tournament_app = typer.Typer(help="Tournaments on the server's store.", no_args_is_help=True)
tables_app = typer.Typer(help="A tournament's tables and their tokens.", no_args_is_help=True)
app.add_typer(tournament_app, name="tournament")
app.add_typer(tables_app, name="tables")


def _tournaments(*, create: bool = False) -> object:
    from blowbyblow.web.tournament import TournamentStore

    if not create:
        require_store(OPTS.db)
    try:
        return TournamentStore(OPTS.db if create else register_to_read(OPTS.db, "bxb_tournaments"))
    except ImportError as e:
        fail(f'--db: {e}: install with `pip install -e ".[postgres]"` for PostgreSQL')
    except Exception as e:  # the database cannot be opened: say so in one line
        fail(f"--db: cannot open the store: {e}", code=1)


def _lasting_store(why: str) -> None:
    """Refuse (exit 2) a store in memory where the store must outlive the command: it is this
    process's own, empty when it starts and gone when it ends."""
    if OPTS.db == ":memory:":
        fail(
            f"--db :memory:: {why}; expected a SQLite file (to try it out: --db "
            "/tmp/try.sqlite) or a postgresql:// URL"
        )


@tournament_app.command("new")
def cmd_tournament_new(
    slug: Annotated[str, typer.Argument(help="Short id: lower-case letters, digits, hyphens.")],
    name: Annotated[str, typer.Option("--name", help="The tournament's name in full.")] = "",
) -> None:
    """Create a tournament (then `bxb tables add` gives it tables and tokens)."""
    from blowbyblow.web.tournament import TournamentStore, check_new

    _lasting_store("a tournament made in memory is gone when this command ends: no server sees it")
    try:  # before the store is opened (which makes the register's tables): a refusal keeps it
        check_new(slug, name)
    except BlowByBlowError as e:
        fail(str(e))
    store = _tournaments(create=True)
    assert isinstance(store, TournamentStore)
    try:
        made = store.new_tournament(slug, name)
    except BlowByBlowError as e:
        fail(str(e))
    typer.echo(
        f"tournament {made.slug} ({made.name!r}) created; next: bxb tables add {made.slug} --count N"
    )


@tournament_app.command("list")
def cmd_tournament_list() -> None:
    """The tournaments on the store, with their tables."""
    from blowbyblow.web.tournament import TournamentStore

    store = _tournaments()
    assert isinstance(store, TournamentStore)
    kept = store.tournaments()
    if not kept:
        typer.echo("no tournaments yet (`bxb tournament new SLUG`)", err=True)
    for t in kept:
        typer.echo(f"{t.slug}  {len(t.tables)} tables  {t.name}")


def _qr(url: str) -> str:
    import segno

    out = io.StringIO()
    segno.make(url, error="l").terminal(out=out, compact=True, border=2)
    return out.getvalue()


@tables_app.command("add")
def cmd_tables_add(
    slug: Annotated[str, typer.Argument(help="The tournament's id.")],
    count: Annotated[int, typer.Option("--count", "-n", help="How many tables to add.")] = 1,
    url: Annotated[
        str,
        typer.Option(
            "--url", help="The server's address as phones reach it (for the links and QR codes)."
        ),
    ] = "http://127.0.0.1:8000",
    qr: Annotated[bool, typer.Option("--qr/--no-qr", help="Print a QR code per link.")] = True,
) -> None:
    """Add tables: print each one's token and join link (with a QR code), and a judge token.
    The tokens are shown this once; the store keeps only their hashes."""
    from blowbyblow.web.tournament import TournamentStore

    if not url.startswith(("http://", "https://")):
        fail(f"--url: expected http://HOST:PORT or https://..., not {url!r}")
    store = _tournaments()
    assert isinstance(store, TournamentStore)
    try:
        made = store.add_tables(slug, count)
    except BlowByBlowError as e:
        fail(str(e))
    base = url.rstrip("/")
    for number, token in made.tables:
        link = f"{base}/join/{token}"
        typer.echo(f"table {number}: token {token}")
        typer.echo(f"  {link}")
        if qr:
            typer.echo(_qr(link))
    judge = f"{base}/join/{made.judge_token}"
    typer.echo(f"judge: token {made.judge_token}")
    typer.echo(f"  {judge}")
    typer.echo("keep these: they are not stored, only their hashes are")


def _on_tokens(fn: Any, slug: str, *args: Any) -> Any:
    """``fn(tournaments, slug, *args)`` (web/tokens.py), a refusal as one error line."""
    store = _tournaments()
    try:
        return fn(store, slug, *args)
    except BlowByBlowError as e:
        fail(str(e))


def _table_or_judge(which: str) -> int | None:
    if which == "judge":
        return None
    number = whole_number(which)
    if number is None:
        fail(f"TABLE: expected a table's number or 'judge', not {which!r}")
    return number


@tables_app.command("list")
def cmd_tables_list(slug: Annotated[str, typer.Argument(help="The tournament's id.")]) -> None:
    """A tournament's tokens: whose each is, when it was made, revoked or working. A token is
    never shown again (the store keeps its hash): each is named by its hash's first characters."""
    from blowbyblow.web.tokens import list_tokens

    for row in _on_tokens(list_tokens, slug):
        typer.echo(row.line())


@tables_app.command("reissue", cls=NumbersCommand)
def cmd_tables_reissue(
    slug: Annotated[str, typer.Argument(help="The tournament's id.")],
    which: Annotated[str, typer.Argument(metavar="TABLE", help="A table's number, or 'judge'.")],
    url: Annotated[
        str, typer.Option("--url", help="The server's address as phones reach it.")
    ] = "http://127.0.0.1:8000",
) -> None:
    """A new token for a table (a lost phone) or the judges: the old one stops working; the new
    one is shown this once, with its join link."""
    from blowbyblow.web.tokens import reissue

    table = _table_or_judge(which)
    token = _on_tokens(reissue, slug, table)
    typer.echo(f"{which if table is None else f'table {table}'}: token {token}")
    typer.echo(f"  {url.rstrip('/')}/join/{token}")
    typer.echo("the old token no longer works; keep this one: it is not stored, only its hash")


@tables_app.command("revoke", cls=NumbersCommand)
def cmd_tables_revoke(
    slug: Annotated[str, typer.Argument(help="The tournament's id.")],
    which: Annotated[str, typer.Argument(metavar="TABLE", help="A table's number, or 'judge'.")],
) -> None:
    """Stop a table's (or the judges') tokens; `bxb tables reissue` gives a new one."""
    from blowbyblow.web.tokens import revoke

    table = _table_or_judge(which)
    count = _on_tokens(revoke, slug, table)
    who = "the judges" if table is None else f"table {table}"
    typer.echo(f"{count} token(s) of {who} revoked: they no longer work (within seconds)")


def _check_free(host: str, port: int) -> None:
    """Fail with one line when the address cannot be bound (a port taken by another server, an
    address not of this machine), before anything says the server is up: uvicorn's own error
    came after the "serving" line, and only as a log line."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as e:
        fail(f"--host: {host!r} is not an address this machine can listen on ({e})", code=1)
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as e:
            taken = e.errno == errno.EADDRINUSE
            fail(
                f"--port: {port} on {host} is taken by another program; give another port"
                if taken
                else f"--host/--port: cannot listen on {host}:{port}: {e.strerror or e}",
                code=1,
            )


def _root_terms(witnesses: Path | None, origin: str | None, signing: object) -> Any:
    """``--witnesses`` and ``--origin``, checked before the server starts (None: neither)."""
    if witnesses is None and origin is None:
        return None
    from blowbyblow.cli.evidence import read_policy
    from blowbyblow.replay.evidence.notes import NoteError, check_name
    from blowbyblow.web.roots import RootTerms

    if witnesses is None or origin is None:
        fail("--witnesses and --origin go together: the policy, and the server's log name")
    try:
        check_name(origin, "--origin")
    except NoteError as e:
        fail(str(e))
    if signing is None:
        fail("--witnesses: a root is signed with the server's key; give --key")
    return RootTerms(origin=origin, policy=read_policy(witnesses, "--witnesses"))


def _loopback(host: str) -> bool:
    """Only this machine can reach ``host`` (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may be any address


@app.command("serve")
def cmd_serve(  # noqa: PLR0913 - typer makes each parameter a command-line option
    host: Annotated[
        str, typer.Option("--host", help="Address to bind; 0.0.0.0 opens it to the network.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            help="The judges' signing key: seals, receipts, fair seeds' escrow "
            f"(default {default_key_dir() / 'judge.key'}, if it exists).",
        ),
    ] = None,
    reading: Annotated[
        str,
        typer.Option("--reading", help="open: anyone may read; tokens: reading needs a token."),
    ] = "open",
    judge_key: Annotated[
        list[str] | None,
        typer.Option(
            "--judge-key",
            help="A judge's escrow key fair battles' seeds are encrypted to: a NAME.escrow.pub "
            "file or x25519:HEX; repeatable (default: the escrow key of --key).",
        ),
    ] = None,
    witnesses: Annotated[
        Path | None,
        typer.Option(
            "--witnesses",
            help="A witness policy file ('witness KEY URL' lines, 'quorum N'): a judge's "
            "POST /api/tournaments/SLUG/root is published only once the quorum cosigned it.",
        ),
    ] = None,
    origin: Annotated[
        str | None,
        typer.Option(
            "--origin",
            help="With --witnesses: the server's log name, e.g. club.example; each tournament's "
            "log is NAME/SLUG (`bxb witness log-key NAME/SLUG` for its witnesses).",
        ),
    ] = None,
    read_db: Annotated[
        str | None,
        typer.Option(
            "--read-db",
            help="A PostgreSQL streaming replica of --db that pages and reads go to (writes go "
            "to --db); a read never older than its reader's own last write.",
        ),
    ] = None,
) -> None:
    """Run the tournament server (table pages, judge's viewer, dashboard, JSON API) on the
    store. Bound to 127.0.0.1 unless --host says otherwise. With a key, every write is answered
    with a signed receipt and tables may play with fair dice."""
    # SIGINT (Ctrl-C) and SIGTERM (a service manager's stop): ours until uvicorn's handlers
    # are in place, and ours again when uvicorn raises the signal it caught once it has shut
    # down. SIGTERM's default then ended the process (exit -15) before multiprocessing's
    # finalizers ran (sometimes a warning of leaked semaphores); a stop is a clean exit 0.
    stops = _Stops()
    previous = {sig: signal.signal(sig, stops) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        _serve(host, port, key, reading, judge_key, witnesses, origin, read_db, stops)
    except KeyboardInterrupt:  # stopped before it served (typer's way: exit 130, no word)
        typer.echo(STOPPED, err=True)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class _Stops:
    """``bxb serve``'s SIGINT and SIGTERM before uvicorn's own handlers are in place: the
    first remembered and acted on at the next step of the start-up (``check``), a second at
    once (a KeyboardInterrupt). Raised at once, the first was lost when it fell in a finalizer
    or a weakref's callback (Python prints and drops it: the collection before uvicorn runs),
    and the server went on serving. Within ``uvicorn.run`` (``raising`` off) each is only
    remembered, and sent again once uvicorn's handlers are in place (``started``, the app's
    last start-up hook): raised in uvicorn's start, it ended the server with exit 3 and a
    warning of a coroutine never awaited, or asyncio's handler took it and the server went on
    serving."""

    def __init__(self) -> None:
        self.asked: list[int] = []
        self.raising = True
        self.serving = False

    def __call__(self, signum: int, frame: object) -> None:
        if self.serving:  # uvicorn's own, raised again as it ends: it has stopped
            return
        self.asked.append(signum)
        if self.raising and len(self.asked) > 1:  # asked again: a start-up step that hangs
            raise KeyboardInterrupt

    def check(self) -> None:
        if self.asked:
            raise KeyboardInterrupt

    def started(self) -> None:
        self.serving = True
        if self.asked:
            signal.raise_signal(self.asked[0])  # to uvicorn's handler: a stop of its own


def _serve(  # noqa: PLR0913 - cmd_serve's options
    host: str,
    port: int,
    key: Path | None,
    reading: str,
    judge_key: list[str] | None,
    witnesses: Path | None,
    origin: str | None,
    read_db: str | None,
    stops: _Stops,
) -> None:
    """``bxb serve``: its options checked, the server started and run until it is stopped."""
    from blowbyblow.web.app import create_app
    from blowbyblow.web.tournament import TournamentStore

    stops.check()
    _lasting_store(
        "a server's tables write with the tokens `bxb tables add` makes on its store, and a store "
        "in memory is this process's own, with no tournament in it, and gone at the stop"
    )
    if reading not in ("open", "tokens"):
        fail(f"--reading: expected open or tokens, not {reading!r}")
    if not 0 < port < 65536:
        fail(f"--port: expected 1 to 65535, not {port}")
    _check_free(host, port)
    signing = None
    path = key or default_key_dir() / "judge.key"
    if key is not None or path.exists():
        try:
            signing = load_private_key(path)
        except BlowByBlowError as e:
            fail(f"--key: {e}")
    escrow: list[str] = []
    for given in judge_key or []:
        try:
            escrow.append(ESCROW_KEY_TAG + load_escrow_public_key(given))
        except BlowByBlowError as e:
            fail(f"--judge-key: {e}")
    terms = _root_terms(witnesses, origin, signing)
    store = open_store(create=True)
    replica = None
    if read_db is not None:
        if not is_postgres(read_db) or not is_postgres(store.where):
            fail("--read-db: a postgresql:// URL of a streaming replica, with --db on PostgreSQL")
        from blowbyblow.replay.store.log import BattleStore

        try:
            replica = BattleStore(read_db, read_only=True)
        except BlowByBlowError as e:
            fail(f"--read-db: {e}")
    tournaments = _tournaments(create=True)  # the register `bxb tournament new` writes to
    assert isinstance(tournaments, TournamentStore)
    stops.check()
    application = create_app(
        store,
        tournaments,
        key=signing,
        reading="open" if reading == "open" else "tokens",
        judge_keys=tuple(escrow),
        witnesses=terms,
        read_store=replica,
    )
    odds = application.state.server.service.odds_desk
    try:
        stops.check()
        odds.warm()  # the viewer's first odds wait for no start
        _say_serving(host, port, reading, path if signing else None, escrow, terms, store.where)
        _run(application, host, port, stops)
    finally:  # stopped before the server's own shutdown closed it (or uvicorn.run stubbed)
        odds.close()


def _say_serving(  # noqa: PLR0913 - what the server says as it starts
    host: str,
    port: int,
    reading: str,
    signing: Path | None,
    escrow: list[str],
    terms: Any,
    where: str,
) -> None:
    typer.echo(
        f"serving http://{host}:{port}/ (reading {reading}; "
        + (
            f"seals and signs receipts with {signing}"
            if signing
            else "no signing key: seals refused, no receipts"
        )
        + ("; fair dice escrowed to " + ", ".join(k[:20] + "…" for k in escrow) if escrow else "")
        + ("" if escrow or signing else "; no fair dice (no judge's key)")
        + (
            f"; roots published at the quorum of {len(terms.policy.witnesses)} witness(es) as "
            f"{terms.origin}/SLUG"
            if terms
            else ""
        )
        + ")",
        err=True,
    )
    if not is_postgres(where) and where != ":memory:":
        typer.echo(
            "one server process on this SQLite store: live notes stay in this process "
            "(several `bxb serve` processes share one tournament on PostgreSQL only)",
            err=True,
        )
    if not _loopback(host):
        typer.echo(
            f"warning: --host {host}: the server is now reachable by others on the network; "
            "anyone who can reach it may read battles (--reading tokens asks for a token) and "
            "it speaks plain HTTP (put it behind HTTPS on an untrusted network)",
            err=True,
        )


def _run(application: Any, host: str, port: int, stops: _Stops) -> None:
    """uvicorn serving ``application`` until it is stopped."""
    stops.check()
    # What start-up made (modules, the app, the rules' tables) lives as long as the server: kept
    # out of the collector's full passes, which walked it all every time (pauses of 30-70 ms;
    # p99 at 512 tables: 17-22 ms before, 13.5-13.7 ms after, benchmarks/server.py).
    gc.collect()
    gc.freeze()
    # A full collection stops the whole server while it walks every request in flight: at 512
    # tables 80-150 ms of CPU, every 8-10 s at the default (one after 10 middle collections).
    # One after 100 of them: about once in two minutes, the cyclic garbage meanwhile a few MB.
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_AFTER)
    stops.check()
    stops.raising = False
    application.on_startup.append(stops.started)
    _uvicorn(application, host, port)
    stops.check()  # stopped before it served: said so


def _uvicorn(application: Any, host: str, port: int) -> None:
    import uvicorn

    from blowbyblow.web.guard import PatientHttp

    uvicorn.run(
        application,
        host=host,
        port=port,
        log_level="warning",
        # uvicorn's access lines are info: never shown at warning, but with its handler in place
        # each answer still formatted the client's address and quoted the path for one (issue 25)
        access_log=False,
        timeout_graceful_shutdown=3,
        # A table's phone sends a command every half minute or so: kept alive past that, its
        # connection is not closed under it (uvicorn's default is 5 s) and made again each time.
        timeout_keep_alive=75,
        http=PatientHttp,  # a request left half-sent is closed (web/guard.py)
    )
