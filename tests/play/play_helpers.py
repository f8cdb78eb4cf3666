"""Driving ``bxb play`` through a real pseudo-terminal, as a player at a keyboard does: pexpect
spawns it in a pty, the terminal's escape sequences are stripped from what it shows, and each
wait looks for a pattern in what appeared since the last one."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pexpect

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "cli" / "scenarios"
BXB = str(Path(sys.executable).parent / "bxb")

# CSI sequences (colours, cursor moves, modes), OSC titles, and lone two-byte escapes.
_ESCAPES = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]"
)


def clean(raw: str) -> str:
    return _ESCAPES.sub("", raw).replace("\r", "")


class Player:
    """One ``bxb play`` process in a pseudo-terminal."""

    def __init__(self, db: Path, *args: str, timeout: float = 15) -> None:
        env = dict(os.environ, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", BXB_DB=str(db))
        env.pop("NO_COLOR", None)
        self.child = pexpect.spawn(
            BXB,
            ["--log-level", "warning", "play", *args],
            env=env,
            encoding="utf-8",
            timeout=timeout,
            dimensions=(60, 250),
        )
        self.child.delaybeforesend = None  # the waits below already pace the typing
        self.timeout = timeout
        self.raw = ""
        self.mark = 0  # where the next wait starts looking, in the clean text
        self._clean = ("", "")  # (raw, clean) last computed

    @property
    def text(self) -> str:
        """What the terminal showed so far, escape sequences stripped."""
        if self._clean[0] is not self.raw:
            self._clean = (self.raw, clean(self.raw))
        return self._clean[1]

    def _read(self) -> bool:
        try:
            self.raw += self.child.read_nonblocking(65536, timeout=0.01)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        return True

    def wait(self, pattern: str) -> re.Match[str]:
        """The first match of ``pattern`` in what the terminal showed since the last wait."""
        end = time.monotonic() + self.timeout
        compiled = re.compile(pattern)
        while True:
            found = compiled.search(self.text, self.mark)
            if found:
                self.mark = found.end()
                return found
            if not self._read() and not compiled.search(self.text, self.mark):
                raise AssertionError(
                    f"ended before {pattern!r}; it showed:\n{self.text[self.mark :]}"
                )
            if time.monotonic() > end:
                raise AssertionError(
                    f"no {pattern!r} in time; it showed:\n{self.text[self.mark :]}"
                )

    def type(self, line: str) -> None:
        """Type ``line`` and Enter at the prompt shown, and wait until it is taken (the prompt
        is drawn again with the line and a new line begins)."""
        self.child.sendline(line)
        self.wait(re.escape(line) + r"[ \t]*\n")

    def interrupt(self) -> None:
        """Ctrl-C, as typed at the prompt shown."""
        self.child.sendcontrol("c")

    def since(self) -> str:
        """What was shown since the last wait (without waiting)."""
        self._read()
        return self.text[self.mark :]

    def end(self) -> int:
        """Wait for the process to end; its exit status."""
        self.child.expect(pexpect.EOF, timeout=self.timeout)
        self.raw += self.child.before or ""
        self.child.close()
        return int(self.child.exitstatus if self.child.exitstatus is not None else -1)

    def hang_up(self) -> None:
        """The terminal closes (the kernel sends the process SIGHUP) and the process ends.

        pexpect gives a process 0.1 s after each signal before it calls the close failed; on a
        loaded machine a Python process takes longer than that to unwind, so it is given 5 s."""
        self.child.ptyproc.delayafterterminate = 5  # type: ignore[attr-defined]
        self.child.close(force=False)

    def kill9(self) -> None:
        assert self.child.pid is not None
        os.kill(self.child.pid, signal.SIGKILL)
        self.child.close(force=True)


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value)


def setup_file(ruleset: str, folder: Path) -> Path:
    """The shipped example of ``ruleset`` as a setup: its actions, dice and choices left out."""
    data = tomllib.loads((SCENARIOS / f"{ruleset}.toml").read_text(encoding="utf-8"))
    for key in ("actions", "dice", "seed", "choices"):
        data.pop(key, None)
    path = folder / f"{ruleset}-setup.toml"
    path.write_text("".join(f"{json.dumps(k)} = {_inline(v)}\n" for k, v in data.items()))
    return path


def live_at(door: Any, battle: Any, screen: Any) -> Any:
    """A `bxb play` session (``cli.play.Live``) on ``battle`` as ``door`` reads it now, with
    its own dice, saying and asking through ``screen`` (a test's stand-in for the terminal)."""
    from blowbyblow.cli.play import Live
    from blowbyblow.cli.seating import Seat
    from blowbyblow.cli.terminal import Receipts

    head = door.read(battle)
    return Live(
        screen,
        Seat(door, head),
        rolled=door.own_dice(head),
        by="the orks",
        receipts=Receipts(screen, None, None),
    )
