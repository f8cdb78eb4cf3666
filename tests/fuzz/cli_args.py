"""Every `bxb` command given bad arguments: each argument and option of each command, one at a
time, replaced by a value a careless or hostile user types (empty, `-`, a missing file, a
folder, a file of the wrong kind, not UTF-8, a huge or negative number, NUL, ...), the others
left good. Each run must be accepted, or refused with one `error:` line (exit 1, or 2 for
usage) and nothing written: not to the store, not beside it; never a traceback, never a hang.

The commands' arguments are read from the Typer app itself, so a new option is fuzzed without
being listed here; only the good values each command starts from are (``GOOD``). The suite runs
a sample (tests/fuzz/test_fuzz_cli.py); `python benchmarks/fuzz.py` runs every case."""

from __future__ import annotations

import hashlib
import os
import shlex
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import typer
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fuzz_helpers import REPO, Tally, bxb, stored_events

from blowbyblow.cli.main import app

SHIPPED = REPO / "cli" / "scenarios" / "necromunda-2023.toml"
ROSTER = REPO / "docs" / "rosters" / "iron-fists.toml"

# Commands never run here: `serve` and `witness serve` given good values serve until stopped (a
# hang by design); their bad ports and keys are tested in tests/web/test_cli_serve.py and
# tests/evidence.
SKIPPED = ("serve", "witness serve")


@dataclass(frozen=True)
class Workspace:
    """A folder holding a store with two battles, a sealed one and an open one, and every kind
    of file a command reads: a scenario, an export, keys, receipts, a root and its proofs."""

    folder: Path

    @property
    def db(self) -> Path:
        return self.folder / "store.sqlite"

    @property
    def scenario(self) -> Path:
        return self.folder / "scenario.toml"

    def path(self, name: str) -> str:
        return str(self.folder / name)


