"""Fuzzing `bxb` with what a careless or hostile user hands it: mutations of every shipped scenario
and of exported battles, each run through the real command line (in this process, as
`typer.testing.CliRunner` does, ``invoke``), and what happened classified.

A run is fine when `bxb` accepts the input (exit 0) or refuses it with one `error:` line (exit 1,
or 2 for usage) and nothing written to the store. It is a finding when it raises (a traceback,
or exit 70: bxb's own "this is a bug"), when it runs longer than ``HANG_SECONDS`` (a hang), or
when it refuses after writing (a write on refusal).

The suite runs a few dozen cases of each (tests/fuzz/test_fuzz.py); `python benchmarks/fuzz.py`
runs thousands, by hand, with the same mutations and the same checks."""

from __future__ import annotations

import copy
import json
import math
import os
import signal
import sqlite3
import sys
import time
import tomllib
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any

import msgspec
import tomlkit
import typer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from blowbyblow.cli.app import INTERNAL_ERROR
from blowbyblow.cli.main import app
from blowbyblow.replay.battles.record import seal_battle
from blowbyblow.replay.evidence.export import export_battle
from blowbyblow.replay.store.log import BattleStore

from bxbtest import RULESET_IDS, record_demo

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((REPO / "cli" / "scenarios").glob("*.toml"))

# A run that spends more CPU time than this is a hang. One command must never take a second
# (docs/scenarios.md, Bounds); a whole scenario is a few dozen commands: 10 s is far beyond any
# honest run and well short of "for ever". CPU time, not the clock's: a machine loaded by other
# work slows a run down without making it a hang, and the suite's verdict must not depend on it.
# A run blocked without spending CPU (a lock, a read) is a hang after WAIT_FACTOR times as long
# by the clock.
HANG_SECONDS = float(os.environ.get("BXB_FUZZ_HANG_SECONDS", "10"))
WAIT_FACTOR = 6


class Hung(BaseException):
    """Raised by the alarm in a run that took too long (a BaseException: bxb's own error handler,
    which catches Exception, must not swallow it)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``Hung`` in a run that spends ``seconds`` of CPU time, or ``WAIT_FACTOR`` times as
    long by the clock."""

    def ring(signum: int, frame: FrameType | None) -> None:
        raise Hung

    timers = (
        (signal.SIGPROF, signal.ITIMER_PROF, 1),
        (signal.SIGALRM, signal.ITIMER_REAL, WAIT_FACTOR),
    )
    previous = [signal.signal(sig, ring) for sig, _, _ in timers]
    for _, timer, factor in timers:
        signal.setitimer(timer, seconds * factor)
    try:
        yield
    finally:
        for (sig, timer, _), handler in zip(timers, previous, strict=True):
            signal.setitimer(timer, 0)
            signal.signal(sig, handler)


# The command `bxb` runs, built once: Typer builds it from the app's functions, and building it
# anew for each run (as typer.testing.CliRunner.invoke does) is most of a refused run's time.
COMMAND = typer.main.get_command(app)


def invoke(args: Sequence[str], input: str | None = None) -> Result:
    """``bxb ARGS`` in this process, as ``typer.testing.CliRunner().invoke(app, ARGS)`` runs it
    (standard streams captured, ``input`` on standard input), on ``COMMAND``."""
    runner = CliRunner()
    with runner.isolation(input=input) as (out, err, both):
        code = 0
        exception: BaseException | None = None
        try:
            COMMAND.main(args=list(args), prog_name="bxb")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
            exception = e if code else None
        except Exception as e:  # bxb let an exception out: the finding the fuzz looks for
            code, exception = 1, e
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        return Result(
            runner, out.getvalue(), err.getvalue(), both.getvalue(), None, code, exception
        )


@dataclass
class Ran:
    """One run of `bxb`: exit code, standard output and error, and a crash's traceback."""

    code: int
    out: str
    err: str
    crash: str | None = None
    hung: bool = False
    seconds: float = 0.0


def bxb(*args: str) -> Ran:
    start = time.perf_counter()
    try:
        with time_limit(HANG_SECONDS):
            result = invoke(args)
    except Hung:
        return Ran(code=-1, out="", err="", hung=True, seconds=time.perf_counter() - start)
    seconds = time.perf_counter() - start
    crash = None
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        crash = "".join(traceback.format_exception(exc))
    elif result.exit_code == INTERNAL_ERROR:
        crash = result.stderr
    return Ran(result.exit_code, result.stdout, result.stderr, crash=crash, seconds=seconds)


