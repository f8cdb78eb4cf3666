"""``bxb play``: a battle played at the table, one command at a time.

``bxb play SETUP.toml`` starts a battle from a setup (a scenario file; its ``[[actions]]``, if it
has any, are played first), ``bxb play --battle ID`` picks up any battle that is not sealed, in a
new process, on another day. At the prompt the players see the state (``GameSystem.view``), the
commands the rules allow now (``GameSystem.legal_commands``), and give one: by its number in that
list (then its choices are asked, each with its options and default), or typed in the one syntax
every game system shares (``replay/typed.py``), with completion. Dice are typed as they are rolled
(``--dice physical``: each roll asked by its meaning, checked for count and range, and shown again
before the command is written, so a mistyped die can be typed again) or rolled from a seed and
shown (``--dice seed:TEXT``). Narration is printed as each step is adjudicated.

A command's events are written in one transaction, once it is complete and confirmed: Ctrl-C, a
closed terminal or a killed process in the middle of a command writes nothing of it. Two
sessions on one battle: each writes at the version it read, so the one holding a stale version is
told, writes nothing, re-reads and shows what the other played. ``undo`` voids the last command
(a ``CommandVoided`` event: nothing is deleted). docs/playing.md walks through a session."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer
from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, WordCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.history import InMemoryHistory

from blowbyblow.cli.app import _battle, app, fail, open_store
from blowbyblow.cli.judging import who_am_i
from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    DiceRolled,
    Event,
)
from blowbyblow.domain.system import CommandOption, StateView
from blowbyblow.projections.battle import voided_commands
from blowbyblow.replay import logs
from blowbyblow.replay.dice import (
    ChoiceSource,
    DiceError,
    DiceSource,
    ListedDice,
    ScriptedChoices,
    SeededDice,
)
from blowbyblow.replay.driver import Adjudication
from blowbyblow.replay.narrate import narrate
from blowbyblow.replay.registry import get_game_system
from blowbyblow.replay.scenario import load_scenario
from blowbyblow.replay.service import AlreadyRecorded, BattleSession, record
from blowbyblow.replay.store import BattleStore, StaleVersion, StoreError
from blowbyblow.replay.typed import (
    TypedCommandError,
    command_types,
    format_command,
    parse_command,
    syntax,
    tokens,
)

UNDO_REASON = "undone at the table"
META = ("help", "state", "options", "syntax", "undo", "quit")


class Quit(Exception):
    """The players leave the table (Ctrl-D, ``quit``, or standard input closed)."""


# --- the terminal ----------------------------------------------------------------------------


class Screen:
    """Where the session reads and writes: prompt_toolkit on a terminal (history, completion),
    plain lines otherwise (a script piped in)."""

    def __init__(self) -> None:
        self.terminal = sys.stdin.isatty() and sys.stdout.isatty()
        self._prompt: PromptSession[str] | None = (
            PromptSession(history=InMemoryHistory()) if self.terminal else None
        )

    def say(self, text: str = "") -> None:
        print(text, flush=True)

    def ask(self, message: str, completer: Completer | None = None) -> str:
        """One line typed by the player; EOFError when input ends, KeyboardInterrupt on Ctrl-C."""
        if self._prompt is not None:
            return self._prompt.prompt(message, completer=completer, complete_while_typing=False)
        sys.stdout.write(message)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        sys.stdout.write(line)  # echoed, so a transcript reads as the session went
        return line.rstrip("\n")

    def choose(self, message: str, words: Iterable[str]) -> str:
        return self.ask(message, WordCompleter(list(words), sentence=True)).strip()


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


class TypedDice:
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


class TypedChoices:
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


class CommandCompleter(Completer):
    """Completes the main prompt: the first word from the command types, the offered commands'
    numbers and the session's words; then a command's fields (``targets=``) and, after ``=``,
    the values the rules allow now, as the typed syntax writes them."""

    def __init__(
        self, first: list[str], fields: dict[str, list[str]], values: dict[str, dict[str, set[str]]]
    ):
        self.first = first
        self.fields = fields
        self.values = values

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        before = document.text_before_cursor
        word = document.get_word_before_cursor(WORD=True)
        if " " not in before.lstrip():
            yield from _starting(self.first, word)
            return
        tag = before.split()[0]
        if "=" in word:
            name, _, prefix = word.partition("=")
            yield from _starting(sorted(self.values.get(tag, {}).get(name, ())), prefix)
        else:
            yield from _starting(self.fields.get(tag, []), word)


def _starting(candidates: Iterable[str], prefix: str) -> Iterator[Completion]:
    for c in candidates:
        if c.startswith(prefix):
            yield Completion(c, start_position=-len(prefix))


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


# --- the table -------------------------------------------------------------------------------


class Live:
    """A battle at the table: the state shown, the commands offered, one command at a time."""

    def __init__(
        self, screen: Screen, session: BattleSession, *, rolled: DiceSource | None, by: str
    ):
        self.screen = screen
        self.session = session
        self.rolled = rolled  # digital dice; None: the players type each roll
        self.physical = rolled is None
        self.by = by
        self.system = session.ruleset
        self.started: BattleStarted[Any] = session.started
        self.offered: tuple[CommandOption, ...] = ()

    # what is shown

    def show_state(self) -> None:
        shown = self.system.view(self.session.state)
        self.screen.say(render_view(shown, self.started.label, self.session.commands))

    def show_options(self) -> None:
        self.offered = self.system.legal_commands(self.session.state, self.started.rulings)
        if not self.offered:
            self.screen.say("the rules offer no command now (type one in the syntax, or quit)")
            return
        self.screen.say("commands the rules allow now (a number, or a typed command; `help`):")
        for n, option in enumerate(self.offered, start=1):
            self.screen.say(f"  {n:>2}. {render_option(option)}")

    def narrate(self, event: Event) -> None:
        self.screen.say(narrate(self.system, event))

    def catch_up(self) -> bool:
        """Show what another session recorded since this one read the battle; True if any."""
        if not self.session.moved():
            return False
        new = self.session.refresh()
        self.screen.say(f"-- recorded meanwhile by another session ({len(new)} event(s)):")
        for logged in new:
            self.screen.say(f"{logged.position:>5}  {narrate(self.system, logged.event)}")
        self.show_state()
        self.show_options()
        return True

    # the loop

    def run(self) -> None:
        self.show_state()
        self.show_options()
        while True:
            self.catch_up()
            try:
                line = self.screen.ask(
                    f"command {self.session.commands + 1}> ", self.completer()
                ).strip()
            except KeyboardInterrupt:
                continue
            except EOFError:
                return
            try:
                self.dispatch(line)
            except KeyboardInterrupt:
                self.screen.say("\n  abandoned: nothing written")
            except (Quit, EOFError):
                return

    def completer(self) -> CommandCompleter:
        numbers = [str(n) for n in range(1, len(self.offered) + 1)]
        return CommandCompleter(
            [*command_types(self.system), *META, *numbers],
            field_words(self.system),
            typed_values(self.system, self.offered),
        )

    def dispatch(self, line: str) -> None:
        word, _, rest = line.partition(" ")
        if not word:
            return
        if word in ("quit", "exit"):
            raise Quit
        actions = {
            "help": self.help,
            "?": self.help,
            "state": self.show_state,
            "options": self.show_options,
            "syntax": self.show_syntax,
        }
        if word in actions:
            actions[word]()
        elif word == "undo":
            self.undo(rest.strip())
        elif word.isdigit():
            self.pick(int(word), rest)
        else:
            self.typed(line)

    def help(self) -> None:
        self.screen.say(
            "  N [FIELD=VALUE ...]   play offered command N (its choices are asked; or give them)\n"
            "  TYPE FIELD=VALUE ...  a command in the typed syntax (`syntax` lists them; Tab completes)\n"
            "  undo [REASON]         void the last command (recorded, nothing deleted)\n"
            "  state · options · syntax · help · quit (or Ctrl-D)\n"
            "  in a command: Ctrl-C abandons it, nothing written"
        )

    def show_syntax(self) -> None:
        for line in syntax(self.system):
            self.screen.say(f"  {line}")

    # giving a command

    def pick(self, number: int, rest: str) -> None:
        if not 1 <= number <= len(self.offered):
            self.screen.say(f"  no command {number}: choose 1 to {len(self.offered)}")
            return
        option = self.offered[number - 1]
        picks: dict[str, str] = {}
        try:
            for word in tokens(rest):
                name, sep, value = word.partition("=")
                if not sep:
                    raise TypedCommandError(f"expected FIELD=VALUE after the number, not {word!r}")
                picks[name] = value
            for name, allowed in option.options.items():
                if name not in picks and len(allowed) > 1:
                    picks[name] = self.ask_pick(name, allowed)
            command = self.system.build_command(option, picks)
        except BlowByBlowError as e:
            self.screen.say(f"  not accepted: {e}")
            return
        self.screen.say(f"  = {format_command(command)}")
        self.play(command)

    def ask_pick(self, name: str, allowed: tuple[str, ...]) -> str:
        while True:
            text = self.screen.choose(
                f"  {name} [{' / '.join(allowed)}] (Enter: {allowed[0]}): ", allowed
            )
            if not text or text in allowed:
                return text or allowed[0]
            self.screen.say(f"  {text!r} is not one of {', '.join(allowed)}")

    def typed(self, line: str) -> None:
        try:
            command = parse_command(self.system, line)
        except TypedCommandError as e:
            self.screen.say(f"  not accepted: {e} (`syntax` lists every command)")
            return
        self.play(command)

    def play(self, command: Any) -> None:
        """Adjudicate ``command`` in memory, let the players check and correct what they typed,
        then write its events in one transaction. Nothing is written until then."""
        inputs = Inputs()
        offered = self.voided_dice() if self.physical else {}
        while True:
            inputs.asked.clear()
            try:
                result = self.adjudicate(command, inputs, offered)
                if result is None:
                    return
                answer = self.confirm(result.index, inputs)
            except (KeyboardInterrupt, EOFError):
                self.screen.say("\n  command abandoned: nothing of it was written")
                return
            if answer is None:
                self.commit(result)
                return
            if answer == "":
                self.screen.say("  cancelled: nothing of it was written")
                return
            inputs.forget(answer)
            self.screen.say(
                f"-- {answer} to be typed again: command {result.index} adjudicated again"
            )

    def adjudicate(
        self, command: Any, inputs: Inputs, offered: dict[str, tuple[int, ...]]
    ) -> Adjudication | None:
        dice: DiceSource = self.rolled or TypedDice(self.screen, inputs, offered)
        choices: ChoiceSource = TypedChoices(self.screen, inputs)
        table = self.session.table(dice=dice, choices=choices, observe=self.narrate, quiet=True)
        try:
            return self.session.adjudicate(command, table)
        except BlowByBlowError as e:
            self.screen.say(f"  not allowed: {e}; nothing written")
            return None

    def confirm(self, index: int, inputs: Inputs) -> str | None:
        """None: write the command; a key: type that input again; "": cancel."""
        if not inputs.asked:
            return None
        self.screen.say(f"what was typed for command {index}:")
        keys = [key for key, _ in inputs.asked]
        for n, (key, what) in enumerate(inputs.asked, start=1):
            typed = inputs.dice.get(key)
            shown = " ".join(map(str, typed)) if typed is not None else inputs.choices.get(key, "")
            self.screen.say(f"  {n:>2}. {key}  {what}: {shown}")
        numbers = [str(n) for n in range(1, len(keys) + 1)]
        while True:
            text = self.screen.choose(
                f"Enter: record command {index} · a number: type that one again · c: cancel > ",
                [*numbers, "c"],
            )
            if not text:
                return None
            if text == "c":
                return ""
            if text in numbers:
                return keys[int(text) - 1]
            self.screen.say(f"  {text!r}: press Enter, type 1 to {len(keys)}, or c")

    def commit(self, result: Adjudication) -> None:
        try:
            logged = self.session.commit(result)
        except StoreError as e:
            if not isinstance(e, StaleVersion):
                self.screen.say(f"  not written: {e}")
                return
            self.screen.say(
                f"  not written: another session recorded in this battle while command "
                f"{result.index} was being entered. Here is what it played; give your command "
                "again if the rules still allow it."
            )
            self.catch_up()
            return
        self.screen.say(
            f"recorded command {result.index}: positions {logged[0].position}-{logged[-1].position}"
        )
        self.show_state()
        self.show_options()

    def voided_dice(self) -> dict[str, tuple[int, ...]]:
        """The dice of the latest voided command with the next command's number, by key: a
        voided command's dice may be entered again (Enter at each roll)."""
        events = [e.event for e in self.session.events]
        wanted = self.session.commands + 1
        voided = [v for v in voided_commands(events) if v.index == wanted]
        if not voided:
            return {}
        last = voided[-1]
        return {
            e.key: e.values for e in events[last.first - 1 : last.last] if isinstance(e, DiceRolled)
        }

    def undo(self, reason: str) -> None:
        last = self.session.last_command
        if last is None:
            self.screen.say("  nothing to undo: no command stands")
            return
        index, _ = last
        try:
            if not reason:
                reason = (
                    self.screen.ask(
                        f"void command {index}: why? (Enter: {UNDO_REASON!r}; Ctrl-C: keep it) "
                    ).strip()
                    or UNDO_REASON
                )
            self.session.void(index, by=self.by, reason=reason)
        except KeyboardInterrupt:
            self.screen.say("  kept: nothing written")
            return
        except StaleVersion:
            self.screen.say("  not voided: the battle moved on meanwhile; look again")
            self.catch_up()
            return
        except BlowByBlowError as e:
            self.screen.say(f"  not voided: {e}")
            return
        self.screen.say(
            f"voided command {index} ({reason}); it is not played. Give it again (with the "
            "same dice if they were right), or another command."
        )
        self.show_state()
        self.show_options()


