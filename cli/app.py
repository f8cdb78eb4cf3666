"""The ``bxb`` Typer application and what its commands share: the store option, logging, errors,
finding a battle, printing a log. Commands live in their own modules (``cli/battles.py``,
``cli/judging.py``, ...), registered on ``app`` when ``cli/main.py`` imports them."""

from __future__ import annotations

import copy as _copy
import inspect
import itertools
import os
import re
import signal
import sys
import threading
import traceback
from collections.abc import Iterable, Iterator, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, NoReturn
from uuid import UUID

import msgspec
import typer
from rich.cells import cell_len
from typer import _click as click  # typer carries its own click
from typer._click.core import ParameterSource
from typer.core import TyperCommand, TyperGroup

from blowbyblow.cli import end_if_reader_gone
from blowbyblow.cli.made import MADE, discard_made_stores, empty_file, store_to_make
from blowbyblow.cli.text import one_column_each, output_width, wrap_plain
from blowbyblow.cli.usage import usage_error
from blowbyblow.domain.core import BattleStarted, BlowByBlowError, RuleEvent
from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.engine import logs
from blowbyblow.replay.engine.codec import to_builtins
from blowbyblow.replay.engine.numbers import whole_number
from blowbyblow.replay.engine.registry import game_systems, get_game_system
from blowbyblow.replay.evidence.seals import default_key_dir
from blowbyblow.replay.store.find import resolve_battle
from blowbyblow.replay.store.log import (
    BattleStore,
    LoggedEvent,
    NewerRecord,
    as_store_error,
    default_db_path,
    is_postgres,
    store_label,
)

if TYPE_CHECKING:  # imported where used: a command loads what it uses (cli/main.py)
    from rich.console import Console
    from rich.text import Text

    from blowbyblow.domain.system import AnyGameSystem
    from blowbyblow.projections.battle import VoidedCommand
    from blowbyblow.replay.evidence.problems import Problem
    from blowbyblow.replay.evidence.verify import Report

INTERNAL_ERROR = 70  # EX_SOFTWARE: a bug in bxb, not something the user did


class Options:
    """The options every command shares, as given before or after the command's name."""

    db: str | None = None
    debug: bool = False
    log_json: bool = False
    log_level: str | None = None
    quiet: bool = False
    narrating: bool = False  # the command prints each rule step in words: log only when asked


OPTS = Options()


def explain(error: BaseException) -> tuple[str, int]:
    """What a failure the command did not handle itself says to the user, in one line, and the
    exit code: 1 for bad input or a store that cannot be used, INTERNAL_ERROR for a bug."""
    if isinstance(error, BlowByBlowError):
        return str(error), 1
    store = as_store_error(error, store_label(OPTS.db or default_db_path()))
    if store is not None:
        return str(store), 1
    if isinstance(error, UnicodeDecodeError):
        return (
            f"the input is not UTF-8 text ({error.reason} at byte {error.start}); expected a "
            "UTF-8 text file",
            1,
        )
    if isinstance(error, UnicodeEncodeError):  # a non-UTF-8 byte typed in an argument
        bad = error.object[error.start : error.end]
        return (
            f"an argument holds a byte that is not UTF-8 text ({readable(bad)}); expected UTF-8 text",
            2,  # a value not of its kind: a usage error (docs/store.md)
        )
    if isinstance(error, OSError):
        return _os_error(error), 1
    if isinstance(error, ValueError) and "null byte" in str(error):
        return "a file name holds a NUL character; expected a plain file name", 1
    if isinstance(error, RecursionError):
        return "the input is nested too deeply; expected at most a few levels of tables", 1
    if isinstance(error, MemoryError):
        return "the input is too large to hold in memory", 1
    what = f"{type(error).__name__}: {error}"
    return (
        f"bxb failed unexpectedly ({what}); this is a bug: run it again with --debug for the "
        "traceback, and report it",
        INTERNAL_ERROR,
    )


def _os_error(error: OSError) -> str:
    name = error.filename
    cause = error.strerror or str(error)
    if name is None:
        return f"{cause}"
    if isinstance(error, FileNotFoundError) and not Path(name).parent.exists():
        return f"{name}: the folder {Path(name).parent} does not exist; expected a path in a folder that does"
    if isinstance(error, IsADirectoryError):
        return f"{name} is a folder; expected a file"
    return f"{name}: {cause}"


