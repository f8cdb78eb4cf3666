"""`bxb record --fair` at a real terminal (a pseudo-terminal): the commitment is shown before
the sides type their contributions; walking away at the prompt leaves the started battle."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from blowbyblow.domain.core import BattleStarted
from blowbyblow.domain.judging import ContributionGiven
from blowbyblow.replay.evidence.seals import KeyFiles, new_keys
from blowbyblow.replay.store.log import BattleStore

SCENARIO = Path(__file__).resolve().parents[2] / "cli" / "scenarios" / "necromunda-2023.toml"


class Terminal:
    """``bxb`` run in a pseudo-terminal, as a person at the table runs it."""

    def __init__(self, *args: str) -> None:
        bxb = str(Path(sys.executable).with_name("bxb"))
        pid, fd = pty.fork()
        if pid == 0:  # the child: bxb, with the terminal as its own
            # As at a real terminal, Ctrl-C interrupts (a shell running tests in the background
            # may have passed SIGINT on ignored).
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.execv(bxb, [bxb, *args])
        self.pid, self.fd, self.seen = pid, fd, ""

    def expect(self, pattern: str, timeout: float = 30) -> re.Match[str]:
        end = time.monotonic() + timeout
        while (found := re.search(pattern, self.seen)) is None:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise AssertionError(f"never saw {pattern!r}; the terminal shows:\n{self.seen}")
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:  # the child has closed the terminal
                chunk = b""
            if not chunk:
                raise AssertionError(f"ended before {pattern!r}; the terminal shows:\n{self.seen}")
            self.seen += chunk.decode(errors="replace").replace("\r\n", "\n")
        return found

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def ended(self, wait: float) -> bool:
        """Whether bxb has closed the terminal within ``wait`` seconds (what it wrote is kept)."""
        end = time.monotonic() + wait
        while select.select([self.fd], [], [], max(0, end - time.monotonic()))[0]:
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                return True
            if not chunk:
                return True
            self.seen += chunk.decode(errors="replace").replace("\r\n", "\n")
        return False

    def exit_code(self, timeout: float = 30) -> int:
        """Read what is left until bxb closes the terminal, then its exit status."""
        end = time.monotonic() + timeout
        while select.select([self.fd], [], [], max(0, end - time.monotonic()))[0]:
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:  # closed: Linux says EIO
                break
            if not chunk:
                break
            self.seen += chunk.decode(errors="replace").replace("\r\n", "\n")
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


@pytest.fixture
def judge(tmp_path: Path) -> KeyFiles:
    return new_keys(tmp_path / "judge")


def _record(db: Path, judge: KeyFiles) -> Terminal:
    return Terminal(
        "--db", str(db), "--log-level", "warning", "record", str(SCENARIO), "--quiet", "--fair",
        "--judge-key", str(judge.escrow),
    )  # fmt: skip


def test_the_sides_type_their_contributions_after_seeing_the_commitment(
    tmp_path: Path, judge: KeyFiles
) -> None:
    db = tmp_path / "b.sqlite"
    term = _record(db, judge)
    shown = term.expect(r"secret seed is committed: ([0-9a-f]{64})").group(1)
    term.expect(r"goliath's contribution: $")
    term.type("chainaxe\n")
    term.expect(r"escher's contribution: $")
    term.type("\n")  # nothing typed: asked again
    term.expect(r"not accepted: .*\n.*escher's contribution: $")
    term.type("wych\n")
    code = term.exit_code()
    [battle] = BattleStore(db).battles()
    events = [e.event for e in BattleStore(db).read(battle.battle)]
    first = events[0]
    assert isinstance(first, BattleStarted) and first.dice.commitment == shown
    given = [(e.side, e.value) for e in events if isinstance(e, ContributionGiven)]
    assert given == [("goliath", "chainaxe"), ("escher", "wych")]
    # The demo's later commands may be illegal under these dice; the start stays either way.
    assert code in (0, 1), term.seen
    assert ("recorded battle" in term.seen) == (code == 0), term.seen


@pytest.mark.parametrize("key", ["\x03", "\x04"], ids=["ctrl-c", "ctrl-d"])
def test_walking_away_at_the_prompt_keeps_the_started_battle(
    tmp_path: Path, judge: KeyFiles, key: str
) -> None:
    db = tmp_path / "b.sqlite"
    term = _record(db, judge)
    term.expect(r"goliath's contribution: $")
    term.type("chainaxe\n")
    term.expect(r"escher's contribution: $")
    term.type(key)
    # Python may take a Ctrl-C that lands just as its prompt starts reading only at the next
    # one: a person would press it again, until bxb says it stops (a Ctrl-C after that is
    # ignored: cli/app.py's fail).
    for _ in range(20):
        if term.ended(0.5):
            break
        if "is started and stays in the store" not in term.seen:
            term.type(key)
    assert term.exit_code() == 1, term.seen
    assert "Traceback" not in term.seen
    assert re.search(r"error: fair battle \S+ is started and stays in the store", term.seen)
    [battle] = BattleStore(db).battles()
    kinds = [type(e.event).__name__ for e in BattleStore(db).read(battle.battle)]
    assert kinds == ["BattleStarted", "SeedEscrowed"]


def test_with_json_the_prompts_go_to_standard_error(tmp_path: Path, judge: KeyFiles) -> None:
    """`record --fair --json` at a terminal whose standard output is a pipe (a script reading
    the JSON): the commitment and the contribution prompt are said on standard error, and
    standard output holds the one JSON line and nothing else."""
    import json
    import subprocess

    bxb = str(Path(sys.executable).with_name("bxb"))
    controller, terminal = pty.openpty()
    os.write(controller, b"chainaxe\nwych\n")  # the sides' values, typed ahead
    done = subprocess.run(
        [bxb, "--db", str(tmp_path / "b.sqlite"), "--log-level", "warning", "record",
         str(SCENARIO), "--fair", "--json", "--judge-key", str(judge.escrow)],
        stdin=terminal, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    os.close(terminal)
    os.close(controller)
    assert "escher's contribution: " in done.stderr, done.stderr
    assert "secret seed is committed" in done.stderr
    if done.returncode == 0:  # the demo's later commands may be illegal under these dice
        [line] = done.stdout.splitlines()
        assert json.loads(line)["battle"]
    else:
        assert done.stdout == "", done.stdout