# --- rendering -------------------------------------------------------------------------------


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


# --- starting and resuming -------------------------------------------------------------------


def quiet_logs(ctx: typer.Context) -> None:
    """At the table the narration is printed in words, so the structured log on stderr keeps to
    warnings unless asked for (``--log-level`` or ``--log-json``), as ``bxb demo`` does."""
    given = ctx.parent.params if ctx.parent is not None else {}
    if given.get("log_level") is None and not given.get("log_json"):
        logs.configure(json=False, level="warning")


def _start(
    store: BattleStore, setup: Path, dice: str | None, label: str | None, screen: Screen
) -> tuple[BattleSession, DiceSource | None]:
    """Record the setup's first event (and its actions, if it has any); the session and its
    digital dice (None when they are typed)."""
    scenario = load_scenario(setup, needs_actions=False)
    if label:
        scenario = msgspec.structs.replace(scenario, label=label)
    seed = scenario.seed
    if dice is not None:
        seed = _seed_option(dice)
    physical = seed is None
    scenario = msgspec.structs.replace(
        scenario, seed=seed, dice=scenario.dice if physical else None
    )
    opening: DiceSource | None = None
    if physical:
        opening = ListedDice(scenario.dice) if scenario.dice else TypedDice(screen, Inputs(), {})
    choices = ScriptedChoices(scenario.choices, fallback=TypedChoices(screen, Inputs()))
    system = get_game_system(scenario.ruleset)
    base = scenario.label
    if scenario.commands:
        screen.say(f"the setup's {len(scenario.commands)} action(s) first:")
    for attempt in range(2, 1000):
        try:
            recorded = record(
                store,
                scenario,
                dice=opening,
                choices=choices,
                quiet=True,
                observe=lambda event: screen.say(narrate(system, event)),
            )
            break
        except AlreadyRecorded:
            scenario = msgspec.structs.replace(scenario, label=f"{base} #{attempt}")
    else:  # pragma: no cover
        raise BlowByBlowError("too many battles with this label in the store")
    screen.say(f"started battle {recorded.battle} ({scenario.label!r}) under {recorded.ruleset.id}")
    return BattleSession(store, recorded.battle), None if physical else SeededDice(str(seed))


