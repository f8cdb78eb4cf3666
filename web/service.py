"""What the server does for a request, in plain synchronous calls: it reads (the log and the
state at any position as rows and views, a tournament's tables with their status) and it
translates requests into the front door's calls (``replay.battles.battle.Battle``: start, play,
void, contribute, seal, what-if) and their results into the API's bodies. The API
(``web/api.py``) runs these in worker threads; a refusal is an ``ApiError`` or the door's
``Refused``, mapped to HTTP in one place (``web/errors.py``); nothing is written then.

No rules are decided and nothing is written here: the door adjudicates and writes."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    CommandIssued,
    RuleViolation,
    RulingError,
    SetupError,
)
from blowbyblow.domain.judging import BattleSealed
from blowbyblow.projections.battle import voided_commands
from blowbyblow.replay.battles.battle import Adjudicated, Battle
from blowbyblow.replay.battles.diff import diff_battles
from blowbyblow.replay.battles.fair_start import untouched_starts
from blowbyblow.replay.battles.head import BattleHead
from blowbyblow.replay.battles.inputs import Need
from blowbyblow.replay.battles.record import AlreadyRecorded, VoidRefused
from blowbyblow.replay.battles.refusals import Behind, Refused
from blowbyblow.replay.engine.codec import to_builtins
from blowbyblow.replay.engine.dice import DiceError, ListedDice, ScriptedChoices
from blowbyblow.replay.engine.registry import UnknownGameSystem, get_game_system
from blowbyblow.replay.engine.script import UnusedInput
from blowbyblow.replay.evidence.begun import verify_any
from blowbyblow.replay.evidence.export import ExportError, export_battle
from blowbyblow.replay.evidence.fairness import (
    FairnessError,
    FairTerms,
    StartedAndKept,
    shown_values,
    sides_of,
)
from blowbyblow.replay.evidence.receipts import Receipt, sign_receipt
from blowbyblow.replay.evidence.seals import (
    JudgingError,
    escrow_key,
    escrow_public_text,
    load_public_key,
)
from blowbyblow.replay.evidence.verify import Report
from blowbyblow.replay.odds.explore import Odds
from blowbyblow.replay.store.log import (
    BattleStore,
    LoggedEvent,
    StoreBusy,
    StoreError,
    StoreUnavailable,
)
from blowbyblow.replay.store.replica import Replica
from blowbyblow.web.errors import ApiError
from blowbyblow.web.odds_desk import ServerOdds
from blowbyblow.web.requests import command_of, scenario_of
from blowbyblow.web.rows import ReviewedRows, event_rows, plain_rows
from blowbyblow.web.schemas import (
    BattleSummary,
    Contributions,
    ContributionsResult,
    DiffResult,
    EventRow,
    FairInfo,
    ImportRequest,
    ImportResult,
    LegalOptions,
    PlayCommand,
    PlayResult,
    ProblemBody,
    SealResult,
    StartBattle,
    StateAt,
    Status,
    TablePlace,
    VerifyResult,
    VoidRequest,
    VoidResult,
    WhatIfRequest,
    WhatIfResult,
    status_of,
)
from blowbyblow.web.service_tournament import TournamentWide
from blowbyblow.web.tournament import TableBattle, TournamentStore
from blowbyblow.web.window import position_in

AGAIN = 3  # re-adjudications of a command without a version, written past (docs/web.md)
PAST = f"written past {AGAIN + 1} times as this command was adjudicated; nothing was written"
MAX_ROUND = 1000  # a tournament's rounds; the register's column holds far more, never 10^30


@dataclass(frozen=True)
class ToWrite:
    """A command adjudicated, complete, not yet written (``Service.write``)."""

    done: Adjudicated
    command: Any  # as the answer shows it


@dataclass
class Service(TournamentWide):
    """The front door over the store, the tournament register and the judges' signing key,
    shared by every request."""

    store: BattleStore
    tournaments: TournamentStore
    key: Ed25519PrivateKey | None = None  # seals, signs receipts, opens escrows
    # Escrow public keys (x25519:HEX) a fair battle's seed is encrypted to; none given: the
    # escrow key of ``key`` (the judges seal on this server with that same key).
    judge_keys: tuple[str, ...] = ()
    replica: Replica | None = None  # reads from a streaming replica (bxb serve --read-db)
    door: Battle = field(init=False)
    _verified: dict[tuple[UUID, int], VerifyResult] = field(default_factory=dict)
    # Every odds asked for, worked out away from the server's process (web/odds_desk.py).
    odds_desk: ServerOdds = field(default_factory=ServerOdds)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _rows: ReviewedRows = field(default_factory=ReviewedRows)  # a review's rows, for its write

    def __post_init__(self) -> None:
        self.door = Battle(self.store, key=self.key, replica=self.replica)

    # --- reading --------------------------------------------------------------------------

    def reading(self) -> BattleStore:
        """Where this request's reads go: the store, or its replica (``Battle.reading``)."""
        return self.door.reading()

    def battle_id(self, ref: str) -> UUID:
        """The battle ``ref`` names: a battle's id (one indexed lookup), an id prefix or a
        label."""
        return self.door.find(ref)

    def read(self, battle: UUID) -> BattleHead:
        return self.door.read(battle)

    def log(self, battle: UUID, after: int = 0) -> list[EventRow]:
        b = self.read(battle)
        return [r for r in event_rows(b.system, b.events) if r.position > after]

    def summary(self, battle: UUID) -> BattleSummary:
        try:
            b = self.read(battle)
        except (ApiError, Refused):
            return self._unreadable(battle)
        place = self.tournaments.place_of(battle)
        return BattleSummary(
            battle=str(battle),
            label=b.started.label,
            ruleset=b.system.id,
            title=b.system.title,
            version=b.version,
            commands=b.commands,
            dice=b.started.dice.mode,
            rulings=dict(b.started.rulings),
            status=self._status(b, place),
            place=None
            if place is None
            else TablePlace(tournament=place.tournament, table=place.table, round=place.round),
            origin=b.started.origin,
            last_command=b.last_command[0] if b.last_command else 0,
            voided=b.voided,
            fair=self._fair_info(b),
        )

    def _fair_info(self, b: BattleHead) -> FairInfo | None:
        """A fair battle's commitment and contributions (None for other dice, or a fair battle
        whose start cannot be read: verify says why)."""
        shown = shown_values([e.event for e in b.events])
        if shown is None:
            return None
        committed, given = shown
        sides = list(sides_of(b.system, b.started.setup))
        return FairInfo(
            commitment=committed,
            sides=sides,
            contributions=given,
            missing=[s for s in sides if s not in given],
        )

    def _unreadable(self, battle: UUID) -> BattleSummary:
        place = self.tournaments.place_of(battle)
        return BattleSummary(
            battle=str(battle),
            label="(unreadable)",
            ruleset="",
            title="",
            version=self.store.version(battle),
            commands=0,
            dice="",
            rulings={},
            status="verify failed",
            place=None
            if place is None
            else TablePlace(tournament=place.tournament, table=place.table, round=place.round),
        )

    def _status(self, b: BattleHead, place: TableBattle | None) -> Status:
        checked = self._verified.get((b.id, len(b.events)))
        return status_of(
            sealed=b.sealed,
            failed=checked is not None and not checked.ok,
            finished=(place is not None and place.finished) or not b.options,
            commands=b.commands,
        )

    def legal(self, battle: UUID) -> LegalOptions:
        b = self.read(battle)
        return LegalOptions(battle=str(battle), version=b.version, options=b.options)

    def view(self, battle: UUID, version: int) -> Any:
        """The game's view of the state after ``version`` (the table page's state panel): the
        battle as this process keeps it when it is at that version (just written), unread."""
        kept = self.door.kept(battle)
        b = kept if kept is not None and kept.version == version else self.read(battle)
        return b.system.view(self.door.state_at(b, min(version, b.version)))

    def state_at(self, battle: UUID, position: int | None) -> StateAt:
        b = self.read(battle)
        total = b.version
        at = position_in(position, total)
        state = self.door.state_at(b, at)
        # the event's row alone, with its command and the void that leaves it out (a later one too)
        command = next((e.index for e in b.plain[at - 1 :: -1] if isinstance(e, CommandIssued)), 0)
        voided = voided_commands(b.plain)
        row = event_rows(b.system, b.events[at - 1 : at], command=command, voided=voided)[0]
        return StateAt(
            battle=str(battle),
            position=at,
            of=total,
            event=row,
            view=b.system.view(state),
            text=b.system.describe_state(state),
            state=to_builtins(state),
        )

    def odds(
        self, battle: UUID, position: int, budget: int, samples: int, first: bool = False
    ) -> Odds:
        """The odds of the recorded command at ``position`` (``bxb odds --battle ID --position
        N``): exact within ``budget`` runs, else ``samples`` samples (``first``: drawn at once,
        a first answer); worked out and kept by the odds desk (``web/odds_desk.py``)."""
        events = list(self.read(battle).plain)
        return self.odds_desk.recorded(events, position, budget, samples, first)

    # --- starting and playing ---------------------------------------------------------------

    def start(self, tournament: str, table: int, req: StartBattle) -> BattleSummary:
        """Record a new battle at a table (and its commands, if a whole scenario is given)."""
        try:
            system = get_game_system(req.ruleset)
        except UnknownGameSystem as e:
            raise ApiError(422, "ruleset", "a game system of this server", str(e)) from None
        if table not in self.tournaments.tournament(tournament).tables:
            raise ApiError(
                404, "table", "a table of the tournament", f"no table {table} in {tournament}"
            )
        if not 1 <= req.round <= MAX_ROUND:  # checked before the battle is written
            raise ApiError(
                422, "round", f"rounds count from 1 to {MAX_ROUND}", f"round {req.round}"
            )
        scenario = scenario_of(system, tournament, table, req)
        battle = self._start_fair(scenario, req) if req.fair else self._start(scenario, req)
        self.tournaments.assign(battle, tournament, table, req.round)
        return self.summary(battle)

    def _start(self, scenario: Any, req: StartBattle) -> UUID:
        if req.contributions:
            raise ApiError(
                422, "contributions", "contributions go with fair dice", "give fair: true too"
            )
        dice = None if req.seed is not None else ListedDice(req.dice)
        try:
            return self.door.start(
                scenario, dice=dice, choices=ScriptedChoices(req.choices), quiet=True
            ).id
        except AlreadyRecorded as e:
            if self.tournaments.place_of(e.battle) is None:
                # Written by a start that died before its table was told (two writes, a kill
                # between them): the same start again places that battle, already the one it
                # asks for (a battle's id is its first event's), rather than refusing for ever.
                return e.battle
            raise ApiError(409, "label", "one battle per label and setup", str(e)) from None
        except RulingError as e:
            raise ApiError(422, "rulings", "the game system's rulings", str(e)) from None
        except SetupError as e:
            raise ApiError(422, "setup", "a setup that hangs together", str(e)) from None
        except RuleViolation as e:
            raise ApiError(422, "commands", e.rule, e.message) from None
        except DiceError as e:
            raise ApiError(
                422, "dice", "one typed die for each the rules ask for", str(e)
            ) from None
        except UnusedInput as e:  # dice or answers left over: they were meant for other play
            raise ApiError(
                422, e.field, f"exactly the {e.field} the rules ask for", str(e)
            ) from None

    def escrow_keys(self) -> list[str]:
        """The judges' escrow public keys a fair battle's seed is encrypted to."""
        if self.judge_keys:
            return list(self.judge_keys)
        return [] if self.key is None else [escrow_public_text(escrow_key(self.key))]

    def _start_fair(self, scenario: Any, req: StartBattle) -> UUID:
        """Write a fair battle's start (commitment, escrow) and the contributions given with it;
        the others come later (``contribute``), each before the first command."""
        if req.seed is not None or req.dice or req.commands:
            field_name = "seed" if req.seed is not None else "dice" if req.dice else "commands"
            raise ApiError(
                422,
                field_name,
                "a fair battle rolls its own dice, command by command",
                f"give no {field_name} with fair: true",
            )
        keys = self.escrow_keys()
        if not keys:
            raise ApiError(
                409,
                "fair",
                "fair dice are escrowed to the judges' key",
                "this server has no judge's key: start it with `bxb serve --key PATH` "
                "(or --judge-key x25519:HEX)",
            )
        terms = FairTerms(judge_keys=keys, contributions=req.contributions, keep_seed=True)
        if not req.contributions:
            for twin in untouched_starts(self.store, scenario, keys):
                if self.tournaments.place_of(twin) is None:
                    # Written by a start that died before its table was told (the battle, then
                    # its place: two writes): the same start again takes that one over.
                    return twin
        try:
            return self.door.start_fair(scenario, terms).battle
        except StartedAndKept as e:  # written, but not its contributions: they can come later
            return e.battle
        except FairnessError as e:
            raise ApiError(
                422, "contributions", "one value per side of the setup", str(e)
            ) from None
        except RulingError as e:
            raise ApiError(422, "rulings", "the game system's rulings", str(e)) from None
        except SetupError as e:
            raise ApiError(422, "setup", "a setup that hangs together", str(e)) from None

    def contribute(self, battle: UUID, req: Contributions) -> ContributionsResult:
        """A fair battle's contributions, given at the table before the first command."""
        b = self.read(battle)
        if shown_values([e.event for e in b.events]) is None:
            raise ApiError(
                409, "battle", "contributions go to a fair battle", f"battle {battle} is not fair"
            )
        try:
            logged = self.door.contribute(battle, req.contributions)
        except FairnessError as e:
            rule = "contributions come before command 1, one per side"
            raise ApiError(422, "contributions", rule, str(e)) from None
        after = self.read(battle)
        info = self._fair_info(after)
        assert info is not None
        return ContributionsResult(
            battle=str(battle),
            version=after.version,
            fair=info,
            receipt=self._receipt(battle, logged[-1]),
        )

    def _receipt(self, battle: UUID, last: LoggedEvent) -> Receipt | None:
        """The server's receipt for the battle's head at ``last`` (None: no signing key)."""
        return None if self.key is None else sign_receipt(self.key, battle, last)

    def receipt(self, battle: UUID) -> Receipt | None:
        """The receipt for the battle's head as the store holds it now (the table page shows it:
        the same line the last write handed out, an Ed25519 signature being deterministic)."""
        last = self.store.last(battle)
        return None if last is None else self._receipt(battle, last)

    def play(self, battle: UUID, req: PlayCommand) -> PlayResult:
        """Adjudicate one command against the battle as it stands; written in one transaction
        only if it completes, every typed die is used and nobody wrote first. The battle as this
        process last saw it is taken unread: the append at its version is the check. The battle
        is read when the player saw another version, or by ``write`` when written past."""
        kept = self.door.kept(battle)
        b = kept if kept is not None and req.version in (None, kept.version) else self.read(battle)
        try:
            return self.write(self._play(b, req), req)
        except Refused as e:
            if b is not kept or e.kind != "invalid":
                raise
            now = self.read(battle)
            if now.version == b.version:
                raise
        # Refused on the head kept here, unread, and another process (or `bxb play`) has
        # written since: a player who is behind hears that first (409), since what they sent
        # was meant for the battle they saw; without a version, the battle as it stands judges.
        if req.version is not None:
            raise Behind.seen(now.version, req.version) from None
        return self.write(self._play(now, req), req)

    def play_kept(self, kept: BattleHead, req: PlayCommand) -> PlayResult | ToWrite | None:
        """``play`` on the head kept here (``Battle.kept``), nothing read or written: the rules'
        question, the command to review, or it adjudicated to be written (``write``); None: the
        battle is to be read (the player saw another version, or what was sent is refused: it is
        judged again by ``play``). For ``web/api.py``'s loop."""
        if req.version not in (None, kept.version):
            return None
        try:
            return self._play(kept, req)
        except Refused as e:
            if e.kind != "invalid":
                raise
            return None  # ``play`` hears first whether the battle moved on (a read, not here)

    def write(self, found: PlayResult | ToWrite, req: PlayCommand) -> PlayResult:
        """Write a command adjudicated (``_play``, ``play_kept``); sent without a version and
        written past, it is adjudicated again from the battle as it stands (``AGAIN`` times)."""
        again = 0
        while not isinstance(found, PlayResult):  # else nothing to write
            try:
                played = self.door.commit(found.done)
            except Behind:
                if req.version is not None:
                    raise
                if again == AGAIN:
                    raise Behind(PAST) from None
                found, again = self._play(self.read(found.done.head.id), req), again + 1
                continue
            head = found.done.head
            return PlayResult(
                status="played",
                version=played.head.version,
                events=self._rows.written(head.id, head.system, played.logged, played.index),
                command=found.command,
                receipt=self._receipt(head.id, played.logged[-1]),
                next=LegalOptions(
                    battle=str(head.id), version=played.head.version, options=played.head.options
                ),
            )
        return found

    def _play(self, b: BattleHead, req: PlayCommand) -> PlayResult | ToWrite:
        """The command's next word from its run (``Battle.answer``), nothing written: the
        question, the rows to review, or the command adjudicated to be written (``write``)."""
        if req.version is not None and req.version != b.version:
            raise Behind.seen(b.version, req.version)
        self.door.takes_commands(b)  # sealed or superseded: before the command is read
        command = command_of(b, req)
        typed = req.dice if req.dice or b.started.dice.mode == "physical" else None
        plain = to_builtins(command)
        # each roll typed is a request with every answer so far: the door resumes the command
        # where the rules asked, rather than adjudicating it again from its start
        found = self.door.answer(
            b, command, dice=typed, choices=req.choices, ask=req.ask, write=False
        )
        if isinstance(found, Need):
            return PlayResult(status="needs", version=b.version, need=found, command=plain)
        assert isinstance(found, Adjudicated)
        # A fair battle's dice are secret until written: a review would show them, and the
        # table could cancel and play another option instead. Its command is written at once.
        if req.review and b.started.dice.mode != "fair":
            rows = self._rows.review(b.id, b.system, found.events, first=b.version + 1)
            return PlayResult(status="review", version=b.version, events=rows, command=plain)
        return ToWrite(done=found, command=plain)

    def void(self, battle: UUID, req: VoidRequest, by: str) -> VoidResult:
        """Record that the last command that stands is not played, who voided it and why
        (``Battle.void``); nothing is deleted."""
        if not req.reason.strip():
            raise ApiError(
                422, "reason", "a void says why", "give the reason the command is voided"
            )
        # Who voided is the token's; a name typed with it is what someone said, so it goes in
        # the reason as a note (docs/web.md), never in ``by``.
        reason = req.reason.strip()
        if req.by.strip():
            reason = f"{reason} (note: {req.by.strip()})"
        try:
            logged = self.door.void(battle, req.command, by=by, reason=reason, version=req.version)
        except VoidRefused as e:
            status = 409 if self.read(battle).sealed else 422
            rule = "only the last command that stands is voided, before the seal"
            raise ApiError(status, "command", rule, str(e)) from None
        return VoidResult(
            battle=str(battle),
            command=req.command,
            position=logged.position,
            version=logged.position,
            by=by,
            reason=reason,
            receipt=self._receipt(battle, logged),
        )

    def finish(self, battle: UUID) -> BattleSummary:
        self.read(battle)
        if self.tournaments.place_of(battle) is None:
            raise ApiError(
                404, "battle", "a battle played at a table", f"battle {battle} is at no table"
            )
        self.tournaments.mark_finished(battle)
        return self.summary(battle)

    # --- judging ----------------------------------------------------------------------------

    def verify(self, battle: UUID) -> VerifyResult:
        report = verify_any(self.store, battle)
        result = self._verify_result(report)
        with self._lock:
            self._verified[(battle, report.events)] = result
        return result

    def _verify_result(self, report: Report) -> VerifyResult:
        problem = None
        if report.problem is not None:
            p = report.problem
            citation = ""
            if p.rule and report.ruleset:
                try:
                    citation = get_game_system(report.ruleset).rulebook.cite(p.rule)
                except UnknownGameSystem:
                    citation = ""
            problem = ProblemBody(
                position=p.position,
                kind=p.kind,
                message=p.message,
                rule=p.rule,
                citation=citation,
                recorded=p.recorded,
                expected=p.expected,
            )
        return VerifyResult(
            battle=str(report.battle),
            ok=report.ok,
            label=report.label,
            events=report.events,
            commands=report.commands,
            dice_checked=report.dice_checked,
            problem=problem,
            notes=list(report.notes),
            text="verify OK" if report.ok else f"verify FAILED: {problem and p.describe()}",
        )

    def seal(self, battle: UUID) -> SealResult:
        if not any(isinstance(e.event, CommandIssued) for e in self.read(battle).events):
            raise ApiError(
                409, "battle", "a seal closes a battle that has begun", "no command played yet"
            )
        if self.key is None:
            raise ApiError(
                409,
                "key",
                "the server seals with the judges' signing key",
                "this server has no signing key: start it with `bxb serve --key PATH`",
            )
        try:
            logged = self.door.seal(battle)
        except (JudgingError, StoreError) as e:
            if isinstance(e, StoreUnavailable | StoreBusy):
                raise
            raise ApiError(409, "battle", "a seal closes a battle that verifies", str(e)) from None
        ev = logged.event
        assert isinstance(ev, BattleSealed)
        return SealResult(
            battle=str(battle),
            position=logged.position,
            length=ev.checkpoint.length,
            last_hash=ev.checkpoint.last_hash,
            public_key=ev.public_key,
            seed_revealed=ev.checkpoint.seed is not None,
        )

    def export(self, battle: UUID) -> bytes:
        self.read(battle)
        try:
            return export_battle(self.reading(), battle)
        except (StoreUnavailable, StoreBusy):
            raise
        except BlowByBlowError as e:
            raise ApiError(409, "battle", "a readable battle", str(e)) from None

    def import_(self, req: ImportRequest) -> ImportResult:
        try:
            trusted = frozenset(load_public_key(k) for k in req.public_keys) or None
        except BlowByBlowError as e:
            raise ApiError(422, "public_keys", "hex Ed25519 public keys", str(e)) from None
        try:
            read = self.door.import_(req.text, trusted)
        except Refused:
            raise
        except (ExportError, BlowByBlowError) as e:
            raise ApiError(422, "text", "an export that verifies completely", str(e)) from None
        return ImportResult(
            battle=str(read.battle), label=read.report.label, events=len(read.events)
        )

    def whatif(self, battle: UUID, req: WhatIfRequest) -> WhatIfResult:
        try:
            wi = self.door.what_if(battle, req.rulings, req.ruleset)
        except Refused:
            raise
        except BlowByBlowError as e:
            raise ApiError(
                422, "rulings", "rulings and versions of the battle's game", str(e)
            ) from None
        saved = str(self.door.save(wi)) if req.save else None
        return WhatIfResult(
            battle=str(battle),
            ruleset=wi.ruleset.id,
            rulings=dict(wi.alternative[0].rulings)
            if isinstance(wi.alternative[0], BattleStarted)
            else {},
            divergence=wi.divergence,
            original=plain_rows(wi.original_ruleset, wi.original),
            alternative=plain_rows(wi.ruleset, wi.shown),
            original_state=wi.original_ruleset.describe_state(wi.original_state),
            alternative_state=wi.ruleset.describe_state(wi.alternative_state),
            stopped=wi.stopped,
            fresh_dice=list(wi.fresh_dice),
            saved=saved,
        )

    def diff(self, a: UUID, b: UUID) -> DiffResult:
        """Two battles compared as played (``replay/battles/diff.py``, as ``bxb diff``)."""
        ba, bb = self.read(a), self.read(b)
        found = diff_battles(ba.events, bb.events)
        return DiffResult(
            a=str(a),
            b=str(b),
            divergence=found.divergence,
            a_events=ba.version,
            b_events=bb.version,
            a_row=self._row_at(ba, found.a.position),
            b_row=self._row_at(bb, found.b.position),
            start=found.start,
            a_position=found.a.position,
            b_position=found.b.position,
        )

    @staticmethod
    def _row_at(b: BattleHead, position: int) -> EventRow | None:
        if position > b.version:
            return None
        return event_rows(b.system, b.events[:position])[-1]


__all__ = ["Service"]