def stored_events(db: Path) -> int:
    """How many events the SQLite store holds (0 before it exists)."""
    if not db.exists():
        return 0
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        (n,) = con.execute("select count(*) from stored_events").fetchone()
        return int(n)
    except sqlite3.OperationalError:  # no table yet
        return 0
    finally:
        con.close()


@dataclass
class Tally:
    """What the runs gave: counts, and each finding with the case that made it."""

    mutations: int = 0
    tried: int = 0  # runs of bxb: an export is run twice (verify --file, import)
    accepted: int = 0
    refused: int = 0
    tracebacks: list[str] = field(default_factory=list)
    hangs: list[str] = field(default_factory=list)
    writes_on_refusal: list[str] = field(default_factory=list)
    unclear: list[str] = field(default_factory=list)  # refused without one `error:` line
    slowest: float = 0.0  # seconds, of the slowest run
    slowest_case: str = ""

    def add(self, case: str, ran: Ran, wrote: bool, *, verdicts: tuple[str, ...] = ()) -> None:
        self.tried += 1
        if ran.seconds > self.slowest:
            self.slowest, self.slowest_case = ran.seconds, case
        if ran.hung:
            self.hangs.append(case)
        elif ran.crash is not None:
            self.tracebacks.append(f"{case}\n{ran.crash}")
        elif ran.code == 0:
            self.accepted += 1
        else:
            self.refused += 1
            if wrote:
                self.writes_on_refusal.append(case)
            said = [line for line in ran.err.splitlines() if line.startswith("error:")]
            said += [
                line
                for line in (ran.out + "\n" + ran.err).splitlines()
                if verdicts and line.startswith(verdicts)
            ]
            if ran.code not in (1, 2) or len(said) != 1:
                self.unclear.append(f"{case}\nexit {ran.code}: {ran.err[-500:]}")

    def findings(self) -> list[str]:
        return self.tracebacks + self.hangs + self.writes_on_refusal + self.unclear

    def summary(self) -> dict[str, int | float | str]:
        return {
            "mutations tried": self.mutations,
            "bxb runs": self.tried,
            "accepted": self.accepted,
            "refused": self.refused,
            "tracebacks": len(self.tracebacks),
            "hangs": len(self.hangs),
            "writes on refusal": len(self.writes_on_refusal),
            "refused without one error line": len(self.unclear),
            "slowest run (s)": round(self.slowest, 2),
            "slowest case": self.slowest_case[:200],
        }


# --- what a mutation puts in ---------------------------------------------------------------

NASTY_INTEGERS = (0, -1, 1, 2, 6, 7, 12, 13, 20, 21, 100, 1000, 10**8, 2**31, 2**53, 2**53 + 1)
HUGE_INTEGERS = (2**63 - 1, 2**63, 2**64, 2**70, -(2**63) - 1, -(10**8), 10**30)
NASTY_FLOATS = (math.inf, -math.inf, math.nan, 0.5, -0.0, 1e308, 1e-308, 0.25, 1e16, 2.5)
NASTY_TEXTS = (
    "",
    " ",
    "-",
    "nan",
    "NaN",
    "sNaN",
    "inf",
    "-Infinity",
    "1e999",
    "D6",
    "999D999",
    "0D6",
    "D0",
    "\x00",
    "é",
    "𝕏",
    "../../etc/passwd",
    "a" * 5000,
    "unarmed",
    "true",
    "42",
    "c1/step8",
    "²",  # a digit to str.isdigit, not to int
    "9" * 5000,  # more digits than int reads
)


def values(known: tuple[str, ...]) -> st.SearchStrategy[Any]:
    """Values a mutation puts in: edge numbers, text, the file's own ids, small structures."""
    scalars = st.one_of(
        st.sampled_from(NASTY_INTEGERS),
        st.sampled_from(HUGE_INTEGERS),
        st.integers(),
        st.sampled_from(NASTY_FLOATS),
        st.floats(),
        st.sampled_from(NASTY_TEXTS),
        st.text(max_size=12),
        st.booleans(),
        *([st.sampled_from(known)] if known else []),
    )
    return st.one_of(
        scalars,
        st.lists(scalars, max_size=4),
        st.dictionaries(st.sampled_from(("id", "type", "a", "x", "")), scalars, max_size=3),
    )


Path_ = tuple[str | int, ...]


