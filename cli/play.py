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

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from blowbyblow.cli.app import (
    JudgeKeyOption,
    _battle,
    app,
    fail,
    no_stdin_here,
    open_store,
)
from blowbyblow.cli.judging import who_am_i
from blowbyblow.cli.seating import Seat, fair_option, resume_battle, start_battle, start_fair_battle
from blowbyblow.cli.terminal import (
    Inputs,
    PromptedChoices,
    PromptedDice,
    Quit,
    Receipts,
    Screen,
    field_words,
    render_option,
    render_view,
    table_key,
    typed_values,
)
from blowbyblow.domain.core import BattleStarted, BlowByBlowError, DiceRolled, Event
from blowbyblow.domain.system import CommandOption
from blowbyblow.projections.battle import voided_commands
from blowbyblow.projections.disputes import command_position
from blowbyblow.replay.battles.battle import Adjudicated
from blowbyblow.replay.battles.refusals import Behind
from blowbyblow.replay.engine import logs
from blowbyblow.replay.engine.dice import (
    ChoiceSource,
    DiceSource,
)
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.engine.numbers import whole_number
from blowbyblow.replay.engine.scenario import ScenarioError
from blowbyblow.replay.engine.typed import (
    TypedCommandError,
    command_types,
    format_command,
    parse_command,
    syntax,
    tokens,
)
from blowbyblow.replay.evidence.fairness import (
    StartedAndKept,
)
from blowbyblow.replay.evidence.seals import (
    default_key_dir,
)

if TYPE_CHECKING:  # prompt_toolkit is imported when a table is played at a terminal
    from blowbyblow.cli.prompt import CommandCompleter

UNDO_REASON = "undone at the table"
META = ("help", "state", "options", "syntax", "undo", "flag", "quit")


# --- the table -------------------------------------------------------------------------------


