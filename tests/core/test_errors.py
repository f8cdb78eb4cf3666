"""Every failure a user can cause ends in one `error:` line naming what was wrong and what was
expected, exit 1 (2 for usage), and nothing written; `--debug` shows the traceback. The cases of
issue 9 (item 5), each as the user meets it, through `bxb` itself."""

from __future__ import annotations

import os
import sqlite3
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomlkit
import typer
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from blowbyblow.cli.app import INTERNAL_ERROR, OPTS, GuardedGroup
from blowbyblow.cli.main import app
from blowbyblow.replay.evidence.export import export_battle
from blowbyblow.replay.store.log import BattleStore, parse_postgres_url, store_label

from bxbtest import demo_store_in, record_demo

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "cli" / "scenarios"
NECROMUNDA = SCENARIOS / "necromunda-2023.toml"


def bxb(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--log-level", "error", *args], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"bxb {' '.join(args)} raised {result.exception!r}"
    )
    return result.exit_code, result.stdout, result.stderr


def refused(code: int, err: str, *words: str) -> str:
    """The one `error:` line of a refusal (exit 1, or 2 for usage), holding ``words``."""
    assert code in (1, 2), (code, err)
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def events_in(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(db)
    try:
        return int(con.execute("select count(*) from stored_events").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A SQLite store holding the Necromunda demo."""
    db = tmp_path / "battles.sqlite"
    assert bxb("--db", str(db), "demo")[0] == 0
    return db


# --- the store ----------------------------------------------------------------------------------


def test_a_store_locked_by_another_program_is_named_and_nothing_is_written(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BXB_BUSY_TIMEOUT", "1")
    before = events_in(store)
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        code, _, err = bxb("--db", str(store), "record", "--quiet", str(NECROMUNDA))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    refused(code, err, "in use by another program", "nothing was written", "BXB_BUSY_TIMEOUT")
    assert events_in(store) == before
    # and once the other program is done, the same command records the whole battle
    assert bxb("--db", str(store), "record", "--quiet", str(NECROMUNDA))[0] == 0
    assert events_in(store) > before


def test_db_at_a_folder_a_non_database_or_nothing(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_bytes(b"my notes, not a store\n")
    for db, words in (
        (str(tmp_path), ("is a folder", "expected a SQLite file")),
        (str(text), ("cannot be used", "file is not a database", "expected a SQLite file")),
        ("", ("--db is empty", "expected")),
        (str(text / "x.sqlite"), ("cannot make its folder",)),
    ):
        refused(*bxb("--db", db, "demo")[::2], *words)
    assert text.read_bytes() == b"my notes, not a store\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize(
    "command",
    [
        ("battles",),
        ("verify",),
        ("log",),
        ("receipt", "--key", "judge.key"),
        ("root",),
        ("seal", "--key", "judge.key"),
        ("luck",),
        ("tournament", "list"),
    ],
)
def test_a_command_that_reads_a_store_not_there_names_it_and_makes_nothing(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """A mistyped --db is named, not made: no empty store, no folder, left behind a refusal."""
    db = tmp_path / "no-such-folder" / "battles.sqlite"
    refused(*bxb("--db", str(db), *command)[::2], f"no store at {db}", "check --db")
    assert list(tmp_path.iterdir()) == []


def test_busy_timeout_must_be_a_number_of_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BXB_BUSY_TIMEOUT", "soon")
    refused(*bxb("--db", str(tmp_path / "s.sqlite"), "demo")[::2], "BXB_BUSY_TIMEOUT")


def test_a_postgresql_url_password_is_never_shown_even_with_a_raw_at_sign() -> None:
    url = "postgresql://judge:p@ss:w/rd@db.example:5433/tournament"
    assert store_label(url) == "postgresql://judge:***@db.example:5433/tournament"
    parsed = parse_postgres_url(url)
    assert (parsed.user, parsed.password, parsed.host, parsed.port, parsed.dbname) == (
        "judge",
        "p@ss:w/rd",
        "db.example",
        5433,
        "tournament",
    )
    assert parse_postgres_url("postgresql://judge:p%40ss@h/db").password == "p@ss"
    assert store_label("postgresql://judge@h/db") == "postgresql://judge@h/db"
    assert store_label("/tmp/p@ss:word.sqlite") == "/tmp/p@ss:word.sqlite"  # a file is a file


def test_an_unreachable_postgresql_server_fails_at_once_with_the_cause() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql://judge:hunter2@127.0.0.1:{port}/bxb"
    line = refused(*bxb("--db", url, "battles")[::2], "cannot be reached", "Connection refused")
    assert "hunter2" not in line and "judge:***@" in line


def test_a_postgresql_server_that_never_answers_fails_after_the_connect_timeout() -> None:
    import socket

    with socket.socket() as server:  # accepts the connection, never says a word
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        port = server.getsockname()[1]
        url = f"postgresql://judge@127.0.0.1:{port}/bxb?connect_timeout=1"
        refused(*bxb("--db", url, "battles")[::2], "cannot be reached", "timeout", "within 1 s")


# --- files and arguments ------------------------------------------------------------------------


def test_export_into_a_missing_folder(store: Path, tmp_path: Path) -> None:
    target = tmp_path / "no-such-folder" / "battle.jsonl"
    refused(*bxb("--db", str(store), "export", "-o", str(target))[::2], "does not exist")
    assert not target.parent.exists()


def test_keys_new_where_no_folder_can_be_made(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    refused(
        *bxb("keys", "new", "--dir", str(a_file / "keys"))[::2],
        "cannot make this folder",
        "expected a folder",
    )
    refused(*bxb("keys", "new", "--dir", str(a_file))[::2], "is a file")
    refused(*bxb("keys", "new", "--dir", str(tmp_path / "k"), "--name", "a\x00b")[::2], "--name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_keys_that_cannot_sign(store: Path, tmp_path: Path) -> None:
    locked = tmp_path / "locked.key"
    locked.write_bytes(
        Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    garbage = tmp_path / "garbage.key"
    garbage.write_bytes(b"\xff\x00 not a key")
    before = events_in(store)
    for key, words in (
        (locked, ("protected by a password", "expected the unencrypted Ed25519 PEM")),
        (garbage, ("not a readable private key", "expected")),
        (tmp_path, ("is not a file", "expected")),
        (tmp_path / "missing.key", ("cannot be read", "No such file")),
    ):
        refused(*bxb("--db", str(store), "seal", "--key", str(key))[::2], *words)
    refused(*bxb("--db", str(store), "verify", "--public-key", "")[::2], "--public-key")
    # a public key file that is no text: said so, not the ASCII codec's byte and position
    for option in ("--public-key", "--receipt-key"):
        said = refused(*bxb("--db", str(store), "verify", option, str(garbage))[::2], option)
        assert "holds bytes that are not text" in said and "codec" not in said, said
    assert events_in(store) == before


def test_usage_errors_are_one_line_with_exit_2() -> None:
    code, out, err = bxb("verify", "--no-such-option")
    assert code == 2 and out == ""
    line = refused(code, err)
    assert line.startswith("error: No such option: --no-such-option (see `")
    assert line.endswith(" verify --help`)")  # the program's name: bxb, or the test runner's
    code, _, err = bxb("at", "twelve")
    assert "'position'" in refused(code, err) and code == 2


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("new",), "error: --ruleset is missing: Game system id (`bxb rulesets` lists them) (see"),
        (("record",), "error: SCENARIO is missing: Scenario TOML file (-: standard input) (see"),
        (("tables", "add"), "error: SLUG is missing: The tournament's id (see"),
        (("import",), "error: FILE is missing: An exported JSON Lines file (-: standard input)"),
    ],
)
def test_a_missing_argument_or_option_is_named(args: tuple[str, ...], said: str) -> None:
    """A newcomer's `bxb new` names what it lacks, and what it is for (it said `error:
    --ruleset: (see ...)`, Click's message being empty there)."""
    code, _, err = bxb(*args)
    assert refused(code, err).startswith(said) and code == 2


def test_verify_names_a_battle_the_store_lacks_as_a_usage_error(tmp_path: Path) -> None:
    """docs/judging.md: verify exits 1 when something does not agree, 2 for a battle it was not
    given (docs/store.md's usage error), as every command that names a battle."""
    store = demo_store_in(tmp_path)
    code, _, err = bxb("--db", str(store), "verify", "nope")
    assert refused(code, err, "no battle 'nope' in this store") and code == 2


def test_debug_shows_the_traceback_too(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a store")
    code, _, err = bxb("--debug", "--db", str(notes), "battles")
    assert code == 1 and "Traceback" in err
    assert err.splitlines()[-1].startswith("error: the store")


def test_a_bug_says_so_with_its_own_exit_code() -> None:
    """What no user can cause (here a command that divides by zero) is not dressed up as their
    mistake: exit 70, the exception named, and how to see more."""
    buggy = typer.Typer(cls=GuardedGroup)

    @buggy.command()
    def divide() -> None:
        print(1 // 0)

    @buggy.command()
    def other() -> None:  # a group of two: the command is named on the command line
        pass

    OPTS.debug = False
    result = CliRunner().invoke(buggy, ["divide"])
    assert result.exit_code == INTERNAL_ERROR
    assert "ZeroDivisionError" in result.stderr and "this is a bug" in result.stderr
    assert "Traceback" not in result.stderr


# --- scenario files -----------------------------------------------------------------------------


def _scenario(tmp_path: Path, edit: Any, source: Path = NECROMUNDA) -> Path:
    """``source`` edited: by a function of its data, or a line of text put at its top."""
    path = tmp_path / "edited.toml"
    if isinstance(edit, str):
        path.write_text(edit + "\n" + source.read_text(encoding="utf-8"), encoding="utf-8")
        return path
    data = tomllib.loads(source.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(tomlkit.dumps(data), encoding="utf-8")
    return path


def _fighter(field: str, value: Any) -> Any:
    def edit(data: dict[str, Any]) -> None:
        data["fighters"][0][field] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (_fighter("a", 100_000_000), ("fighters[0].a", "<= 20")),  # an attack count for ever
        (_fighter("a", float("inf")), ("fighters[0].a", "inf", "finite")),
        (_fighter("s", float("nan")), ("fighters[0].s", "nan", "finite")),
        (_fighter("t", 2**64), ("fighters[0].t", "too large", "whole number")),
        (_fighter("w", -(2**70)), ("fighters[0].w", "too large")),
        (_fighter("weapons", [{"id": f"w{i}"} for i in range(21)]), ("weapons", "length <= 20")),
        (f"dice = [{', '.join(['1'] * 10_001)}]", ("dice", "at most 10000")),
        ("dice = [7, 0]", ("dice[1]", "1 to 1000")),
        (lambda d: d.update(label="x" * 1001), ("label", "at most 1000")),
    ],
)
def test_scenario_values_out_of_bounds_are_refused_and_nothing_is_written(
    tmp_path: Path, edit: Any, words: tuple[str, ...]
) -> None:
    db = tmp_path / "battles.sqlite"
    scenario = _scenario(tmp_path, edit)
    refused(*bxb("--db", str(db), "record", str(scenario))[::2], *words)
    assert events_in(db) == 0


def test_a_follow_up_of_not_a_number_inches(tmp_path: Path) -> None:
    """40K's Follow-Up takes inches as a decimal: "sNaN" would raise InvalidOperation when
    compared with the 2" allowed."""

    def edit(data: dict[str, Any]) -> None:
        (follow,) = [a for a in data["actions"] if a["type"] == "followup"]
        follow["inches"] = "sNaN"

    db = tmp_path / "battles.sqlite"
    scenario = _scenario(tmp_path, edit, SCENARIOS / "wh40k-2e.toml")
    refused(*bxb("--db", str(db), "record", str(scenario))[::2], "inches", "finite")
    assert events_in(db) == 0


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (b'ruleset = "necromunda-2023"\nlabel = "\xff\xfe"\n', ("not UTF-8", "byte 37")),
        (b"deep = " + b"[" * 5000 + b"]" * 5000, ("nested too deeply",)),
        (b"deep = " + b"[" * 30 + b"]" * 30, ("nested more than 16",)),
        (b"# " + b"x" * (1024 * 1024), ("larger than 1024 KiB",)),
    ],
)
def test_scenario_files_no_parser_should_choke_on(
    tmp_path: Path, text: bytes, words: tuple[str, ...]
) -> None:
    scenario = tmp_path / "hostile.toml"
    scenario.write_bytes(text)
    db = tmp_path / "battles.sqlite"
    refused(*bxb("--db", str(db), "record", str(scenario))[::2], *words)
    assert events_in(db) == 0


# --- exports ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def exported() -> bytes:
    store = BattleStore(":memory:")
    return export_battle(store, record_demo(store, "necromunda-2023").battle)


def _edit_line(text: bytes, n: int, old: bytes, new: bytes) -> bytes:
    lines = text.split(b"\n")
    assert old in lines[n], (old, lines[n][:200])
    lines[n] = lines[n].replace(old, new, 1)
    return b"\n".join(lines)


@pytest.fixture
def hostile(exported: bytes) -> Iterator[dict[str, bytes]]:
    yield {
        "1e999": _edit_line(exported, 2, b'"position":2', b'"position":1e999'),
        "NaN": _edit_line(exported, 2, b'"position":2', b'"position":NaN'),
        "2^64": _edit_line(exported, 2, b'"position":2', b'"position":18446744073709551616'),
        "deep": _edit_line(exported, 2, b'"position":2', b'"position":' + b"[" * 5000),
        "nested": _edit_line(exported, 2, b'"position":2', b'"x":' + b"[" * 40 + b"]" * 40),
        "utf-8": _edit_line(exported, 3, b'"type":', b'"\xff":1,"type":'),
        "not an object": _edit_line(exported, 2, b'"event":{', b'"event":[{') + b"]",
    }


def test_hostile_exports_fail_verify_and_import_with_nothing_written(
    hostile: dict[str, bytes], tmp_path: Path
) -> None:
    db = tmp_path / "battles.sqlite"
    for name, text in hostile.items():
        path = tmp_path / f"{len(name)}.jsonl"
        path.write_bytes(text)
        code, out, err = bxb("verify", "--file", str(path))
        assert code == 1 and "Traceback" not in err, (name, err)
        assert "verify FAILED" in out and "position" in out, (name, out)
        refused(*bxb("--db", str(db), "import", str(path))[::2], "refused")
        assert events_in(db) == 0, name


# --- what the fuzzing of every command's arguments found (tests/fuzz/cli_args.py) ---------------


def test_export_over_the_store_itself_is_refused(store: Path) -> None:
    before = events_in(store)
    for target in (store, Path(f"{store}-wal")):
        if target.exists():
            line = refused(*bxb("--db", str(store), "export", "-o", str(target))[::2])
            assert "is the store itself" in line
    assert events_in(store) == before  # the file whole: SQLite itself may checkpoint it
    assert bxb("--db", str(store), "verify")[0] == 0


@pytest.mark.parametrize("command", ["verify", "seal", "export", "log", "receipt", "luck"])
def test_an_empty_battle_name_is_no_battle_at_all(store: Path, command: str) -> None:
    """`bxb seal "$BATTLE"` with the variable unset: every id starts with "", so the empty name
    was the store's only battle (or all of them, for verify)."""
    before = events_in(store)
    refused(*bxb("--db", str(store), command, "")[::2], "the battle named is empty")
    assert events_in(store) == before


@pytest.mark.parametrize(
    "args", [("luck", "--seed", "\udcff", "--samples", "2"), ("log", "\udcff"), ("at", "\udcff")]
)
def test_an_argument_that_is_not_utf_8_is_named(store: Path, args: tuple[str, ...]) -> None:
    """A byte that is not UTF-8 on the command line reaches Python as a lone surrogate (a seed
    cannot be hashed from it, no battle or position is named so): a usage error, exit 2, the
    byte shown as the shell writes it (\\xff), as the server shows it."""
    code, _, err = bxb("--db", str(store), *args)
    line = refused(code, err, "\\xff")
    assert code == 2 and "udcff" not in line and "\ufffd" not in line, line


@pytest.mark.parametrize("command", [("battles",), ("log",), ("luck",), ("tournament", "list")])
def test_an_empty_file_is_no_store_and_stays_empty(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """SQLite would make its tables in an empty file: a command that only reads refuses it, and
    writes nothing to it."""
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    refused(*bxb("--db", str(empty), *command)[::2], f"{empty} is an empty file", "check --db")
    assert empty.read_bytes() == b"" and list(tmp_path.iterdir()) == [empty]


def test_a_refusal_leaves_no_store_nor_folder_it_made(tmp_path: Path) -> None:
    """`bxb record` (its action refused, or --fair with a key that is not an escrow key) and `bxb
    play` (its opening abandoned) on a --db not there yet, in folders not there yet, or in an
    empty file: refused, and the store, its folders, or what went into the empty file, gone."""
    data = tomllib.loads(NECROMUNDA.read_text())
    data["actions"][0]["attacker"] = "nobody"
    bad = tmp_path / "bad.toml"
    bad.write_text(tomlkit.dumps(data))
    assert bxb("keys", "new", "--dir", str(tmp_path / "keys"))[0] == 0
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    before = sorted(tmp_path.rglob("*"))
    for db in (tmp_path / "new" / "folder" / "b.sqlite", empty):
        refused(*bxb("--db", str(db), "record", str(bad))[::2], "unknown charger 'nobody'")
        sealing = str(tmp_path / "keys" / "judge.pub")
        fair = ("record", str(NECROMUNDA), "--fair", "--judge-key", sealing)
        refused(*bxb("--db", str(db), *fair)[::2], "--judge-key", "not an escrow key")
        play = ("play", str(NECROMUNDA), "--dice", "seed:p")
        refused(*bxb("--db", str(db), *play)[::2], "abandoned")
        assert sorted(tmp_path.rglob("*")) == before and empty.read_bytes() == b""


@pytest.mark.parametrize("command", [("demo",), ("record", str(NECROMUNDA))])
def test_a_store_path_holding_nul_is_refused(tmp_path: Path, command: tuple[str, ...]) -> None:
    """A command that makes its store, given a --db it cannot make, says so (the store it had
    set out to make was looked for, to be taken away, with that name: a ValueError once)."""
    refused(*bxb("--db", str(tmp_path / "a\x00b"), *command)[::2], "NUL")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("at", "-1"), "has events 1 to 88, not -1"),
        (("at", "-3", "--json"), "has events 1 to 88, not -3"),
        (("flag", "-1", "--reason", "x"), "expected a command that stands, 1 to 2, not -1"),
        (("void", "-1", "--reason", "x"), "expected a command that stands, 1 to 2, not -1"),
        (("tables", "revoke", "spring", "-1"), "expected a table's number or 'judge', not '-1'"),
    ],
)
def test_a_negative_number_is_an_argument_the_command_refuses(
    store: Path, args: tuple[str, ...], said: str
) -> None:
    """`bxb at -1` is a position no command counts from the end: the command's own error, naming
    it and what it allows (click read it as an option: "No such option: -1")."""
    before = events_in(store)
    refused(*bxb("--db", str(store), *args)[::2], said)
    assert events_in(store) == before
    code, _, err = bxb("--db", str(store), "at", "-x")  # an option is an option still
    assert refused(code, err, "No such option: -x")


def test_a_file_name_that_is_not_utf_8_is_shown_as_typed(tmp_path: Path) -> None:
    """A file name's byte that is not UTF-8 ($'\\xff' at the shell) is shown as `\\xff`, in
    every path message alike; Python's own escape `\\udcff` names a character nobody typed."""
    name = str(tmp_path / "\udcff.toml")  # what Python makes of the byte 0xff in argv
    code, _, err = bxb("new", "--ruleset", "gangfight", "-o", name)
    assert code == 0 and "wrote " in err and "\\xff.toml" in err, err
    assert (tmp_path / os.fsdecode(b"\xff.toml")).is_file()
    refused(*bxb("new", "--ruleset", "gangfight", "-o", name)[::2], "\\xff.toml already exists")
    missing = str(tmp_path / "no\udcff" / "x.toml")
    refused(*bxb("new", "--ruleset", "gangfight", "-o", missing)[::2], "the folder ", "no\\xff")
    db = str(tmp_path / "\udcff.db")
    refused(*bxb("--db", db, "battles")[::2], "not UTF-8 text (\\xff)")
    for said in (err, *(bxb("new", "--ruleset", "gangfight", "-o", p)[2] for p in (name, missing))):
        assert "udcff" not in said, said


def test_verify_of_a_file_with_no_header_names_the_file(tmp_path: Path) -> None:
    """An export that cannot be read as far as its battle's id is named by its file (or standard
    input), not by the id of no battle (00000000-…) and an empty label."""
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    code, out, _ = bxb("verify", "--file", str(empty))
    assert code == 1 and out == f"verify FAILED: {empty}: position 0: the file is empty\n", out
    code, out, _ = bxb("verify", "--file", "-")
    assert code == 1 and out.startswith("verify FAILED: standard input: position 0: "), out