def node_paths(value: Any, prefix: Path_ = ()) -> list[Path_]:
    """Every place in a tree of dicts and lists, as a path of keys and indices."""
    found: list[Path_] = []
    items: list[tuple[str | int, Any]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    for key, child in items:
        found.append((*prefix, key))
        found.extend(node_paths(child, (*prefix, key)))
    return found


def texts_in(value: Any) -> tuple[str, ...]:
    """The strings a tree holds (ids a mutation may cross-reference), in order, once each."""
    if isinstance(value, str):
        return (value,)
    children = (
        value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    )
    seen: dict[str, None] = {}
    for child in children:
        seen.update(dict.fromkeys(texts_in(child)))
    return tuple(seen)


def _at(tree: Any, path: Path_) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _describe(path: Path_) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path) or "(top)"


Mutation = Callable[[Any], str]  # mutates a tree in place; says what it did


@st.composite
def tree_mutation(draw: st.DrawFn, tree: Any) -> Mutation:
    """One change to a tree of dicts and lists: replace, delete, repeat, empty, add a key."""
    paths = node_paths(tree)
    numbers = [p for p in paths if _is_number(_at(tree, p))]
    kind = draw(
        st.sampled_from(
            ("number", "number", "replace", "replace", "delete", "repeat", "empty", "add")
        )
    )
    if kind == "number" and numbers:  # the likeliest to find a bound missing: a count of 10^8
        path = draw(st.sampled_from(numbers))
        value = draw(st.sampled_from((*NASTY_INTEGERS, *HUGE_INTEGERS, *NASTY_FLOATS)))
        kind = "replace"
    else:
        path = draw(st.sampled_from(paths)) if paths else ()
        value = draw(values(texts_in(tree)))
    times = draw(st.sampled_from((1, 2, 10, 100, 1000)))

    def mutate(t: Any) -> str:
        if not path:
            return "nothing"
        parent, key = _at(t, path[:-1]), path[-1]
        target = parent[key]
        if kind == "replace":
            parent[key] = value
            return f"{_describe(path)} = {value!r:.60}"
        if kind == "delete":
            del parent[key]
            return f"del {_describe(path)}"
        if kind == "repeat" and isinstance(target, list) and target:
            target.extend(copy.deepcopy(target[0]) for _ in range(times))
            return f"{_describe(path)} +{times} copies of its first"
        if kind == "empty" and isinstance(target, list | dict):
            target.clear()
            return f"{_describe(path)} emptied"
        if kind == "add" and isinstance(target, dict):
            target["unexpected"] = value
            return f"{_describe(path)}.unexpected = {value!r:.60}"
        parent[key] = value
        return f"{_describe(path)} = {value!r:.60}"

    return mutate


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@st.composite
def text_mutation(draw: st.DrawFn, text: bytes) -> tuple[bytes, str]:
    """A change to a file's bytes that no structure-aware change makes."""
    at = draw(st.integers(0, max(0, len(text) - 1)))
    kind = draw(
        st.sampled_from(
            ("bad utf-8", "truncate", "deep", "number", "repeat line", "huge", "bom", "crlf")
        )
    )
    if kind == "bad utf-8":
        return text[:at] + b"\xff\xfe\xc3" + text[at:], f"bad UTF-8 at byte {at}"
    if kind == "truncate":
        return text[:at], f"truncated at byte {at}"
    if kind == "deep":
        depth = draw(st.sampled_from((40, 1000, 100_000)))
        return text + f"\ndeep = {deep(depth)}\n".encode(), f"nested {depth} deep"
    if kind == "number":
        literal = draw(st.sampled_from(("1e999", "-1e999", "inf", "nan", str(2**64), "-0", "1.5")))
        digits = [i for i, b in enumerate(text) if chr(b).isdigit()]
        if digits:
            i = draw(st.sampled_from(digits))
            j = i
            while j < len(text) and chr(text[j]).isdigit():
                j += 1
            return text[:i] + literal.encode() + text[j:], f"number at byte {i} -> {literal}"
        return text, "no number"
    if kind == "repeat line":
        lines = text.split(b"\n")
        n = draw(st.integers(0, max(0, len(lines) - 1)))
        return b"\n".join([*lines[: n + 1], *lines[n:]]), f"line {n + 1} repeated"
    if kind == "huge":
        return text + b"# " + b"x" * (2 * 1024 * 1024) + b"\n", "2 MiB more"
    if kind == "bom":
        return b"\xef\xbb\xbf" + text, "byte order mark"
    return text.replace(b"\n", b"\r\n"), "CRLF line ends"


# --- scenario files ------------------------------------------------------------------------