def make_workspace(folder: Path) -> Workspace:
    ws = Workspace(folder)
    db = str(ws.db)
    # a copy: a command told to write over the scenario writes over the copy, never the repo's
    (folder / "scenario.toml").write_bytes(SHIPPED.read_bytes())
    scenario = ws.scenario
    steps = [
        ("keys", "new", "--dir", ws.path("keys")),
        ("--db", db, "record", "--quiet", "--label", "open", str(scenario)),
        ("--db", db, "record", "--quiet", "--label", "sealed", "--dice", "seed:s", str(scenario)),
        ("--db", db, "seal", "sealed", "--key", ws.path("keys/judge.key")),
        ("--db", db, "export", "sealed", "-o", ws.path("sealed.jsonl")),
        ("--db", db, "root", "--json"),
        ("--db", db, "root", "--proof", "open"),
        ("--db", db, "receipt", "open", "--key", ws.path("keys/judge.key")),
        # a battle to dispute (flag, rule, note, fork), and a tournament with a roster and a table
        ("--db", db, "record", "--quiet", "--label", "disputed", "--dice", "seed:d", str(scenario)),
        ("--db", db, "tournament", "new", "autumn", "--name", "Autumn"),
        ("--db", db, "roster", "import", str(ROSTER), "--tournament", "autumn"),
        ("--db", db, "tables", "add", "autumn", "--count", "1", "--url", "http://h:1"),
    ]
    outputs = {5: "root.json", 6: "proof.json", 7: "receipts.txt"}
    for n, step in enumerate(steps):
        ran = bxb("--log-level", "error", *step)
        assert ran.code == 0 and ran.crash is None, (step, ran.err, ran.crash)
        if n in outputs:
            (folder / outputs[n]).write_text(ran.out, encoding="utf-8")
    (folder / "locked.key").write_bytes(  # a key protected by a password bxb never asks for
        Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    (folder / "notes.txt").write_text("my notes, not a store\n", encoding="utf-8")
    (folder / "binary.bin").write_bytes(b"\xff\xfe\x00\x01 not utf-8 \xc3")
    (folder / "empty").write_bytes(b"")
    (folder / "a-folder").mkdir()
    return ws


def good_arguments(ws: Workspace) -> dict[str, list[str]]:
    """Each command line that a case starts from (all of it accepted, or refused only for what
    the store holds already, e.g. a battle recorded twice)."""
    key = ws.path("keys/judge.key")
    pub = (ws.folder / "keys" / "judge.pub").read_text().strip()
    root = (ws.folder / "root.json").read_text().splitlines()[0]
    return {
        "receipt": ["receipt", "open", "--key", key, "--json"],
        "root": ["root", "open", "sealed", "--since", ws.path("root.json"), "--json"],
        "root --proof": ["root", "--proof", "open"],
        "check-proof": ["check-proof", ws.path("proof.json"), "--root", root],
        "verify": ["verify", "open", "--receipt", ws.path("receipts.txt"), "--receipt-key", pub],
        "verify --public-key": ["verify", "sealed", "--public-key", pub],
        "verify --file": ["verify", "--file", ws.path("sealed.jsonl"), "--public-key", pub],
        "seal": ["seal", "open", "--key", key],
        "export": ["export", "open", "-o", ws.path("out.jsonl")],
        "import": ["import", ws.path("sealed.jsonl"), "--public-key", pub],
        "whatif": ["whatif", "open", "--ruling", "x", "--ruleset", "necromunda-legacy", "--save"],
        "diff": ["diff", "open", "sealed"],
        "void": ["void", "1", "--reason", "a mistake", "--battle", "open", "--by", "judge"],
        "play": ["play", str(ws.scenario), "--dice", "seed:p", "--label", "p", "--key", key],
        "play --battle": [
            "play",
            "--battle",
            "open",
            "--by",
            "judge",
            "--receipts",
            ws.path("r.txt"),
        ],
        "play --fair": [
            "play",
            str(ws.scenario),
            "--fair",
            "--judge-key",
            ws.path("keys/judge.escrow.pub"),
        ],
        "rulesets": ["rulesets", "--json"],
        "record": [
            "record",
            str(ws.scenario),
            "--dice",
            "seed:r",
            "--label",
            "r",
            "--ruleset",
            "necromunda-2023",
        ],
        "record --fair": [
            "record",
            str(ws.scenario),
            "--fair",
            "--judge-key",
            ws.path("keys/judge.escrow.pub"),
        ],
        "demo": ["demo", "--ruleset", "asl"],
        "battles": ["battles", "--json", "--abandoned-after", "24"],
        "log": ["log", "open", "--json"],
        "at": ["at", "3", "open", "--json"],
        "new": ["new", "--ruleset", "gangfight", "-o", ws.path("new.toml")],
        "examples": ["examples", "asl", "-o", ws.path("example.toml")],
        # few runs of the rules: a bad value elsewhere on the line leaves them to be run
        "odds": ["odds", str(ws.scenario), "--command", "1", "--budget", "20", "--samples", "20"],
        "odds --battle": [
            "odds",
            *("--battle", "open", "--position", "3", "--budget", "20", "--samples", "20"),
        ],
        "luck": ["luck", "open", "--budget", "50", "--samples", "5", "--seed", "x"],
        "keys new": ["keys", "new", "--dir", ws.path("more-keys"), "--name", "judge"],
        "keys public": ["keys", "public", "--key", key],
        "tournament new": ["tournament", "new", "spring", "--name", "Spring"],
        "tournament list": ["tournament", "list"],
        "tables add": ["tables", "add", "spring", "--count", "2", "--url", "http://h:1"],
        "tables list": ["tables", "list", "autumn"],
        "tables reissue": ["tables", "reissue", "autumn", "1", "--url", "http://h:1"],
        "tables revoke": ["tables", "revoke", "autumn", "1"],
        "roster import": [
            "roster",
            "import",
            str(REPO / "docs/rosters/wild-cats.json"),
            "--tournament",
            "autumn",
        ],
        "roster list": ["roster", "list", "--tournament", "autumn", "--player", "Ana"],
        "roster export": ["roster", "export", *ROSTER_ARGS, "-o", ws.path("roster.toml")],
        "roster edit": ["roster", "edit", *ROSTER_ARGS, "--set", "brak.ws=5", "--reason", "hurt"],
        "roster history": ["roster", "history", *ROSTER_ARGS],
        "witness key": ["witness", "key", "club.example/w1", "--key", key],
        "witness log-key": ["witness", "log-key", "autumn.example/root", "--key", key],
        "flag": ["flag", "1", "--battle", "disputed", "--reason", "a die", "--by", "escher"],
        "rule": ["rule", "1", "--battle", "disputed", "--reason", "stands", "--key", key],
        "note": ["note", "3", "both agree", "--battle", "disputed", "--key", key, "--judge", "j"],
        # last: once accepted, a fork supersedes the disputed battle
        "fork": ["fork", "--battle", "disputed", "--before", "2", "--reason", "r", "--key", key],
    }


ROSTER_ARGS = ["--tournament", "autumn", "--player", "Ana", "--name", "The Iron Fists"]


def bad_values(ws: Workspace) -> dict[str, str]:
    """What a user may type where any argument is expected, by what it is."""
    return {
        "empty": "",
        "dash": "-",
        "space": " ",
        "missing file": ws.path("no-such-file"),
        "missing folder": ws.path("no-such-folder/file"),
        "folder": ws.path("a-folder"),
        "empty file": ws.path("empty"),
        "text file": ws.path("notes.txt"),
        "binary file": ws.path("binary.bin"),
        "the store": str(ws.db),
        "a scenario": str(ws.scenario),
        "an export": ws.path("sealed.jsonl"),
        "a private key": ws.path("keys/judge.key"),
        "a public key": ws.path("keys/judge.pub"),
        "a password-protected key": ws.path("locked.key"),
        "an escrow key": ws.path("keys/judge.escrow.pub"),
        "receipts": ws.path("receipts.txt"),
        "/dev/null": "/dev/null",
        "huge number": "9" * 30,
        "more digits than int reads": "9" * 5000,
        "a superscript digit": "²",
        "a key and a superscript digit": "c1/hit=²",
        "2^64": str(2**64),
        "negative": "-1",
        "zero": "0",
        "fraction": "0.5",
        "nan": "nan",
        "inf": "inf",
        "1e999": "1e999",
        "long": "x" * 5000,
        "NUL": "a\x00b",
        "unicode": "é𝕏",
        "surrogate": "\udcff",  # a non-UTF-8 byte in a command-line argument, as Python has it
        "option-like": "--json",
        "a battle id not in the store": "00000000-0000-4000-8000-000000000000",
        "a prefix": "0",
        "a URL": "postgresql://judge:secret@127.0.0.1:1/none?connect_timeout=1",
        "key=value": "a=b",
        "json": '{"type": "charge"}',
    }


@dataclass(frozen=True)
class ArgCase:
    name: str  # e.g. "verify --public-key: --public-key = empty"
    argv: tuple[str, ...]
    slot: str  # what the case changes, e.g. "verify --public-key: --public-key"

    def shell(self) -> str:
        return "bxb " + " ".join(shlex.quote(a) for a in self.argv)


def _params(words: list[str]) -> tuple[list[str], list[str]]:
    """The options (and how many values each takes, 0 for a flag) and the number of positional
    arguments of the command ``words`` names, read from the app."""
    command = typer.main.get_command(app)
    for word in words:
        command = command.commands[word]  # type: ignore[attr-defined]
    options, arguments = [], []
    for param in command.params:
        if param.param_type_name == "option":
            if not getattr(param, "is_flag", False) and param.name not in ("help",):
                options.append(max(param.opts, key=len))
        else:
            arguments.append(param.name or "")
    return options, arguments


def _command_words(argv: list[str]) -> list[str]:
    """The words of ``argv`` that name its command (``tables add``), read from the app."""
    command = typer.main.get_command(app)
    words = []
    for word in argv:
        if not hasattr(command, "commands"):
            break
        command = command.commands[word]
        words.append(word)
    return words


def commands() -> list[str]:
    """Every command of the app, as its words (``tables add``)."""

    def leaves(command: object, words: tuple[str, ...]) -> Iterator[str]:
        if not hasattr(command, "commands"):
            yield " ".join(words)
            return
        for word, sub in command.commands.items():
            yield from leaves(sub, (*words, word))

    return sorted(leaves(typer.main.get_command(app), ()))


def cases(ws: Workspace) -> Iterator[ArgCase]:
    """Every command line of ``good_arguments`` with one argument or option value replaced by
    each bad value, an option given with no value, and --db and --log-level bad before each."""
    bad = bad_values(ws)
    db = ["--db", str(ws.db), "--log-level", "error"]
    for name, argv in good_arguments(ws).items():
        words = _command_words(argv)
        options, _arguments = _params(words)
        slots = _slots(argv, len(words), options)
        for where, index in slots:
            for what, value in bad.items():
                changed = [*argv]
                if index is None:  # an option the good line does not give: add it
                    changed += [where, value]
                else:
                    changed[index] = value
                yield ArgCase(f"{name}: {where} = {what}", (*db, *changed), f"{name}: {where}")
        for option in options:  # an option with its value missing, at the end of the line
            slot = f"{name}: {option} with no value"
            yield ArgCase(slot, (*db, *argv, option), slot)
        slot = f"{name}: an argument too many"
        yield ArgCase(slot, (*db, *argv, "extra"), slot)
        for what in ("empty", "folder", "text file", "binary file", "missing folder", "a URL"):
            yield ArgCase(
                f"{name}: --db before it = {what}",
                ("--db", bad[what], "--log-level", "error", *argv),
                f"{name}: --db before it",
            )


def sample(every: list[ArgCase], rounds: int) -> list[ArgCase]:
    """``rounds`` cases of each slot (each argument and option of each command, each option with
    no value, ...), the bad values taken in turn from slot to slot: every command and every
    option in it, each bad value in many places, and the same cases every run."""
    slots: dict[str, list[ArgCase]] = {}
    for case in every:
        slots.setdefault(case.slot, []).append(case)
    picked = []
    for i, group in enumerate(slots.values()):
        n = min(rounds, len(group))
        picked += [group[(i + r * len(group) // n) % len(group)] for r in range(n)]
    return picked


def _slots(argv: list[str], skip: int, options: list[str]) -> list[tuple[str, int | None]]:
    """Where a value goes in ``argv``: each positional argument and option value given (by
    index), and each option the line does not give (None: appended)."""
    slots: list[tuple[str, int | None]] = []
    given: set[str] = set()
    i = skip
    positional = 0
    while i < len(argv):
        word = argv[i]
        if word.startswith("-") and len(word) > 1:
            takes = word in options or word in ("-o", "-n")
            if takes and i + 1 < len(argv):
                slots.append((word, i + 1))
                given.add(word)
                i += 2
                continue
            i += 1
            continue
        positional += 1
        slots.append((f"argument {positional}", i))
        i += 1
    slots += [(option, None) for option in options if option not in given]
    return slots


def snapshot(ws: Workspace) -> dict[str, str]:
    """What a refusal must leave as it was: every file in the workspace, a SQLite store by its
    events (SQLite itself checkpoints, and makes and removes -wal and -shm files, as earlier runs'
    connections close), any other file by its digest, and every folder."""
    found = {}
    for root, dirs, names in os.walk(ws.folder):
        for name in names:
            path = Path(root) / name
            key = str(path.relative_to(ws.folder))
            if name.endswith(("-wal", "-shm", "-journal")):
                continue
            data = path.read_bytes()
            found[key] = hashlib.sha256(data).hexdigest()
            if data.startswith(b"SQLite format 3\x00"):
                try:
                    found[key] = f"{stored_events(path)} events"
                except sqlite3.DatabaseError as e:  # a store a command broke: by its bytes
                    found[key] += f" ({e})"
        for d in dirs:
            found[str((Path(root) / d).relative_to(ws.folder)) + "/"] = "folder"
    return found


# A command's verdict, exit 1 and no `error:` line: what it checked failed (verify, root,
# check-proof, a receipt, a checkpoint), or the battles differ (diff, as diff(1) does).
VERDICTS = (
    "verify FAILED",
    "root FAILED",
    "proof FAILED",
    "receipt FAILED",
    "checkpoint FAILED",
    "play: first divergence",
)
FAIR_START_KEPT = "is started and stays in the store"


def run_case(case: ArgCase, ws: Workspace, tally: Tally) -> None:
    tally.mutations += 1
    before = snapshot(ws)
    ran = bxb(*case.argv)
    after = snapshot(ws)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    name = f"{case.name}\n  {case.shell()[:300]}"
    if changed and ran.code != 0:
        name += f"\n  changed: {changed}"
    # A fair battle's start (commitment, escrow) is written before the sides' contributions are
    # asked, and stays by design (docs/store.md): a refusal after it says so, and is no leak.
    kept = ran.code == 1 and FAIR_START_KEPT in ran.err
    tally.add(name, ran, bool(changed) and not kept, verdicts=VERDICTS)