def _seed_option(dice: str) -> str | None:
    """``--dice``: ``physical`` (None) or ``seed:TEXT``."""
    if dice == "physical":
        return None
    if dice.startswith("seed:") and dice[5:]:
        return dice[5:]
    fail(f"--dice: expected physical or seed:TEXT, not {dice!r}")


def _resume(
    store: BattleStore, ref: str, dice: str | None, screen: Screen
) -> tuple[BattleSession, DiceSource | None]:
    """Pick a battle up where it stands; its dice stay as they were started (the session and
    its digital dice, None when they are typed)."""
    session = BattleSession(store, _battle(store, ref))
    if session.sealed:
        raise BlowByBlowError(
            f"battle {session.battle} is sealed; nothing more can be played in it"
        )
    spec = session.started.dice
    if spec.mode not in ("physical", "seeded"):
        raise BlowByBlowError(
            f"battle {session.battle} rolls {spec.mode} dice; `bxb play` rolls physical or seeded dice"
        )
    rolled = None if spec.mode == "physical" else SeededDice(str(spec.seed))
    if dice is not None and _seed_option(dice) != (rolled.seed if rolled else None):
        started = f"seeded dice (seed {spec.seed})" if rolled else "physical dice"
        fail(
            f"--dice {dice}: battle {session.battle} was started with {started}; "
            "a battle keeps its dice (leave --dice out to resume)"
        )
    screen.say(
        f"resuming battle {session.battle} ({session.started.label!r}): {session.commands} "
        f"command(s) played, {session.version} events"
    )
    recent = [e for e in session.events if e.position > 1][-3:]
    for logged in recent:
        screen.say(f"{logged.position:>5}  {narrate(session.ruleset, logged.event)}")
    return session, rolled