class Live:
    """A battle at the table: the state shown, the commands offered, one command at a time."""

    def __init__(
        self,
        screen: Screen,
        at: Seat,
        *,
        rolled: DiceSource | None,
        by: str,
        receipts: Receipts,
    ):
        self.screen = screen
        self.door = at.door
        self.head = at.head  # the battle as last read or written here
        self.rolled = rolled  # digital dice; None: the players type each roll
        self.physical = rolled is None
        self.by = by
        self.receipts = receipts
        self.system = self.head.system
        self.started: BattleStarted[Any] = self.head.started
        self.offered: tuple[CommandOption, ...] = ()

    # what is shown

    def show_state(self) -> None:
        shown = self.system.view(self.head.state)
        self.screen.say(render_view(shown, self.started.label, self.head.commands))

    def show_options(self) -> None:
        self.offered = self.system.legal_commands(self.head.state, self.started.rulings)
        if not self.offered:
            self.screen.say("the rules offer no command now (type one in the syntax, or quit)")
            return
        self.screen.say("commands the rules allow now (a number, or a typed command; `help`):")
        for n, option in enumerate(self.offered, start=1):
            self.screen.say(f"  {n:>2}. {render_option(option)}")

    def narrate(self, event: Event) -> None:
        self.screen.say(narrate(self.system, event))

    def catch_up(self) -> bool:
        """Show what another session recorded since this one read the battle; True if any. A
        battle a judge forked meanwhile goes on in its child, and the table with it."""
        now = self.door.read(self.head.id)
        if now.disputes.superseded_by is not None and self.follow():
            return True
        if now.version == self.head.version:
            return False
        new = now.events[self.head.version :] if now.version > self.head.version else now.events
        self.head = now
        self.screen.say(f"-- recorded meanwhile by another session ({len(new)} event(s)):")
        for logged in new:
            self.screen.say(f"{logged.position:>5}  {narrate(self.system, logged.event)}")
        self.show_state()
        self.show_options()
        return True

    def follow(self) -> bool:
        """Go on in the child a judge forked this battle into (said in one line); False when
        its child is not written yet."""
        chain = self.door.disputes.chain(self.head.id)
        if len(chain) == 1:
            return False
        if self.started.dice.mode == "fair":  # the child rolls dice of its own: values first
            self.screen.say(
                f"-- battle {self.head.id} was superseded by battle {chain[-1]} (a judge forked "
                f"it): its sides give values for its dice first, `bxb play --battle "
                f"{str(chain[-1])[:8]}`"
            )
            raise Quit
        self.screen.say(
            f"-- battle {self.head.id} was superseded by battle {chain[-1]} (a judge forked "
            "it): going on there"
        )
        self.head = self.door.read(chain[-1])
        self.show_state()
        self.show_options()
        return True

    # the loop

    def run(self) -> None:
        self.show_state()
        self.show_options()
        while True:
            try:
                self.catch_up()
            except Quit:  # a fair battle forked: its child is resumed with its sides' values
                return
            try:
                line = self.screen.ask(
                    f"command {self.head.commands + 1}> ", self.completer()
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
        elif word == "flag":
            self.flag(rest.strip())
        elif (offered := whole_number(word, signed=True)) is not None:  # -1: no command -1
            self.pick(offered, rest)
        else:
            self.typed(line)

    def help(self) -> None:
        self.screen.say(
            "  N [FIELD=VALUE ...]   play offered command N (its choices are asked; or give them)\n"
            "  TYPE FIELD=VALUE ...  a command in the typed syntax (`syntax` lists them; Tab completes)\n"
            "  undo [REASON]         void the last command (recorded, nothing deleted)\n"
            "  flag N [REASON]       flag command N as disputed: a judge is called, nothing undone\n"
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
                # fair dice are secret until written: shown, then a choice typed again or the
                # command cancelled, they would let the table choose by them
                fair = self.started.dice.mode == "fair"
                answer = None if fair else self.confirm(result.index, inputs)
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
    ) -> Adjudicated | None:
        dice: DiceSource = self.rolled or PromptedDice(self.screen, inputs, offered)
        choices: ChoiceSource = PromptedChoices(self.screen, inputs)
        try:
            return self.door.adjudicate(
                self.head, command, dice=dice, choices=choices, observe=self.narrate
            )
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

    def commit(self, result: Adjudicated) -> None:
        try:
            played = self.door.commit(result)
        except BlowByBlowError as e:
            if not isinstance(e, Behind):
                self.screen.say(f"  not written: {e}")
                return
            self.screen.say(
                f"  not written: another session recorded in this battle while command "
                f"{result.index} was being entered. Here is what it played; give your command "
                "again if the rules still allow it."
            )
            self.catch_up()
            return
        self.head = played.head
        logged = played.logged
        self.screen.say(
            f"recorded command {result.index}: positions {logged[0].position}-{logged[-1].position}"
        )
        self.receipts.hand(self.head.id, logged[-1])
        self.show_state()
        self.show_options()

    def voided_dice(self) -> dict[str, tuple[int, ...]]:
        """The dice of the latest voided command with the next command's number, by key: a
        voided command's dice may be entered again (Enter at each roll)."""
        events = self.head.plain
        wanted = self.head.commands + 1
        voided = [v for v in voided_commands(events) if v.index == wanted]
        if not voided:
            return {}
        last = voided[-1]
        return {
            e.key: e.values for e in events[last.first - 1 : last.last] if isinstance(e, DiceRolled)
        }

    def flag(self, rest: str) -> None:
        """Flag command N as disputed (``flag N REASON``): a judge is called; nothing undone."""
        word, _, reason = rest.partition(" ")
        number = whole_number(word, signed=True)  # -1: the command the door refuses, named
        if number is None:
            self.screen.say("  flag which command? `flag N REASON` (N as `bxb log` numbers it)")
            return
        try:  # a command that stands, before why: in the battle as it stands, since another
            # terminal or a phone may have played or voided one after this prompt was shown
            command_position(self.door.read(self.head.id).plain, number)
        except ValueError as e:
            self.screen.say(f"  not flagged: {e}")
            return
        try:
            if not reason.strip():
                reason = self.screen.ask(f"flag command {number}: why? (Ctrl-C: no flag) ")
            flagged = self.door.disputes.flag(
                self.head.id, command=number, by=self.by, reason=reason
            )
        except KeyboardInterrupt:
            self.screen.say("  not flagged: nothing written")
            return
        except BlowByBlowError as e:
            self.screen.say(f"  not flagged: {e}")
            return
        self.head = self.door.read(self.head.id)
        self.screen.say(
            f"flagged command {number} at position {flagged.position}: a judge is called "
            "(play goes on; the judge rules, or rewinds the battle to it)"
        )
        self.receipts.hand(self.head.id, flagged)

    def undo(self, reason: str) -> None:
        last = self.head.last_command
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
            voided = self.door.void(
                self.head.id, index, by=self.by, reason=reason, version=self.head.version
            )
        except KeyboardInterrupt:
            self.screen.say("  kept: nothing written")
            return
        except Behind:
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
        self.head = self.door.read(self.head.id)
        self.receipts.hand(self.head.id, voided)
        self.show_state()
        self.show_options()


# --- starting and resuming -------------------------------------------------------------------


def quiet_logs(ctx: typer.Context) -> None:
    """At the table the narration is printed in words, so the structured log on stderr keeps to
    warnings unless asked for (``--log-level`` or ``--log-json``), as ``bxb demo`` does."""
    given = ctx.parent.params if ctx.parent is not None else {}
    if given.get("log_level") is None and not given.get("log_json"):
        logs.configure(json=False, level="warning")


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
    if (setup is None) == (battle is None):  # neither (a newcomer's `bxb play`), or both
        both = " (not both)" if setup is not None else ""
        fail(f"give a setup file to start a battle, or --battle ID to resume one{both}")
    if fair and dice is not None:
        fail("--fair makes its own secret seed; do not combine it with --dice")
    no_stdin_here(setup, "setup", "the table's commands and dice are typed on standard input")
    no_stdin_here(receipts, "--receipts", "the receipts are shown on standard output already")
    signing = table_key(key)
    fairly = fair_option(
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
            seat, rolled = start_fair_battle(store, setup, label, fairly, screen)
        elif setup is not None:
            seat, rolled = start_battle(store, setup, dice, label, screen)
        else:
            assert battle is not None
            before = store.version(_battle(store, battle))
            seat, rolled = resume_battle(store, battle, dice, fairly, screen)
    except StartedAndKept as e:
        fail(f"{e}; resume it with `bxb play --battle {str(e.battle)[:8]}`", code=1)
    except (KeyboardInterrupt, EOFError):
        fail("abandoned: nothing of the opening was written", code=1)
    except ScenarioError as e:  # the setup file refused: exit 2, as `bxb record` refuses it
        fail(str(e))
    except BlowByBlowError as e:
        fail(str(e), code=1)
    if setup is not None or seat.head.version != before:
        kept.hand(seat.head.id, seat.head.events[-1])
    live = Live(screen, seat, rolled=rolled, by=by or who_am_i(), receipts=kept)
    live.run()
    screen.say(
        f"\nleft the table: battle {live.head.id} has {live.head.commands} command(s) played; "
        f"resume with `bxb play --battle {str(live.head.id)[:8]}`"
    )


__all__ = ["Live", "Seat"]
