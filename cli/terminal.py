"""What ``bxb play`` reads and writes at the terminal: the screen (prompt_toolkit on a terminal,
plain lines from a script), the receipts handed to the table, the dice and choices the players
type as the rules ask for them (``PromptedDice``, ``PromptedChoices``, answering the front door's
requests at once), the prompt's completion, and the state as the players read it."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.cli.app import fail, say_lines
from blowbyblow.cli.text import output_width
from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.domain.system import CommandOption, StateView
from blowbyblow.replay.engine.dice import DiceError
from blowbyblow.replay.engine.typed import format_command, syntax, tokens
from blowbyblow.replay.evidence.receipts import sign_receipt
from blowbyblow.replay.evidence.seals import default_key_dir, load_private_key, public_hex
from blowbyblow.replay.store.log import LoggedEvent

if TYPE_CHECKING:  # prompt_toolkit is imported when a table is played at a terminal
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer


class Quit(Exception):
    """The players leave the table (Ctrl-D, ``quit``, or standard input closed)."""


# --- the terminal ----------------------------------------------------------------------------


class Screen:
    """Where the session reads and writes: prompt_toolkit on a terminal (history, completion),
    plain lines otherwise (a script piped in)."""

    def __init__(self) -> None:
        self.terminal = sys.stdin.isatty() and sys.stdout.isatty()
        self._prompt: PromptSession[str] | None = None
        if self.terminal:
            from prompt_toolkit import PromptSession
            from prompt_toolkit.history import InMemoryHistory

            self._prompt = PromptSession(history=InMemoryHistory())

    def say(self, text: str = "") -> None:
        """Lines for the players, each wrapped at the terminal's width (80 on a pipe), its
        further lines indented four spaces more than it is; words are moved, never cut."""
        if not text:
            print(flush=True)
            return
        say_lines(text)
        sys.stdout.flush()

    def ask(self, message: str, completer: Completer | None = None) -> str:
        """One line typed by the player; EOFError when input ends, KeyboardInterrupt on Ctrl-C.
        A prompt wider than the terminal is wrapped at spaces, the answer typed on its last
        line."""
        message = wrap_prompt(message)
        if self._prompt is not None:
            return self._prompt.prompt(message, completer=completer, complete_while_typing=False)
        sys.stdout.write(message)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stdout.write("\n")  # the prompt's line ends: what is said next starts its own
            sys.stdout.flush()
            raise EOFError
        sys.stdout.write(line)  # echoed, so a transcript reads as the session went
        return line.rstrip("\n")

    def choose(self, message: str, words: Iterable[str]) -> str:
        from prompt_toolkit.completion import WordCompleter

        return self.ask(message, WordCompleter(list(words), sentence=True)).strip()


def wrap_prompt(message: str) -> str:
    """``message`` wrapped at the output's width, further lines indented four spaces; its
    trailing spaces (where the answer is typed) kept."""
    body = message.rstrip(" ")
    tail = message[len(body) :]
    width = output_width()
    if len(message) <= width:
        return message
    lines = textwrap.wrap(body, width - len(tail), subsequent_indent="    ", break_on_hyphens=False)
    return "\n".join(lines) + tail


# --- receipts --------------------------------------------------------------------------------


def table_key(given: Path | None, option: str = "--key") -> Ed25519PrivateKey | None:
    """The key that signs the table's receipts: ``given``, or ``judge.key`` in the default key
    folder when it exists; None when there is neither. A key that cannot be read is an error."""
    path = given or default_key_dir() / "judge.key"
    if given is None and not path.exists():
        return None
    try:
        return load_private_key(path)
    except BlowByBlowError as e:
        fail(f"{option}: {e}")


class Receipts:
    """After every write, the battle's head signed and handed to the table: printed as one line
    (``bxb verify --receipt`` reads a file of such lines) and, with ``--receipts FILE``, added to
    that file."""

    def __init__(self, screen: Screen, key: Ed25519PrivateKey | None, keep: Path | None) -> None:
        self.screen = screen
        self.key = key
        self.keep = keep
        self.told = False

    def hand(self, battle: Any, logged: LoggedEvent) -> None:
        if self.key is None:
            if not self.told:
                self.told = True
                self.screen.say(
                    f"(no receipts: no signing key at {default_key_dir() / 'judge.key'}; give "
                    "--key FILE, or make one with `bxb keys new`)"
                )
            return
        line = sign_receipt(self.key, battle, logged).text()
        if not self.told:
            self.told = True
            self.screen.say(
                f"receipt (signed by {public_hex(self.key)[:16]}…; keep the lines starting "
                "bxb-receipt-v1: `bxb verify --receipt FILE` checks the log still holds them):"
            )
        self.screen.say(f"  {line}")
        if self.keep is not None:
            try:
                with self.keep.open("a", encoding="utf-8") as out:
                    out.write(line + "\n")
            except OSError as e:
                self.screen.say(f"  (not added to {self.keep}: {e.strerror or e})")


# --- what a command asks for -----------------------------------------------------------------


@dataclass
class Inputs:
    """One command's dice and choices as the players typed them, by key: kept when the command is
    adjudicated again after a correction, so only what was corrected (or is newly asked) is
    asked again."""

    dice: dict[str, tuple[int, ...]] = field(default_factory=dict)
    choices: dict[str, str] = field(default_factory=dict)
    asked: list[tuple[str, str]] = field(default_factory=list)  # (key, what), in the order asked
    retyping: dict[str, tuple[int, ...]] = field(default_factory=dict)  # what was typed before

    def forget(self, key: str) -> None:
        if key in self.dice:
            self.retyping[key] = self.dice.pop(key)
        self.choices.pop(key, None)


class PromptedDice:
    """Physical dice typed at the prompt as they are rolled, each roll asked by its meaning."""

    source = "physical"

    def __init__(self, screen: Screen, inputs: Inputs, offered: dict[str, tuple[int, ...]]):
        self.screen = screen
        self.inputs = inputs
        self.offered = offered  # the dice a voided command rolled, by key: Enter takes them

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        what = f"{purpose or 'dice'}: {n} {'die' if n == 1 else 'dice'} 1-{sides}"
        self.inputs.asked.append((key, what))
        kept = self.inputs.dice.get(key)
        if kept is not None and len(kept) == n and all(1 <= v <= sides for v in kept):
            return kept, self.source
        again = self.offered.get(key)
        if again is not None and (len(again) != n or not all(1 <= v <= sides for v in again)):
            again = None
        hint = f" (Enter: {' '.join(map(str, again))}, as in the voided command)" if again else ""
        before = self.inputs.retyping.get(key)
        hint += f" (typed before: {' '.join(map(str, before))})" if before else ""
        values_word = "value" if n == 1 else "values"
        while True:
            text = self.screen.ask(
                f"{key}: {purpose or 'dice'}: type {n} {values_word} 1-{sides}{hint}: "
            )
            if not text.strip() and again is not None:
                values = again
                break
            try:
                values = check_dice(text, n, sides)
                break
            except DiceError as e:
                self.screen.say(f"  not accepted: {e}; type them again")
        self.inputs.dice[key] = values
        return values, self.source


def check_dice(text: str, n: int, sides: int) -> tuple[int, ...]:
    """The values typed for a roll of ``n`` dice of ``sides`` sides, checked."""
    words = text.replace(",", " ").split()
    try:
        values = tuple(int(w) for w in words)
    except ValueError:
        raise DiceError(f"{text.strip()!r} is not {n} whole number(s)") from None
    if len(values) != n:
        raise DiceError(f"{len(values)} value(s) typed, {n} expected")
    wrong = [v for v in values if not 1 <= v <= sides]
    if wrong:
        raise DiceError(f"{wrong[0]} is not a face of a D{sides} (1 to {sides})")
    return values


class PromptedChoices:
    """The rules' questions asked at the prompt, with their options and default (Enter)."""

    def __init__(self, screen: Screen, inputs: Inputs):
        self.screen = screen
        self.inputs = inputs

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        self.inputs.asked.append((key, f"choice: {prompt or key}"))
        kept = self.inputs.choices.get(key)
        if kept is not None and kept in options:
            return kept, "interactive"
        while True:
            text = self.screen.choose(
                f"{key}: {prompt or 'choose'} [{' / '.join(options)}] (Enter: {default}): ", options
            )
            answer = text or default
            if answer in options:
                break
            self.screen.say(f"  {text!r} is not one of {', '.join(options)}")
        self.inputs.choices[key] = answer
        return answer, "interactive"