@cache
def scenario_data(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Case:
    name: str  # what was mutated, to reproduce it
    data: bytes


@st.composite
def scenario_cases(draw: st.DrawFn) -> Case:
    """A shipped scenario file, changed once to three times (or one of its bytes changed)."""
    path = draw(st.sampled_from(SCENARIOS))
    if draw(st.integers(0, 4)) == 0:
        data, said = draw(text_mutation(path.read_bytes()))
        return Case(f"{path.name}: {said}", data)
    tree = copy.deepcopy(scenario_data(path))
    changes = [draw(tree_mutation(tree))(tree) for _ in range(draw(st.integers(1, 3)))]
    try:
        text = tomlkit.dumps(tree)
    except Exception:  # a tree TOML cannot hold (a list of lists of tables, say)
        text = tomlkit.dumps(scenario_data(path))
        changes = ["(unchanged: TOML cannot hold the change)"]
    return Case(f"{path.name}: {'; '.join(changes)}", text.encode("utf-8", "surrogatepass"))


def run_scenario(case: Case, folder: Path, tally: Tally) -> None:
    """`bxb record` the case into the store in ``folder``: accepted, or refused writing nothing."""
    tally.mutations += 1
    scenario = folder / "case.toml"
    scenario.write_bytes(case.data)
    db = folder / "store.sqlite"
    before = stored_events(db)
    # a label of its own: the same battle twice would be refused before it is adjudicated
    label = f"case {tally.mutations}"
    ran = bxb(
        "--db",
        str(db),
        "--log-level",
        "error",
        "record",
        "--quiet",
        "--label",
        label,
        str(scenario),
    )
    tally.add(case.name, ran, stored_events(db) != before)


# --- exports -------------------------------------------------------------------------------


@cache
def demo_exports() -> tuple[bytes, ...]:
    """Every game system's demo battle exported, and one of them sealed."""
    store = BattleStore(":memory:")
    battles = [record_demo(store, ruleset).battle for ruleset in RULESET_IDS]
    seal_battle(store, battles[0], Ed25519PrivateKey.generate())
    return tuple(export_battle(store, battle) for battle in battles)


@st.composite
def export_cases(draw: st.DrawFn, exports: tuple[bytes, ...]) -> Case:
    """An exported battle, one of its lines changed (or its bytes, or its lines' order)."""
    n = draw(st.integers(0, len(exports) - 1))
    text = exports[n]
    roll = draw(st.integers(0, 5))
    if roll == 0:
        data, said = draw(text_mutation(text))
        return Case(f"export {n}: {said}", data)
    lines = text.decode().splitlines()
    if roll == 1:
        i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(("delete", "swap", "repeat")))
        if action == "delete":
            del lines[i]
        elif action == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(i, lines[j])
        return Case(f"export {n}: {action} lines {i + 1}, {j + 1}", _joined(lines))
    i = draw(st.integers(0, len(lines) - 1))
    line = msgspec.json.decode(lines[i])
    changes = [draw(tree_mutation(line))(line) for _ in range(draw(st.integers(1, 2)))]
    # Python's json writes NaN, Infinity and any integer: what a hostile file may hold
    lines[i] = json.dumps(line, sort_keys=True)
    return Case(f"export {n} line {i + 1}: {'; '.join(changes)}", _joined(lines))