_NEGATIVE = re.compile(r"-[0-9]+")


class NumbersCommand(TyperCommand):
    """A command whose arguments are numbers (a position, a command's number): ``-1`` given there
    is an argument, as argparse has it, so the command itself says what it allows (click read it
    as an option: "No such option: -1"). No command counts from the end."""

    def make_parser(self, ctx: click.Context) -> Any:
        parser = super().make_parser(ctx)
        options = parser._process_opts  # click's own parser, as typer carries it (pinned)

        def process_opts(arg: str, state: Any) -> None:
            if _NEGATIVE.fullmatch(arg) and arg not in parser._short_opt:
                state.largs.append(arg)
            else:
                options(arg, state)

        parser._process_opts = process_opts  # type: ignore[method-assign]
        return parser


class GuardedGroup(TyperGroup):
    """The ``bxb`` group: whatever goes wrong ends in one ``error:`` line on standard error and
    an exit code (2: a usage error; 1: bad input, a store that cannot be used; 70: a bug), never
    a traceback; ``--debug`` (or BXB_DEBUG=1) shows the traceback as well.

    Its shared options (``--db``, ``--debug``, the logging ones) are accepted after a command's
    name as well as before it: ``bxb demo --db x.db`` as ``bxb --db x.db demo``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        shared = [p for p in self.params if p.name in SHARED]
        for command in _leaf_commands(self):
            _add_shared_options(command, shared)
        _one_line_summaries(self)

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        for size in ("COLUMNS", "LINES"):  # Rich reads them with int() once isdigit() says yes:
            if whole_number(os.environ.get(size, "0")) is None:  # `²` would end it in a ValueError
                del os.environ[size]
        MADE.clear()
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
            sys.stdout.flush()  # a reader gone shows here when the output fit in the buffer
        except typer.TyperException as e:  # click's exceptions (typer carries its own click)
            code = usage_error(e)
        except typer.Abort:  # the input ended (EOF) at a prompt, as click has it
            typer.echo("error: aborted: the input ended before the command was complete", err=True)
            code = 1
        except Exception as e:  # RecursionError and MemoryError too
            end_if_reader_gone(e, discard_made_stores)
            message, code = explain(e)
            if OPTS.debug:
                traceback.print_exc()
            typer.echo(f"error: {readable(message)}", err=True)
        if code:
            discard_made_stores()
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OSError as e:  # before click's own catch of a broken pipe, which exits 1
            end_if_reader_gone(e, discard_made_stores)
            raise


# The group's options a command takes after its name too (not --version nor completion: they
# act before any command).
SHARED = ("db", "debug", "log_json", "log_level", "quiet")


def _leaf_commands(group: TyperGroup) -> list[click.Command]:
    found: list[click.Command] = []
    for command in group.commands.values():
        if isinstance(command, TyperGroup):
            found += _leaf_commands(command)
        else:
            found.append(command)
    return found


def _one_line_summaries(group: TyperGroup) -> None:
    """Each command's line in a list of commands: the first paragraph of its help as one line,
    wrapped to the terminal (typer keeps a docstring's line breaks there, cutting its lines
    short at random)."""
    for command in group.commands.values():
        if command.short_help is None and command.help:
            first = inspect.cleandoc(command.help).split("\n\n")[0]
            command.short_help = " ".join(first.split())
        if isinstance(command, TyperGroup):
            _one_line_summaries(command)


def _add_shared_options(command: click.Command, shared: list[click.Parameter]) -> None:
    """Copy the group's shared options onto ``command``, each setting ``OPTS`` when given on the
    command line after the command's name (typer's click parses a command's options only after
    the group's callback ran, so the callback below redoes what the group's did). A command with
    an option of the same name keeps its own: `bxb record -q` silences its narration."""
    taken = {p.name for p in command.params} | {o for p in command.params for o in p.opts}
    for option in shared:
        if option.name in taken or taken & set(option.opts):
            continue
        copy = _copy.copy(option)
        copy.expose_value = False  # not an argument of the command's function
        copy.envvar = None  # the environment was read once, by the group
        copy.callback = _set_shared_option
        copy.rich_help_panel = "Options for every command"  # type: ignore[attr-defined]
        command.params.append(copy)


def _set_shared_option(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if ctx.get_parameter_source(param.name or "") is not ParameterSource.COMMANDLINE:
        return value  # not given after the command: what was given before it stands
    setattr(OPTS, param.name or "", value)
    configure_logging()
    return value


app = typer.Typer(
    cls=GuardedGroup,
    help="blowbyblow: adjudicate close combat, keep a blow-by-blow log, replay and verify it.",
    no_args_is_help=True,
    add_completion=True,  # bxb --install-completion [bash|zsh|fish|powershell]
    pretty_exceptions_enable=False,
)


DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="BXB_DB",
        help="Store: a SQLite file path (default "
        f"{default_db_path()}), ':memory:', or a postgresql:// URL.",
    ),
]


# `bxb demo` and `bxb record` print every rule step in plain words on standard output: logging
# the same steps on stderr too would show each step twice on a terminal, so they log only when
# asked (--log-level info or warning, or --log-json for a server's log shipping).
NARRATING = ("demo", "record")


def _version(show: bool) -> None:
    if not show:
        return
    try:
        mine = version("blowbyblow")
    except PackageNotFoundError:  # run from a source tree that was never installed
        mine = "unknown"
    typer.echo(f"bxb (blowbyblow) {mine}")
    for system in game_systems().values():
        typer.echo(f"  {system.id} {system.version}: {system.title}")
    raise typer.Exit()


@app.callback()
def main_options(  # noqa: PLR0913 - typer makes each parameter a command-line option
    ctx: typer.Context,
    db: DbOption = None,
    log_json: Annotated[
        bool, typer.Option("--log-json", help="Log rule steps as JSON lines on stderr.")
    ] = False,
    log_level: Annotated[
        str | None,
        typer.Option(
            "--log-level",
            help="debug, info, warning or error. At info (the default, except for `bxb demo` "
            "and `bxb record`, which print the same steps in plain words) every rule step is "
            "logged to stderr.",
        ),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="No log lines on stderr (as --log-level warning)."),
    ] = False,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version,
            is_eager=True,
            help="Print the version and the game systems' versions, then exit.",
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug", envvar="BXB_DEBUG", help="On an error, show the Python traceback too."
        ),
    ] = False,
) -> None:
    OPTS.db = db
    OPTS.debug = debug
    OPTS.log_json = log_json
    OPTS.log_level = log_level
    OPTS.quiet = quiet
    OPTS.narrating = ctx.invoked_subcommand in NARRATING
    configure_logging()


def configure_logging() -> None:
    """Logging as the shared options say, wherever they were given."""
    if OPTS.quiet and OPTS.log_level:
        fail("-q/--quiet and --log-level: give one of them")
    quiet_default = OPTS.narrating and not OPTS.log_json
    # a narrating command's refusal is said once, by its error line: its log line only if asked
    level = OPTS.log_level or ("warning" if OPTS.quiet else "error" if quiet_default else "info")
    if level.lower() not in ("debug", "info", "warning", "error"):
        fail(f"--log-level: expected debug, info, warning or error, not {level!r}")
    logs.configure(json=OPTS.log_json, level=level)


def fail(message: str, code: int = 2) -> NoReturn:
    """Say why bxb stops, on one line, and stop. At a terminal a Ctrl-C pressed again while it
    says so (a person presses it twice) is ignored: the exit is already under way."""
    if sys.stdin.isatty() and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    typer.echo(f"error: {readable(message)}", err=True)
    raise typer.Exit(code)


def readable(text: str) -> str:
    """``text`` with each byte of a file name that is not UTF-8 (Python holds it as a lone
    surrogate, '\\udcff') written as the shell writes it, ``\\xff``: what the user typed
    ($'\\xff'), where Python's own escape named a character nobody typed."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file name holds (from a file's text)
        raw = text.encode("utf-8", "backslashreplace")
    return raw.decode("utf-8", "backslashreplace")