# --- the prompt's completion -----------------------------------------------------------------


def typed_values(system: Any, offered: Iterable[CommandOption]) -> dict[str, dict[str, set[str]]]:
    """For each command type and field, the values the offered commands give it, written as the
    typed syntax writes them (each option built with each value it allows)."""
    out: dict[str, dict[str, set[str]]] = {}
    for option in offered:
        picks: list[dict[str, str]] = [{}]
        picks += [{name: v} for name, allowed in option.options.items() for v in allowed]
        for pick in picks:
            try:
                words = tokens(format_command(system.build_command(option, pick)))
            except BlowByBlowError:
                continue
            for word in words[1:]:
                name, _, value = word.partition("=")
                out.setdefault(words[0], {}).setdefault(name, set()).add(value)
    return out


def field_words(system: Any) -> dict[str, list[str]]:
    """Each command type's fields as the typed syntax names them (``targets=``, ``attacks.by=``)."""
    out: dict[str, list[str]] = {}
    for line in syntax(system):
        tag, *parts = line.split()
        out[tag] = [p.strip("[]").split("=")[0] + "=" for p in parts]
    return out


# --- the state as the players read it -------------------------------------------------------------------------------


def render_view(shown: StateView, label: str, commands: int) -> str:
    """A state as the players read it: each side's units, then what holds them together."""
    lines = [f"== {label} · {shown.phase or 'the battle'} · {commands} command(s) played =="]
    for side in shown.sides:
        lines.append(f"  {side}:")
        for u in (u for u in shown.units if u.side == side):
            stats = " · ".join(f"{s.name} {s.value}" for s in u.stats)
            flags = f" [{', '.join(u.flags)}]" if u.flags else ""
            where = f" @{u.location}" if u.location else ""
            lines.append(f"    {u.id} ({u.name}): {u.status}{flags}{where} — {stats}")
    for lock in shown.locks:
        detail = f" ({lock.detail})" if lock.detail else ""
        lines.append(f"  {lock.kind}: {', '.join(lock.members)}{detail}")
    if shown.concealed:
        lines.append(f"  concealed: {', '.join(shown.concealed)}")
    lines.extend(f"  prisoner: {p.prisoner} held by {p.captor}" for p in shown.prisoners)
    lines.extend(f"  note: {n}" for n in shown.notes)
    return "\n".join(lines)


def render_option(option: CommandOption) -> str:
    who = f"[{option.side}] " if option.side else "[table] "
    fixed = " ".join(f"{k}={v}" for k, v in option.fields.items())
    choices = "  ".join(f"{k}: {'|'.join(v)}" for k, v in option.options.items())
    return (
        f"{who}{option.type} {fixed}".rstrip()
        + (f"  — {choices}" if choices else "")
        + (f"  ({option.summary})" if option.summary else "")
    )


__all__ = [
    "Inputs",
    "PromptedChoices",
    "PromptedDice",
    "Quit",
    "Receipts",
    "Screen",
    "check_dice",
    "field_words",
    "render_option",
    "render_view",
    "table_key",
    "typed_values",
]
