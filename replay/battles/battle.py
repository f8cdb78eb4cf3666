"""The one front door: ``Battle``, the application every front end plays through.

As eventsourcing's ``Application`` or boardgame.io's ``Master``, a ``Battle`` holds the store
(and the judges' keys) and is the only place where a command is adjudicated and written: it
starts battles (seeded, physical or fair dice), plays commands (their dice and choices answered by
the front end, at once or over several requests: ``replay/battles/inputs.py``), voids, seals,
re-runs what-ifs and imports. ``bxb`` (``cli/``) and ``bxb serve`` (``web/``) translate arguments
or HTTP into these calls and the results into text, JSON or HTML; neither builds a ``Table`` nor
appends to the store.

Each battle is kept at its head (``BattleHead``, immutable, shared by every thread) and checked
against the store's head before use, so another writer (a second phone, another process) is seen.
Refusals are ``Refused`` (``replay/battles/refusals.py``), naming the field and the rule, with
nothing written."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack
from uuid import UUID

import msgspec

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    ChoiceMade,
    Event,
    RuleViolation,
    RulingError,
)
from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.battles import record as recording
from blowbyblow.replay.battles.disputes import DisputeDoor
from blowbyblow.replay.battles.fair_start import contribute, start_fair
from blowbyblow.replay.battles.head import BattleHead, Heads
from blowbyblow.replay.battles.inputs import Need, NeedAnswer, TypedDice, answers_one_of
from blowbyblow.replay.battles.pending import Pending
from blowbyblow.replay.battles.record import HowToRecord
from blowbyblow.replay.battles.refusals import Behind, Refused, Unreachable
from blowbyblow.replay.engine.dice import ChoiceSource, DiceError, DiceSource, SeededDice
from blowbyblow.replay.engine.driver import (
    Adjudicating,
    Adjudication,
    Table,
    Turn,
    adjudicate_commands,
)
from blowbyblow.replay.engine.registry import UnknownGameSystem, get_game_system
from blowbyblow.replay.evidence.export import ExportError, ReadExport, read_export
from blowbyblow.replay.evidence.fairness import (
    FairBattle,
    FairnessError,
    FairTerms,
    is_escrowed,
    open_fair,
)
from blowbyblow.replay.evidence.seals import JudgingError
from blowbyblow.replay.store.find import BattleNotFound, resolve_battle
from blowbyblow.replay.store.log import (
    BattleStore,
    LoggedEvent,
    StaleVersion,
    StoreBusy,
    StoreError,
    StoreUnavailable,
)
from blowbyblow.replay.store.replica import Replica

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from blowbyblow.replay.battles.whatif import WhatIf


@dataclass(frozen=True)
class Adjudicated:
    """A command adjudicated against ``head``, in memory: nothing written yet (``commit``)."""

    head: BattleHead
    command: Any
    result: Adjudication

    @property
    def index(self) -> int:
        return self.result.index

    @property
    def events(self) -> list[Event]:
        return self.result.events


@dataclass(frozen=True)
class Played:
    """A command written: its records, and the battle at its new head."""

    head: BattleHead
    command: Any
    index: int
    logged: list[LoggedEvent]


def _refused(error: RuleViolation | DiceError) -> Refused:
    """A command the rules refuse, or dice and choices they do not take, as a refusal."""
    if isinstance(error, RuleViolation):
        return Refused("invalid", "command", error.rule, error.message)
    return Refused(
        "invalid",
        "dice" if "roll" in str(error) else "choices",
        "dice and choices the rules allow",
        str(error),
    )


def _every_die_used(source: DiceSource) -> None:
    """Every typed die is one the command rolls: one typed beyond them is refused."""
    if isinstance(source, TypedDice) and source.unused:
        raise Refused(
            "invalid",
            "dice",
            "every die typed is one the rules ask for",
            f"{source.unused} die/dice typed beyond the {source.used} this command rolls; "
            "nothing was written",
        )


def _every_answer_used(choices: Mapping[str, str], events: Sequence[Event]) -> None:
    """Every answer given is to a question the command asked (as ``bxb record`` holds a
    scenario's ``[choices]`` to it): one that answers nothing is a typo or meant for another
    command, and is refused rather than dropped without a word."""
    asked = [e.key for e in events if isinstance(e, ChoiceMade)]
    unused = [k for k in choices if not answers_one_of(k, asked)]
    if unused:
        raise Refused(
            "invalid",
            "choices",
            "answers to the questions the command asks",
            f"{', '.join(repr(k) for k in unused)} never asked; the questions this command "
            f"asked: {', '.join(asked) or 'none'}; nothing was written",
        )


def _reachable(error: StoreError) -> None:
    """A store that cannot be reached (or is held too long by another writer) is said so, and
    nothing was written; other store errors are the caller's to word."""
    if isinstance(error, StoreUnavailable | StoreBusy):
        raise Unreachable(str(error)) from None


class Battle:
    """The front door over one store: every start, command, void, seal and what-if goes here."""

    def __init__(
        self,
        store: BattleStore,
        *,
        key: Ed25519PrivateKey | None = None,
        heads: Heads | None = None,
        replica: Replica | None = None,
    ) -> None:
        self.store = store
        self.key = key  # the judges' signing key: seals, and opens fair battles' escrow
        self.heads = heads or Heads()
        self.replica = replica  # reads from a streaming replica (replay/store/replica.py)
        self.pending = Pending()  # commands answered over several requests, paused at a question
        self.disputes = DisputeDoor(
            self
        )  # flags, rulings, notes and forks (replay/battles/disputes.py)

    # --- finding and reading -----------------------------------------------------------------

    def reading(self) -> BattleStore:
        """Where reads go: the store, or its streaming replica once that has replayed the
        reader's own last write (else the store: ``replay/store/replica.py``)."""
        return self.store if self.replica is None else self.replica.reads()

    def find(self, ref: str | None) -> UUID:
        """The battle ``ref`` names: its id (one indexed lookup), an id prefix or a label; the
        latest battle when None."""
        if ref is not None:
            try:
                exact = UUID(ref)
            except ValueError:
                exact = None
            if (
                exact is not None
                and str(exact) == ref
                and (exact in self.heads or self._indexed(exact))
            ):
                return exact
        try:
            return resolve_battle(self.reading(), ref)
        except BattleNotFound as e:
            raise Refused(
                "not_found", "battle", "a battle named by id, id prefix or label", str(e)
            ) from None
        except StoreError as e:
            _reachable(e)
            raise

    def kept_id(self, ref: str) -> UUID | None:
        """The battle ``ref`` names when it is a battle's full id whose head is kept here (None:
        ``find`` it, maybe by a read)."""
        try:
            exact = UUID(ref)
        except ValueError:
            return None
        return exact if str(exact) == ref and exact in self.heads else None

    def _indexed(self, battle: UUID) -> bool:
        try:
            return self.reading().models.head(battle) is not None
        except StoreError as e:
            _reachable(e)
            raise

    def read(self, battle: UUID) -> BattleHead:
        """The battle as the store holds it now: the head kept here when the store's head is
        still its last event, that head and what was written since when the log grew after it,
        the whole log otherwise. One whole read of a battle at a time: a thread that asks for
        it meanwhile waits and takes the head that read kept (a long battle's whole log is
        half a second of the processor; the viewer's requests of a page, racing, each read it)."""
        source = self.reading()
        found = self._kept_now(battle, source)
        if found is not None:
            return found
        with self.heads.whole(battle):
            found = self._kept_now(battle, source)  # read meanwhile by another thread
            if found is not None:
                return found
            return self.heads.keep(self._read_whole(source, battle))

    def _kept_now(self, battle: UUID, source: BattleStore) -> BattleHead | None:
        """The head kept here, or it with what was written since, if the store's head says it
        is the battle now (None: the whole log is to be read)."""
        kept = self.heads.get(battle)
        if kept is not None:
            try:
                head = source.head(battle)
            except StoreError as e:
                _reachable(e)
                head = None
            except msgspec.DecodeError:
                head = None
            if head is not None and head.version == kept.version:
                if head.hash == kept.events[-1].hash:
                    return kept
            elif head is not None and head.version > kept.version:
                grown = self._grown(source, kept, head.version)
                if grown is not None:
                    return self.heads.keep(grown)
            if source is not self.store and (head is None or head.version < kept.version):
                return kept  # a replica behind what this process saw: never a step back
        return None

    def kept(self, battle: UUID) -> BattleHead | None:
        """The head this process last saw, unread (a command appended at its version is the
        check: the store refuses it if anyone wrote since); None once another process is known
        to have written past it (``written_past``)."""
        return self.heads.unread(battle)

    def written_past(self, battle: UUID, version: int) -> None:
        """Another server process wrote ``battle`` up to ``version``: the head kept here is not
        taken unread (a phone's stale version is told so at once, not asked its dice and refused
        at the write), and a run paused before that version is put aside."""
        self.heads.written_past(battle, version)
        self.pending.drop(battle, version)

    def _grown(self, source: BattleStore, kept: BattleHead, version: int) -> BattleHead | None:
        """``kept`` with the records after it up to ``version``, if they carry on its chain."""
        try:
            after = list(source.logged(kept.id, gt=kept.version, lte=version))
        except StoreError as e:
            _reachable(e)
            return None
        if len(after) != version - kept.version or after[0].prev_hash != kept.events[-1].hash:
            return None
        return kept.grown(after)

    def _read_whole(self, source: BattleStore, battle: UUID) -> BattleHead:
        try:
            events = source.read(battle)
        except StoreError as e:
            _reachable(e)
            raise Refused(
                "conflict", "battle", "a battle must be readable (see verify)", str(e)
            ) from None
        return self._head_of(battle, events)

    def keep(self, battle: UUID, events: list[LoggedEvent]) -> BattleHead:
        """The battle as ``events`` hold it, read just now by the caller: kept as ``read``
        keeps a whole read (the next ``read`` checks the store's head, not the whole log)."""
        return self.heads.keep(self._head_of(battle, events))

    def _head_of(self, battle: UUID, events: list[LoggedEvent]) -> BattleHead:
        if not events or not isinstance(events[0].event, BattleStarted):
            raise Refused("not_found", "battle", "a battle named by id", f"no battle {battle}")
        first: BattleStarted[Any] = events[0].event
        try:
            system = get_game_system(first.ruleset)
        except UnknownGameSystem as e:
            raise Refused(
                "conflict", "battle", "the game system must be installed", str(e)
            ) from None
        return BattleHead(id=battle, events=tuple(events), system=system, started=first)

    def forget(self, battle: UUID) -> None:
        """Read the battle again next time (it was written to other than by a command)."""
        self.heads.forget(battle)

    def state_at(self, head: BattleHead, position: int) -> Any:
        """The battle's state right after ``position``: after its last event, the head's; else
        through the store's read models (the nearest snapshot and the events after it), or a
        fold of the events read when the store cannot say (the battle moved since)."""
        if position == head.version:
            return head.state
        from blowbyblow.projections.battle import fold_battle

        try:
            at = self.reading().state_at(head.id, position)
        except (BlowByBlowError, ValueError):
            at = None
        if at is not None and at.of == head.version:
            return at.state
        return fold_battle(head.system, head.plain, position)

    # --- playing ------------------------------------------------------------------------------

    def table(
        self,
        head: BattleHead,
        *,
        dice: DiceSource,
        choices: ChoiceSource,
        observe: Callable[[Event], None] | None = None,
        quiet: bool = False,
    ) -> Table:
        """Where the battle's commands are adjudicated: its system, its rulings, these sources."""
        try:
            rulings = head.rulings
        except RulingError as e:
            raise Refused("conflict", "battle", "rulings this engine reads", str(e)) from None
        return Table(
            system=head.system,
            rulings=rulings,
            dice=dice,
            choices=choices,
            battle=str(head.id),
            quiet=quiet,
            observe=observe,
        )

    def own_dice(self, head: BattleHead) -> DiceSource | None:
        """The battle's own digital dice (seeded, or fair once every side has contributed);
        None when its dice are physical, typed by the players."""
        mode = head.started.dice
        if mode.mode == "seeded" and mode.seed is not None:
            return SeededDice(mode.seed)
        if mode.mode == "fair":
            fair = self.fair(head)
            if fair.missing or not fair.contributions:
                raise Refused(
                    "conflict",
                    "contributions",
                    "every side gives its contribution before command 1",
                    f"waiting for the contribution of {', '.join(fair.missing) or 'every side'}",
                )
            return fair.dice()
        return None

    def fair(self, head: BattleHead, key: Ed25519PrivateKey | None = None) -> FairBattle:
        """A fair battle's start: its seed from this machine's kept copy, or from the escrow
        with the judges' key (``key``, else this door's)."""
        if not is_escrowed(head.started.dice):
            raise Refused(
                "conflict",
                "battle",
                "fair dice escrowed to the judges",
                f"battle {head.id} rolls fair dice of an older kind (no escrow): play it with "
                "`bxb play`",
            )
        key = key or self.key
        try:
            try:
                return open_fair(self.store, head.id)
            except FairnessError:
                if key is None:
                    raise
                return open_fair(self.store, head.id, key=key)
        except (FairnessError, JudgingError) as e:
            raise Refused(
                "conflict",
                "battle",
                "the fair seed kept here or opened with the judges' key",
                str(e),
            ) from None

    @staticmethod
    def takes_commands(head: BattleHead) -> None:
        """Refuse a command in a battle sealed (its result stands) or superseded (a judge forked
        it: the table goes on in the child), before anything else is asked of it."""
        if head.sealed:
            raise Refused(
                "conflict",
                "battle",
                "a sealed battle takes no more commands",
                f"battle {head.id} is sealed; nothing more can be played in it",
            )
        child = head.disputes.superseded_by
        if child is not None:
            raise Refused(
                "conflict",
                "battle",
                "a battle a judge forked goes on in its child",
                f"battle {head.id} was superseded by battle {child}: go on there",
            )

    def adjudicate(
        self,
        head: BattleHead,
        command: Any,
        *,
        dice: DiceSource,
        choices: ChoiceSource,
        observe: Callable[[Event], None] | None = None,
    ) -> Adjudicated:
        """Run ``command`` as the battle's next command, in memory: nothing is written. Raises
        what the rules raise (RuleViolation, DiceError), or what the sources raise. A front end
        that narrates each step (``observe``) is not sent them as log lines too."""
        return self.begin(head, command, dice=dice, choices=choices, observe=observe)()

    def begin(
        self,
        head: BattleHead,
        command: Any,
        *,
        dice: DiceSource,
        choices: ChoiceSource,
        observe: Callable[[Event], None] | None = None,
    ) -> Callable[[], Adjudicated]:
        """``adjudicate``, as a call that runs the command until it ends or a source cannot
        answer yet (it raises; call again once it can: the command goes on from that question,
        its procedure suspended in between, ``Adjudicating``)."""
        self.takes_commands(head)
        table = self.table(
            head, dice=dice, choices=choices, observe=observe, quiet=observe is not None
        )
        run = Adjudicating(
            table, head.state, command, head.commands + 1, first_position=head.version + 1
        )
        return lambda: Adjudicated(head=head, command=command, result=run.go_on())

    def commit(self, done: Adjudicated) -> Played:
        """Write an adjudicated command's events in one transaction at the version it was
        adjudicated from: ``Behind`` (nothing written) when anyone wrote since."""
        head = done.head
        self.pending.drop(head.id, head.version + 1)  # their version is written past, or stale
        try:
            logged = self.store.append(head.id, head.system.id, head.version, done.events)
        except StaleVersion as e:
            self.heads.forget(head.id)
            raise Behind(str(e)) from None
        except StoreError as e:
            self.heads.forget(head.id)
            _reachable(e)
            raise Refused("conflict", "battle", "a battle that takes commands", str(e)) from None
        new = self.heads.keep(head.grown(logged, done.result.state))
        return Played(head=new, command=done.command, index=done.index, logged=logged)

    def play(
        self,
        battle: BattleHead | UUID,
        command: Any,
        *,
        dice: DiceSource | None,
        choices: ChoiceSource,
    ) -> Played | Need:
        """Adjudicate ``command`` as the battle's next command and write it whole, or say what
        the rules ask for next (``Need``, nothing written). ``battle``: its head as the caller
        saw it (``Behind`` if anyone wrote since), or its id (read now). ``dice``: None for the
        battle's own digital dice; ``TypedDice``, the players' physical dice (refused for a
        battle with digital dice; one typed beyond those the command rolls is refused too); any
        other source is used as given (a replay of recorded dice)."""
        head = battle if isinstance(battle, BattleHead) else self.read(battle)
        if isinstance(dice, TypedDice) and head.started.dice.mode in ("seeded", "fair"):
            raise Refused(
                "invalid",
                "dice",
                f"a {head.started.dice.mode} battle rolls its own dice",
                "do not type dice for it",
            )
        source = dice or self.own_dice(head) or TypedDice(())
        try:
            done = self.adjudicate(head, command, dice=source, choices=choices)
        except NeedAnswer as e:
            return e.need
        except (RuleViolation, DiceError) as e:
            raise _refused(e) from None
        _every_die_used(source)
        return self.commit(done)

    def answer(  # noqa: PLR0913 - a request's answers, each keyword-only
        self,
        head: BattleHead,
        command: Any,
        *,
        dice: Sequence[int] | None,
        choices: Mapping[str, str],
        ask: bool = True,
        write: bool = True,
    ) -> Played | Adjudicated | Need:
        """``play`` for a front end that answers over several requests (the table page), each
        carrying every answer given so far: the command's run waits here at the rules' question
        (``replay/battles/pending.py``) and the next request's new answers resume it, rather
        than adjudicating the command again from its start at each roll. ``dice``: the dice
        typed so far (None: the battle's own digital dice); ``ask``: unanswered choices are
        asked (else they take the rules' default). Written whole once complete, as ``play``;
        ``write=False``: a complete command comes back adjudicated, nothing written (the players
        review what they typed, then send it again to write it: the finished run is kept for that
        request, which writes it without adjudicating it again)."""
        if dice is not None and head.started.dice.mode in ("seeded", "fair"):
            raise Refused(
                "invalid",
                "dice",
                f"a {head.started.dice.mode} battle rolls its own dice",
                "do not type dice for it",
            )
        if dice is None and head.started.dice.mode == "physical":
            dice = ()

        def begin(typed: DiceSource | None, given: ChoiceSource) -> Callable[[], Adjudicated]:
            source = typed or self.own_dice(head) or TypedDice(())
            return self.begin(head, command, dice=source, choices=given)

        key = (head.id, head.version, msgspec.msgpack.encode(command))
        word, typed = self.pending.answer(key, dice, choices, ask, begin)
        if isinstance(word, Need):
            return word
        if isinstance(word, RuleViolation | DiceError):
            raise _refused(word) from None
        if isinstance(word, BaseException):
            raise word
        assert isinstance(word, Adjudicated)
        if typed is not None:
            _every_die_used(typed)
        _every_answer_used(choices, word.events)
        return self.commit(word) if write else word

    # --- starting -----------------------------------------------------------------------------

    def start(self, scenario: AnyScenario, **how: Unpack[HowToRecord]) -> BattleHead:
        """Record ``scenario`` as a new battle, its actions with it: every action adjudicated
        before anything is written, then all in one transaction (``record.record``: the dice are
        the scenario's seed or listed dice unless given; with ``fair``, the start is written
        first and the actions after it, all or none)."""
        try:
            recorded = recording.record(self.store, scenario, **how)
        except StoreError as e:
            _reachable(e)
            raise
        first = recorded.events[0].event
        assert isinstance(first, BattleStarted)
        return self.heads.keep(
            BattleHead(
                id=recorded.battle,
                events=tuple(recorded.events),
                system=recorded.ruleset,
                started=first,
                known_state=recorded.state,
            )
        )

    def start_fair(self, scenario: AnyScenario, terms: FairTerms) -> FairBattle:
        """Start a fair battle: its commitment and escrow written first, then the contributions
        (docs/judging.md). Its actions are played with ``opening``."""
        try:
            return start_fair(self.store, scenario, terms)
        except StoreError as e:
            _reachable(e)
            raise

    def opening(
        self,
        head: BattleHead,
        commands: Sequence[Any],
        *,
        dice: DiceSource,
        choices: ChoiceSource,
        observe: Callable[[Event], None] | None = None,
    ) -> BattleHead:
        """Play a fair battle's setup actions with its dice: all written, in one transaction, if
        every one is legal with them; none otherwise (the error says why)."""
        table = self.table(head, dice=dice, choices=choices, observe=observe, quiet=True)
        turns = [Turn(command) for command in commands]
        results = list(
            adjudicate_commands(table, head.state, turns, first_position=head.version + 1)
        )
        events = [e for result in results for e in result.events]
        if not events:
            return head
        try:
            logged = self.store.append(head.id, head.system.id, head.version, events)
        except StaleVersion as e:
            raise Behind(str(e)) from None
        return self.heads.keep(head.grown(logged, results[-1].state))

    def contribute(self, battle: UUID, given: Mapping[str, str]) -> list[LoggedEvent]:
        """A fair battle's contributions, given before its first command."""
        self.heads.forget(battle)
        try:
            return contribute(self.store, battle, given)
        except StaleVersion as e:
            raise Behind(str(e), field="contributions") from None
        except StoreError as e:
            _reachable(e)
            raise

    # --- corrections and judging --------------------------------------------------------------

    def void(
        self, battle: UUID, command: int, *, by: str, reason: str, version: int | None = None
    ) -> LoggedEvent:
        """Record that command number ``command`` is not played, by whom and why (only the last
        command that stands, in a battle not sealed); nothing is deleted. ``version``: the
        battle's version the caller saw (``Behind`` if it moved)."""
        head = self.read(battle)
        if version is not None and version != head.version:
            raise Behind.seen(head.version, version, "written")
        self.heads.forget(battle)
        try:
            return recording.void(self.store, head, command=command, by=by, reason=reason)
        except StaleVersion as e:
            raise Behind(str(e)) from None
        except StoreError as e:
            _reachable(e)
            raise

    def seal(self, battle: UUID, key: Ed25519PrivateKey | None = None) -> LoggedEvent:
        """Verify the battle, then close it with a checkpoint signed with the judges' key (a
        fair battle's seed revealed in it)."""
        key = key or self.key
        if key is None:
            raise Refused(
                "conflict",
                "key",
                "a seal is signed with the judges' key",
                "no signing key: give the judge's key (`bxb serve --key PATH`, `bxb seal --key`)",
            )
        self.heads.forget(battle)
        try:
            return recording.seal_battle(self.store, battle, key)
        except StoreError as e:
            _reachable(e)
            raise

    def import_(self, text: bytes | str, trusted: frozenset[str] | None = None) -> ReadExport:
        """An exported battle, verified completely, then written whole in one transaction;
        refused (nothing written) when it fails, or when the store already holds it."""
        read = read_export(text, trusted)
        if not read.report.ok:
            assert read.report.problem is not None
            raise ExportError(f"refused: {read.report.problem.describe()}")
        try:
            if self.store.version(read.battle):
                raise ExportError(f"refused: the store already holds battle {read.battle}")
            self.store.import_events(read.battle, read.events)
        except StoreError as e:
            _reachable(e)
            raise
        return read

    def what_if(
        self, battle: UUID, rulings: Mapping[str, str], ruleset: str | None = None
    ) -> WhatIf:
        """The battle re-run under other rulings (or another version of its game), with the
        same dice and choices; nothing written."""
        from blowbyblow.replay.battles.whatif import what_if

        head = self.read(battle)
        return what_if(list(head.events), dict(rulings), ruleset)

    def save(self, whatif: WhatIf) -> UUID:
        """A completed what-if kept as a battle of its own (its origin recorded)."""
        if whatif.stopped:
            raise Refused(
                "conflict", "save", "only a re-run that completes is saved", whatif.stopped
            )
        try:
            return recording.save_events(self.store, whatif.ruleset, whatif.alternative).battle
        except recording.AlreadyRecorded as e:
            return e.battle


__all__ = ["Adjudicated", "Battle", "Played"]