STDIO = "-"  # a file argument of "-" is standard input or standard output, as Unix tools do


def read_input(path: Path | str, what: str = "file") -> bytes:
    """The bytes of ``path``, or of standard input for ``-``. A file that cannot be read (not
    there, a folder) fails with one `error:` line naming it, exit 2: a value that names what is
    not there, as every command that takes a file has it (docs/store.md)."""
    if str(path) == STDIO:
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as e:
        fail(f"{what} {path}: cannot be read ({e.strerror or e})")


def scenario_argument(
    path: Path | str, ruleset: str | None = None, *, needs_actions: bool = True
) -> AnyScenario:
    """The scenario a command is given: a file, or standard input for ``-``."""
    from blowbyblow.replay.engine.scenario import MAX_FILE_BYTES, load_scenario, read_scenario

    if str(path) == STDIO:
        raw = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        return read_scenario(raw, "standard input", ruleset, needs_actions=needs_actions)
    return load_scenario(path, ruleset, needs_actions=needs_actions)


def no_stdin_here(path: Path | str | None, option: str, why: str) -> None:
    """Refuse ``-`` where standard input or output is taken already (the table's prompt)."""
    if path is not None and str(path) == STDIO:
        fail(f"{option} -: {why}; name a file")


def write_output(
    path: Path | str | None, data: bytes | str | Iterable[bytes], *, replace: bool = True
) -> None:
    """Write ``data`` (or each of its pieces in turn: a file streamed) to ``path``, or to
    standard output for ``-`` or None. With ``replace`` False an existing file is refused,
    untouched."""
    pieces: Iterable[bytes] = (
        [data.encode()] if isinstance(data, str) else [data] if isinstance(data, bytes) else data
    )
    if path is None or str(path) == STDIO:
        for piece in pieces:
            sys.stdout.buffer.write(piece)
        sys.stdout.buffer.flush()
        return
    target = Path(path)
    if _is_the_store(target):
        fail(f"{target} is the store itself; expected another file to write to", code=1)
    if not replace and target.exists():
        fail(f"{target} already exists: name another file (or remove it first)", code=1)
    try:
        with target.open("wb") as file:
            for piece in pieces:
                file.write(piece)
    except (FileNotFoundError, IsADirectoryError) as e:  # a missing folder, a folder named
        fail(_os_error(e), code=1)
    except OSError as e:
        fail(f"{target}: cannot be written ({e.strerror or e})", code=1)


