"""``bxb play``: a battle played at the table, one command at a time.

``bxb play SETUP.toml`` starts a battle from a setup (a scenario file; its ``[[actions]]``, if it
has any, are played first), ``bxb play --battle ID`` picks up any battle that is not sealed, in a
new process, on another day. At the prompt the players see the state (``GameSystem.view``), the
commands the rules allow now (``GameSystem.legal_commands``), and give one: by its number in that
list (then its choices are asked, each with its options and default), or typed in the one syntax
every game system shares (``replay/engine/typed.py``), with completion. Dice are typed as they are rolled
(``--dice physical``: each roll asked by its meaning, checked for count and range, and shown again
before the command is written, so a mistyped die can be typed again) or rolled from a seed and
shown (``--dice seed:TEXT``), or fair (``--fair``: a secret seed committed and escrowed to the
judges' key, mixed with a value from each side, asked at the prompt once the commitment is shown;
``replay/evidence/fairness.py``). Narration is printed as each step is adjudicated.

A command's events are written in one transaction, once it is complete and confirmed: Ctrl-C, a
closed terminal or a killed process in the middle of a command writes nothing of it. Two
sessions on one battle: each writes at the version it read, so the one holding a stale version is
told, writes nothing, re-reads and shows what the other played. ``undo`` voids the last command
(a ``CommandVoided`` event: nothing is deleted). After every write the table is handed a signed
receipt for the log's head (``replay/evidence/receipts.py``), signed with ``--key`` or the key folder's
``judge.key``. docs/playing.md walks through a session."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import typer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.cli.app import JudgeKeyOption, _battle, app, fail, no_stdin_here, open_store
from blowbyblow.cli.judging import who_am_i
from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    DiceRolled,
    Event,
)
from blowbyblow.domain.system import CommandOption, StateView
from blowbyblow.projections.battle import voided_commands
from blowbyblow.replay.battles.service import AlreadyRecorded, BattleSession, record
from blowbyblow.replay.engine import logs
from blowbyblow.replay.engine.dice import (
    ChoiceSource,
    DiceError,
    DiceSource,
    ListedDice,
    ScriptedChoices,
    SeededDice,
)
from blowbyblow.replay.engine.driver import Adjudication, Turn, adjudicate_commands
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import load_scenario
from blowbyblow.replay.engine.typed import (
    TypedCommandError,
    command_types,
    format_command,
    parse_command,
    syntax,
    tokens,
)
from blowbyblow.replay.evidence.fairness import (
    FairBattle,
    FairnessError,
    FairTerms,
    StartedAndKept,
    check_contributions,
    contribute,
    is_escrowed,
    open_fair,
    start_fair,
)
from blowbyblow.replay.evidence.receipts import sign_receipt
from blowbyblow.replay.evidence.seals import (
    ESCROW_KEY_TAG,
    JudgingError,
    default_key_dir,
    load_escrow_public_key,
    load_private_key,
    public_hex,
)
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, StaleVersion, StoreError

if TYPE_CHECKING:  # prompt_toolkit is imported when a table is played at a terminal
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer

    from blowbyblow.cli.prompt import CommandCompleter

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
        self._prompt: PromptSession[str] | None = None
        if self.terminal:
            from prompt_toolkit import PromptSession
            from prompt_toolkit.history import InMemoryHistory

            self._prompt = PromptSession(history=InMemoryHistory())

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
        from prompt_toolkit.completion import WordCompleter

        return self.ask(message, WordCompleter(list(words), sentence=True)).strip()


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
        self,
        screen: Screen,
        session: BattleSession,
        *,
        rolled: DiceSource | None,
        by: str,
        receipts: Receipts,
    ):
        self.screen = screen
        self.session = session
        self.rolled = rolled  # digital dice; None: the players type each roll
        self.physical = rolled is None
        self.by = by
        self.receipts = receipts
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
        from blowbyblow.cli.prompt import CommandCompleter

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
        self.receipts.hand(self.session.battle, logged[-1])
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
            voided = self.session.void(index, by=self.by, reason=reason)
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
        self.receipts.hand(self.session.battle, voided)
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
    store: BattleStore,
    setup: Path,
    dice: str | None,
    label: str | None,
    screen: Screen,
) -> tuple[BattleSession, DiceSource | None]:
    """Record the setup's first event (and its actions, if it has any); the session and its
    digital dice (None when they are typed)."""
    scenario = _setup(setup, label)
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


def _setup(setup: Path, label: str | None) -> Any:
    scenario = load_scenario(setup, needs_actions=False)
    return msgspec.structs.replace(scenario, label=label) if label else scenario


def _seed_option(dice: str) -> str | None:
    """``--dice``: ``physical`` (None) or ``seed:TEXT``."""
    if dice == "physical":
        return None
    if dice.startswith("seed:") and dice[5:]:
        return dice[5:]
    fail(f"--dice: expected physical or seed:TEXT, not {dice!r}")


# --- fair dice -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fair:
    """What ``--fair`` and its options give: the judges' escrow keys (to start a battle), the
    contributions given on the command line, and the judge's private key given with ``--key``
    (to resume from the escrow rather than the table's copy of the seed)."""

    judge_keys: list[str]
    given: dict[str, str]
    key: Ed25519PrivateKey | None
    asked: bool = True  # --fair or --contribution given (not only --key, which signs receipts too)


def escrow_keys(judge_keys: list[str] | None) -> list[str]:
    """``--judge-key``: escrow public keys, checked (default: ``judge.escrow.pub`` in the key
    folder, when there)."""
    default = default_key_dir() / "judge.escrow.pub"
    if not judge_keys and not default.exists():
        fail(
            f"--fair: no judge's escrow key at {default}; give --judge-key FILE (a judge's "
            "NAME.escrow.pub, made by `bxb keys new`) or --judge-key x25519:HEX"
        )
    try:
        return [ESCROW_KEY_TAG + load_escrow_public_key(k) for k in judge_keys or [str(default)]]
    except BlowByBlowError as e:
        fail(f"--judge-key: {e}")


def contribution_option(pairs: list[str] | None) -> dict[str, str]:
    """``--contribution SIDE=VALUE``, repeatable: one value per side."""
    given: dict[str, str] = {}
    for pair in pairs or []:
        side, sep, value = pair.partition("=")
        if not sep or not side.strip():
            fail(f"--contribution: expected SIDE=VALUE such as Orks=waaagh, not {pair!r}")
        if side.strip().casefold() in {s.casefold() for s in given}:
            fail(f"--contribution: {side.strip()} given twice; a side gives one value")
        given[side.strip()] = value
    return given


def asker(screen: Screen) -> Any:
    """The players' contributions asked at the prompt, once the commitment is shown."""

    def ask(fair: FairBattle) -> dict[str, str]:
        screen.say(
            f"fair battle {fair.battle}: the table's secret seed is committed: {fair.commitment}"
        )
        screen.say("Each side now gives a value of its own (a word, a number, a phrase); the")
        screen.say("dice depend on every one, and on the seed above, kept secret until the seal.")
        asked: dict[str, str] = {}
        for side in fair.missing:
            while True:
                text = screen.ask(f"{side}'s contribution: ")
                try:
                    asked.update(check_contributions(fair.sides, {side: text}, fair.contributions))
                    break
                except FairnessError as e:
                    screen.say(f"  not accepted: {e}")
        return asked

    return ask


def show_fair(screen: Screen, fair: FairBattle) -> None:
    screen.say(f"fair dice: seed committed {fair.commitment}")
    screen.say("  contributions: " + ", ".join(f"{s}={v!r}" for s, v in fair.contributions.items()))
    screen.say(
        "  the dice are drawn from the seed and every contribution; `bxb seal` (the judge's "
        "key) reveals the seed, then `bxb verify` recomputes every die"
    )


def _start_fair(
    store: BattleStore, setup: Path, label: str | None, fair: Fair, screen: Screen
) -> tuple[BattleSession, DiceSource]:
    """Start a fair battle: its commitment and escrow written, then each side's value (given, or
    asked once the commitment is shown); then the setup's actions, if any, all or none."""
    scenario = _setup(setup, label)
    if scenario.seed is not None or scenario.dice:
        screen.say("(the setup's own dice are not used: fair dice are drawn from a new seed)")
    terms = FairTerms(judge_keys=fair.judge_keys, contributions=fair.given, ask=asker(screen))
    started = start_fair(store, scenario, terms)
    screen.say(
        f"started fair battle {started.battle} ({scenario.label!r}) under {scenario.ruleset}"
    )
    show_fair(screen, started)
    dice = started.dice()
    session = BattleSession(store, started.battle)
    if scenario.commands:
        _opening(session, scenario, dice, screen)
    return session, dice


def _opening(session: BattleSession, scenario: Any, dice: DiceSource, screen: Screen) -> None:
    """A fair battle's setup actions, adjudicated with its dice: written if every one is legal
    with them (planned for other dice, they may not be), none otherwise; play goes on live."""
    screen.say(f"the setup's {len(scenario.commands)} action(s) first:")
    table = session.table(
        dice=dice,
        choices=ScriptedChoices(scenario.choices, fallback=TypedChoices(screen, Inputs())),
        observe=lambda event: screen.say(narrate(session.ruleset, event)),
        quiet=True,
    )
    turns = [Turn(command) for command in scenario.commands]
    try:
        results = list(
            adjudicate_commands(table, session.state, turns, first_position=session.version + 1)
        )
    except (KeyboardInterrupt, EOFError):
        raise StartedAndKept(
            session.battle, "its setup's actions were abandoned, nothing of them written"
        ) from None
    except BlowByBlowError as e:
        screen.say(
            f"the setup's actions are not played (they were planned for other dice: {e}); "
            "nothing of them was written, the battle goes on from its start"
        )
        return
    for result in results:
        session.commit(result)


def _resume_fair(
    store: BattleStore, session: BattleSession, fair: Fair, screen: Screen
) -> DiceSource:
    """A fair battle picked up again: its seed from the table's copy, or with the judge's key
    (``--key``, or the key folder's when the table kept none) from the escrow; the sides that
    have not given their value yet are asked now."""
    if not is_escrowed(session.started.dice):
        raise FairnessError(
            f"battle {session.battle} rolls fair dice of an older kind (no escrow); "
            "`bxb play` resumes fair battles started with `bxb play --fair`"
        )
    default = table_key(None)
    try:
        if fair.key is not None:
            opened = open_fair(store, session.battle, key=fair.key)
        else:
            try:
                opened = open_fair(store, session.battle)
            except FairnessError:
                if default is None:
                    raise FairnessError(
                        f"the seed of fair battle {session.battle} is not kept on this machine; "
                        "give the judge's key (--key FILE) to open the copy escrowed in the store"
                    ) from None
                opened = open_fair(store, session.battle, key=default)
    except JudgingError as e:
        raise FairnessError(f"--key: {e}") from None
    if opened.missing or not opened.contributions:
        given = check_contributions(opened.sides, fair.given, opened.contributions)
        still = [s for s in opened.missing if s not in given]
        if still:
            opened.contributions.update(given)
            given.update(asker(screen)(opened))
        contribute(store, session.battle, given)
        opened.contributions.update(given)
    elif fair.given:
        raise FairnessError(
            f"every side of battle {session.battle} has given its contribution already"
        )
    show_fair(screen, opened)
    return opened.dice()


def _resume(
    store: BattleStore, ref: str, dice: str | None, fair: Fair | None, screen: Screen
) -> tuple[BattleSession, DiceSource | None]:
    """Pick a battle up where it stands; its dice stay as they were started (the session and
    its digital dice, None when they are typed). ``fair``: --fair was given (with its
    contributions and key)."""
    session = BattleSession(store, _battle(store, ref))
    if session.sealed:
        raise BlowByBlowError(
            f"battle {session.battle} is sealed; nothing more can be played in it"
        )
    spec = session.started.dice
    started = {"physical": "physical dice", "seeded": f"seeded dice (seed {spec.seed})"}.get(
        spec.mode, f"{spec.mode} dice"
    )
    if dice is not None and (spec.mode == "fair" or _seed_option(dice) != spec.seed):
        fail(
            f"--dice {dice}: battle {session.battle} was started with {started}; "
            "a battle keeps its dice (leave --dice out to resume)"
        )
    if fair is not None and fair.asked and spec.mode != "fair":
        option = "--fair" if not fair.given else "--contribution"
        fail(
            f"{option}: battle {session.battle} was started with {started}; a battle keeps its dice"
        )
    screen.say(
        f"resuming battle {session.battle} ({session.started.label!r}): {session.commands} "
        f"command(s) played, {session.version} events"
    )
    recent = [e for e in session.events if e.position > 1][-3:]
    for logged in recent:
        screen.say(f"{logged.position:>5}  {narrate(session.ruleset, logged.event)}")
    rolled: DiceSource | None = None
    if spec.mode == "seeded":
        rolled = SeededDice(str(spec.seed))
    elif spec.mode == "fair":
        rolled = _resume_fair(store, session, fair or Fair([], {}, None), screen)
        session.refresh()
    elif spec.mode != "physical":
        raise BlowByBlowError(f"battle {session.battle} rolls {spec.mode} dice; `bxb play` cannot")
    return session, rolled


def _fair_option(
    fair: bool,
    starting: bool,
    judge_key: list[str] | None,
    contribution: list[str] | None,
    key: Ed25519PrivateKey | None,
) -> Fair | None:
    """--fair and its options, checked before anything is read or written. Resuming, the
    battle says whether it is fair: --contribution (its sides still missing) and --key (the
    judge's, to open its escrow) need no --fair."""
    if starting:
        if not fair:
            if judge_key or contribution:
                fail("--judge-key and --contribution go with --fair")
            return None
        return Fair(escrow_keys(judge_key), contribution_option(contribution), None)
    if judge_key:
        fail("--judge-key: a started battle keeps the escrow it was started with")
    if not (fair or contribution or key):
        return None
    return Fair([], contribution_option(contribution), key, asked=bool(fair or contribution))


@app.command("play")
def cmd_play(  # noqa: PLR0913 - typer makes each parameter a command-line option
    ctx: typer.Context,
    setup: Annotated[
        Path | None,
        typer.Argument(
            help="A setup: a scenario file; its actions, if it lists any, are played first."
        ),
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
    fair: Annotated[
        bool,
        typer.Option(
            "--fair",
            help="Provably fair digital dice: a new secret seed, committed and escrowed to the "
            "judge's key, mixed with a value from each side; the seal reveals it.",
        ),
    ] = False,
    judge_key: JudgeKeyOption = None,
    contribution: Annotated[
        list[str] | None,
        typer.Option(
            "--contribution",
            help="With --fair: SIDE=VALUE, a side's own value the dice depend on; repeatable; "
            "the sides missing are asked at the prompt once the commitment is shown.",
        ),
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            help="The private key that signs the receipts handed out after each command "
            f"(default {default_key_dir() / 'judge.key'}, if it exists); resuming a fair "
            "battle with --key opens its seed from the escrow (the judge's key).",
        ),
    ] = None,
    receipts: Annotated[
        Path | None,
        typer.Option("--receipts", help="Also add each receipt to this file (one per line)."),
    ] = None,
    label: Annotated[str | None, typer.Option("--label", help="Name the battle.")] = None,
    by: Annotated[
        str | None, typer.Option("--by", help="Who is playing (recorded when voiding).")
    ] = None,
) -> None:
    """Play a battle at the table, one command at a time: start one from a setup, or resume one
    with --battle. Each command is written when it is complete; Ctrl-C writes nothing of it.
    After each write a signed receipt is printed (with a key)."""
    if (setup is None) == (battle is None):
        fail("give a setup file to start a battle, or --battle ID to resume one (not both)")
    if fair and dice is not None:
        fail("--fair makes its own secret seed; do not combine it with --dice")
    no_stdin_here(setup, "setup", "the table's commands and dice are typed on standard input")
    no_stdin_here(receipts, "--receipts", "the receipts are shown on standard output already")
    signing = table_key(key)
    fairly = _fair_option(
        fair, setup is not None, judge_key, contribution, signing if key is not None else None
    )
    quiet_logs(ctx)
    screen = Screen()
    # Resuming reads a battle that must be there: a mistyped --db makes no store on the way.
    store = open_store(create=setup is not None)
    kept = Receipts(screen, signing, receipts)
    before = 0  # the battle's version before a resume: a receipt once something is written
    rolled: DiceSource | None
    try:
        if setup is not None and fairly is not None:
            session, rolled = _start_fair(store, setup, label, fairly, screen)
        elif setup is not None:
            session, rolled = _start(store, setup, dice, label, screen)
        else:
            assert battle is not None
            before = store.version(_battle(store, battle))
            session, rolled = _resume(store, battle, dice, fairly, screen)
    except StartedAndKept as e:
        fail(f"{e}; resume it with `bxb play --battle {str(e.battle)[:8]}`", code=1)
    except (KeyboardInterrupt, EOFError):
        fail("abandoned: nothing of the opening was written", code=1)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    if setup is not None or session.version != before:
        kept.hand(session.battle, session.events[-1])
    Live(screen, session, rolled=rolled, by=by or who_am_i(), receipts=kept).run()
    screen.say(
        f"\nleft the table: battle {session.battle} has {session.commands} command(s) played; "
        f"resume with `bxb play --battle {str(session.battle)[:8]}`"
    )


__all__ = ["Live", "Receipts", "Screen", "check_dice", "render_view", "table_key"]