def _joined(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def run_export(case: Case, folder: Path, tally: Tally) -> None:
    """`bxb verify --file` the case, then `bxb import` it: each accepted, or refused writing
    nothing (verify's refusal is its "verify FAILED" verdict)."""
    tally.mutations += 1
    exported = folder / "case.jsonl"
    exported.write_bytes(case.data)
    ran = bxb("--log-level", "error", "verify", "--file", str(exported))
    tally.add(f"verify --file: {case.name}", ran, False, verdicts=("verify FAILED",))
    db = folder / "store.sqlite"
    before = stored_events(db)
    ran = bxb("--db", str(db), "--log-level", "error", "import", str(exported))
    tally.add(f"import: {case.name}", ran, stored_events(db) != before)


# --- commands typed at `bxb play`'s prompt ---------------------------------------------------


@cache
def typed_setups(folder: Path) -> tuple[tuple[Path, tuple[str, ...]], ...]:
    """Each shipped scenario as a setup (its actions, dice and choices taken out) written in
    ``folder``, with its actions as the lines a player would type for them."""
    from blowbyblow.replay.engine.scenario import load_scenario
    from blowbyblow.replay.engine.typed import format_command

    found = []
    for path in SCENARIOS:
        lines = tuple(format_command(c) for c in load_scenario(path).commands)
        data = {k: v for k, v in scenario_data(path).items() if k not in ("actions", "dice")}
        data.pop("choices", None)
        data.pop("seed", None)
        setup = folder / f"setup-{path.name}"
        setup.write_text(tomlkit.dumps(data), encoding="utf-8")
        found.append((setup, lines))
    return tuple(found)


@st.composite
def typed_line_mutation(draw: st.DrawFn, line: str, known: tuple[str, ...]) -> tuple[str, str]:
    """A typed command changed once: a field's value, a field dropped, repeated or made up, a
    token's text, or the line cut short; or a line of the prompt's own words (an offered
    command's number, `flag N REASON`, `undo REASON`) with a nasty text in it."""
    tokens = line.split(" ")
    i = draw(st.integers(0, len(tokens) - 1))
    kind = draw(
        st.sampled_from(("value", "value", "drop", "repeat", "field", "text", "cut", "prompt"))
    )
    if kind == "prompt":
        word = draw(st.sampled_from(("flag", "flag 1", "undo", "1", "help")))
        nasty = draw(st.sampled_from(NASTY_TEXTS))
        return f"{word} {nasty}", f"prompt {word!r}"
    name, eq, _ = tokens[i].partition("=")
    if kind == "value" and eq:
        value = draw(
            st.one_of(
                st.sampled_from(known),
                st.sampled_from(NASTY_TEXTS[:17]),
                st.sampled_from([str(n) for n in (*NASTY_INTEGERS, *HUGE_INTEGERS)]),
                st.sampled_from(("inf", "nan", "1e999", "0.5", "[1,2]", "{a=1}", '"x"', ",", ":")),
                st.text(max_size=8),
            )
        )
        tokens[i] = f"{name}={value}"
    elif kind == "drop":
        del tokens[i]
    elif kind == "repeat":
        tokens.insert(i, tokens[i])
    elif kind == "field":
        tokens.insert(i, draw(st.sampled_from(("x=1", "=", "type=charge", "a.b.c=1", "==", "a="))))
    elif kind == "text":
        tokens[i] = draw(st.sampled_from(NASTY_TEXTS))
    else:
        cut = draw(st.integers(0, len(line)))
        return line[:cut], f"cut at {cut}"
    return " ".join(tokens), f"{kind} at token {i}"


@dataclass(frozen=True)
class TypedCase:
    name: str
    setup: Path
    lines: tuple[str, ...]


@st.composite
def typed_cases(draw: st.DrawFn, setups: tuple[tuple[Path, tuple[str, ...]], ...]) -> TypedCase:
    """One to three lines typed at the prompt of a battle started from a shipped setup: each a
    command of the scenario, changed once or left as it is (to play on from)."""
    setup, commands = draw(st.sampled_from(setups))
    known = texts_in([c.replace("=", " ").replace(",", " ").split(" ") for c in commands])
    typed, said = [], []
    for _ in range(draw(st.integers(1, 3))):
        line = draw(st.sampled_from(commands))
        if draw(st.booleans()):
            line, what = draw(typed_line_mutation(line, known))
            said.append(what)
        typed.append(line)
    return TypedCase(
        f"{setup.name}: {' | '.join(typed)!r:.300} ({'; '.join(said)})", setup, tuple(typed)
    )


def run_typed(case: TypedCase, folder: Path, tally: Tally) -> None:
    """`bxb play` the setup with seeded dice and type the case's lines (Enter to every question
    the rules ask, then `quit`): the session ends cleanly, whatever was typed."""
    tally.mutations += 1
    db = folder / "store.sqlite"
    answers = "".join(f"{line}\n" + "\n" * 12 for line in case.lines) + "quit\n"
    start = time.perf_counter()
    try:
        with time_limit(HANG_SECONDS):
            result = invoke(
                [
                    "--db",
                    str(db),
                    "--log-level",
                    "error",
                    "play",
                    str(case.setup),
                    "--dice",
                    "seed:fuzz",
                    "--label",
                    f"case {tally.mutations}",
                ],
                input=answers,
            )
    except Hung:
        tally.add(case.name, Ran(-1, "", "", hung=True), False)
        return
    ran = Ran(result.exit_code, result.stdout, result.stderr, seconds=time.perf_counter() - start)
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        ran.crash = "".join(traceback.format_exception(exc))
    elif result.exit_code == INTERNAL_ERROR or "Traceback" in result.stdout + result.stderr:
        ran.crash = (result.stdout + result.stderr)[-3000:]
    tally.add(case.name, ran, False)