def _is_the_store(target: Path) -> bool:
    """Is ``target`` the SQLite store in use, or one of its -wal and -shm files? Written over, it
    would be lost with every battle in it."""
    db = OPTS.db if OPTS.db is not None else str(default_db_path())
    if db == ":memory:" or is_postgres(db) or not target.exists():
        return False
    for suffix in ("", "-wal", "-shm", "-journal"):
        store_file = Path(db + suffix)
        try:
            if store_file.exists() and target.samefile(store_file):
                return True
        except OSError:  # unreadable or vanished: not the store we could lose
            continue
    return False


def open_store(db: str | None = None, *, create: bool = False) -> BattleStore:
    """The store of --db (or BXB_DB, or the default path). A command that only reads or adds to
    what is there (``create`` False) refuses a SQLite file that does not exist, rather than make
    an empty store (and its folders) as it fails: a mistyped --db is named, and nothing is
    written; `bxb record`, `play`, `demo`, `import` and `serve` make the store when needed."""
    spec = db if db is not None else OPTS.db
    if spec is not None:
        _require_utf8_path(spec)
    if not create:
        require_store(spec)
        return BattleStore(spec)
    made = store_to_make(spec)
    if made is not None:
        MADE.append(made)
    return BattleStore(spec)


def _require_utf8_path(spec: str) -> None:
    """Refuse (exit 1) a store path holding a byte that is not UTF-8 text (a non-UTF-8 byte in
    the argument), before the store is made: every message that names the store would fail to
    say it after the store was written."""
    try:
        spec.encode("utf-8")
    except UnicodeEncodeError as e:
        bad = spec[e.start : e.end]
        fail(
            f"--db: the path holds a byte that is not UTF-8 text ({readable(bad)}); expected UTF-8 "
            "text",
            code=1,
        )


def _missing_sqlite_file(spec: str | None) -> Path | None:
    """The SQLite file ``spec`` names when it does not exist yet (None: it exists, or the store
    is in memory, on PostgreSQL, or named by nothing, which the store itself refuses)."""
    path = str(spec) if spec is not None else str(default_db_path())
    if not path.strip() or path == ":memory:" or is_postgres(path):
        return None
    file = Path(path).expanduser()
    return None if file.exists() else file