@app.command("play")
def cmd_play(  # noqa: PLR0913 - typer makes each parameter a command-line option
    ctx: typer.Context,
    setup: Annotated[
        Path | None,
        typer.Argument(help="A setup: a scenario file; its [[actions]], if any, are played first."),
    ] = None,
    battle: Annotated[
        str | None,
        typer.Option("--battle", help="Resume this battle (id, prefix or label) instead."),
    ] = None,
    dice: Annotated[
        str | None,
        typer.Option(
            "--dice",
            help="physical (type each roll; the default unless the setup has a seed) or "
            "seed:TEXT (digital dice, shown).",
        ),
    ] = None,
    label: Annotated[str | None, typer.Option("--label", help="Name the battle.")] = None,
    by: Annotated[
        str | None, typer.Option("--by", help="Who is playing (recorded when voiding).")
    ] = None,
) -> None:
    """Play a battle at the table, one command at a time: start one from a setup, or resume one
    with --battle. Each command is written when it is complete; Ctrl-C writes nothing of it."""
    if (setup is None) == (battle is None):
        fail("give a setup file to start a battle, or --battle ID to resume one (not both)")
    quiet_logs(ctx)
    screen = Screen()
    store = open_store()
    try:
        if setup is not None:
            session, rolled = _start(store, setup, dice, label, screen)
        else:
            assert battle is not None
            session, rolled = _resume(store, battle, dice, screen)
    except (KeyboardInterrupt, EOFError):
        fail("abandoned: nothing of the opening was written", code=1)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    Live(screen, session, rolled=rolled, by=by or who_am_i()).run()
    screen.say(
        f"\nleft the table: battle {session.battle} has {session.commands} command(s) played; "
        f"resume with `bxb play --battle {str(session.battle)[:8]}`"
    )


__all__ = ["Live", "Screen", "check_dice", "render_view"]