def require_store(spec: str | None) -> None:
    """Refuse (exit 1) a SQLite store file that does not exist, or is empty (SQLite would make
    its tables in it, and a command that only reads writes nothing): see ``open_store``."""
    path = str(spec) if spec is not None else str(default_db_path())
    if _missing_sqlite_file(spec) is not None:
        fail(
            f"no store at {path} yet, so no battles in it; expected a store that `bxb "
            "record`, `bxb play` or `bxb demo` has made (check --db or BXB_DB)",
            code=1,
        )
    if empty_file(path):
        fail(
            f"{path} is an empty file, not a store: no battles in it; expected a store that "
            "`bxb record`, `bxb play` or `bxb demo` has made (check --db or BXB_DB)",
            code=1,
        )


def _battle(store: BattleStore, ref: str | None) -> UUID:
    try:
        return resolve_battle(store, ref)
    except BlowByBlowError as e:
        fail(str(e))


def unreadable(e: BlowByBlowError, code: int = 2) -> NoReturn:
    """A battle that cannot be read; one a newer blowbyblow wrote needs an upgrade, not a check."""
    if isinstance(e, NewerRecord):
        fail(str(e), code=1)
    fail(f"{e} (run `bxb verify` for details)", code=code)


def _events(store: BattleStore, battle: UUID) -> list[LoggedEvent]:
    try:
        return store.read(battle)
    except BlowByBlowError as e:
        unreadable(e)


class Checked(NamedTuple):
    """A battle read once, streamed: its records counted, first and last, the position of the
    first that does not verify (None: none), and the commands it voids."""

    records: int
    first: LoggedEvent | None
    last: LoggedEvent | None
    bad: int | None
    voided: list[VoidedCommand]


def read_checked(store: BattleStore, battle: UUID) -> Checked:
    """The battle read once, a page at a time (flat memory, as `bxb log` and `bxb export` then
    print it reading it again): every record readable (else one error line, as ``_events``
    says it), the cheap checks of ``warn_if_broken``, and its voided commands."""
    from blowbyblow.projections.battle import VoidsFound
    from blowbyblow.replay.evidence.chain import ChainScan

    scan, voids = ChainScan(battle), VoidsFound()
    try:
        for logged in store.logged(battle):
            scan.add(logged)
            voids.add(scan.count, logged.event)
    except BlowByBlowError as e:
        unreadable(e)
    bad = warn_if_broken(battle, scan.problem)
    return Checked(scan.count, scan.first, scan.last, bad, voids.found)


def warn_if_broken(battle: UUID, problem: Problem | None) -> int | None:
    """What the cheap checks of a battle found (the hash chain and the id its first event gives,
    ``ChainScan``): when they fail, one line on stderr says the battle does not verify, and the
    position is returned so a log can mark the first bad event. A full check is `bxb verify`."""
    if problem is None:
        return None
    typer.echo(
        f"warning: battle {battle} does not verify: {problem.describe()} "
        "(`bxb verify` checks everything)",
        err=True,
    )
    return problem.position


BAD = "!!"  # marks the first event that breaks the chain in a printed log


def console() -> Console:
    """Rich's console for standard output, at ``output_width()`` (NO_COLOR honoured by Rich).
    Rich is imported here, when something is printed with it: `bxb at` prints plain lines."""
    from blowbyblow.cli.piped import PipedConsole

    out = PipedConsole(width=output_width(), highlight=False)
    # its height fixed as Rich finds it now: with a width alone, Rich asks the environment and
    # the terminal again each time the width is read (three times a line of `bxb battles`)
    out.height = out.height
    return out


def print_line(out: Console, line: str, *, soft_wrap: bool = False) -> None:
    """``out.print(Text(line), soft_wrap=…)``: a line that fits the width (or ``soft_wrap``,
    which Rich does not wrap) with one column a character is written as it is, as Rich would
    write it, without Rich's rendering (a listing of 10^4 battles prints 2 * 10^4 lines)."""
    if (soft_wrap or len(line) <= out.width) and one_column_each(line):
        typer.echo(line)
        return
    from rich.text import Text

    out.print(Text(line), soft_wrap=soft_wrap)


def print_wrapped(out: Console, prefix: str, body: str | Text, hang: int | None = None) -> None:
    """``prefix`` then ``body`` wrapped at the console's width, each further line indented by
    ``hang`` (default: under the body); a word longer than a line (a hash) is folded."""
    if isinstance(body, str) and "\n" not in body and cell_len(prefix + body) <= out.width:
        typer.echo(prefix + body)  # fits: printed as it is, 40 times faster than Rich's wrap
        return
    from rich.text import Text

    text = body if isinstance(body, Text) else Text(body)
    indent = len(prefix) if hang is None else hang
    width = max(out.width - max(len(prefix), indent), 20)
    for n, line in enumerate(text.wrap(out, width, overflow="fold")):
        line.rstrip()
        out.print(Text.assemble(prefix if n == 0 else " " * indent, line), soft_wrap=True)


def say(text: str, hang: int = 2) -> None:
    """A line of prose on standard output, wrapped at the width, further lines indented."""
    print_wrapped(console(), "", text, hang=hang)


def say_lines(text: str) -> None:
    """Lines of text (a state described), each wrapped at the width, its further lines indented
    four spaces more than it is."""
    width, out = output_width(), None
    for line in text.splitlines():
        plain = wrap_plain(line, width)  # the standard library wraps it, with no Rich console
        if plain is not None:  # to import (`bxb at` stays quick to start)
            for part in plain:
                typer.echo(part)
            continue
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        out = out or console()
        print_wrapped(out, " " * indent, body, hang=indent + 4)


LOG_INDENT = 7  # "  123!!": the position, then the first-bad mark or two spaces


def print_log(events: Iterable[LoggedEvent], as_json: bool = False, bad: int | None = None) -> None:
    """Each event on a line: its position and its narration, or (``as_json``) a JSON object;
    ``bad`` marks the first that does not verify. ``events`` may be a battle streamed."""
    from blowbyblow.replay.engine.narrate import narrate

    ruleset, events = system_of(events)
    if ruleset is None:
        return
    out = None if as_json else console()
    for logged in events:
        ev = logged.event
        if out is None:
            line: dict[str, Any] = {"position": logged.position, "type": type(ev).__name__}
            if isinstance(ev, RuleEvent):
                line["rule"] = ev.rule
            line["event"] = to_builtins(ev)
            line["hash"] = logged.hash.hex()
            typer.echo(msgspec.json.encode(line).decode())
        else:
            mark = BAD if logged.position == bad else "  "
            print_wrapped(out, f"{logged.position:>5}{mark}", narrate(ruleset, ev), LOG_INDENT)


def system_of(events: Iterable[LoggedEvent]) -> tuple[AnyGameSystem | None, Iterator[LoggedEvent]]:
    """The game system of a battle's events (None: there are none), and the events, whole: its
    first event read to name it, and put back."""
    found = iter(events)
    first = next(found, None)
    if first is None:
        return None, found
    assert isinstance(first.event, BattleStarted)
    return get_game_system(first.event.ruleset), itertools.chain([first], found)


def _verdict(report: Report, unread: str = "") -> str:
    """``unread``: what to name instead of a battle id when none was read (a file's header)."""
    head = unread if unread and not report.battle.int else f"{report.battle} {report.label!r}"
    if report.ok:
        dice = f", {report.dice_checked} seeded dice recomputed" if report.dice_checked else ""
        notes = "".join(f"; {n}" for n in report.notes)
        return f"verify OK: {head}: {report.events} events, {report.commands} commands re-adjudicated{dice}, hash chain intact{notes}"
    assert report.problem is not None
    return f"verify FAILED: {head}: {report.problem.describe()}"


# A judge's private key, where a command signs or opens something with it.
KeyOption = Annotated[
    Path | None,
    typer.Option("--key", help=f"Private key file (default {default_key_dir() / 'judge.key'})."),
]

# `bxb record --fair` and `bxb play --fair`: whom the secret seed is escrowed to.
JudgeKeyOption = Annotated[
    list[str] | None,
    typer.Option(
        "--judge-key",
        help="With --fair: the judge's escrow key the seed is encrypted to, a "
        "NAME.escrow.pub file or x25519:HEX; repeatable "
        f"(default {default_key_dir() / 'judge.escrow.pub'}).",
    ),
]
