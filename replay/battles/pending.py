"""Commands answered over several requests, kept paused where the rules ask (issue 25).

The table page answers a command's dice one roll at a time, each roll a request carrying every
answer given so far. Running the rules procedure again from its start at every request made a
command cost one adjudication per roll. Instead the door keeps the command's run where the
rules asked (``Pending``: short-lived, in this process's memory, keyed by battle, version and
command), and the next request's new answers take it on from there. A run is the driver's
``Adjudicating``: the procedure is a generator, suspended at its question between two requests,
so a paused run is a few objects in memory, with no thread and no hand-over between threads;
the request that brings the answers runs it on to the next question, in the thread that serves
it (the server's event loop for a typed die of a battle it keeps, ``web/api.py``; else a worker).
Nothing is written until the command completes; the door then writes it as any other. A command
completed for the players to review (the table page's last roll, ``write=False``) is kept,
finished, for the request that writes it: what was reviewed is written without running it again.

A request that finds no run here (another server process, a run idle too long or put aside for
newer ones, answers that are not those given before) starts the command afresh from every answer
it carries, which is what every request did before: a paused run only ever saves work, it never
changes what is adjudicated. The run reads its answers through the same sources (``TypedDice``,
``GivenChoices``), so the dice, the choices and the events are the same as when every answer is
given at once.

A run with typed dice that stops at a choice, asked (``ask``), goes on at once with the choice's
default, and with each later choice's, until a roll is asked for, the command is complete or
``AHEAD`` questions are met: the question comes back with ``then``, the questions its default
leads to, so the page asks them in turn with no request between them while the players take each
default, and sends them all with the dice of the roll that ends them (issue 25: each choice was a
request of its own). A request that brings those defaults takes the run on from where it went; one
that answers otherwise starts a run of its own, as any other answers do; one that brings nothing
new hears the question again. A run on the battle's own dice (seeded, fair) does not go on: it
would roll them, and a question met past a roll would tell the players what it showed before they
choose (Gangfight's armour question after a hit roll asks only on a hit).

Two phones on one table may answer the same command at once. Answers that carry on from a run's
go to it, one request at a time (its lock): a request whose answers add nothing hears the
question the run stands at. Answers that differ start a run of their own, which takes the
other's place here; a request already taking the other run on finishes with it (its word is
still the truth for its own answers)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from uuid import UUID

import msgspec

from blowbyblow.replay.battles.inputs import (
    GivenChoices,
    Need,
    NeedAnswer,
    TypedDice,
    answers_one_of,
)
from blowbyblow.replay.engine.dice import ChoiceSource, DiceSource

WAIT_FOR_ANSWER = 600.0  # seconds a paused run is kept without an answer
RUNS_KEPT = 1024  # paused runs kept at once in a process; the longest idle is put aside first
AHEAD = 8  # questions a run goes on past with their defaults, ahead of the players' answers

Key = tuple[UUID, int, bytes]  # battle, version adjudicated from, the command's canonical bytes

# ``begin(dice, choices)`` starts a command's run on these sources and gives back what takes it
# on: a call that returns the finished result, or raises ``NeedAnswer`` (the rules' question),
# or what the rules raise.
GoOn = Callable[[], Any]
Begin = Callable[[DiceSource | None, ChoiceSource], GoOn]


class _Run:
    """One command's run, paused at the rules' question: the answers given so far (in its
    sources) and what takes it on."""

    def __init__(
        self, dice: Sequence[int] | None, choices: Mapping[str, str], ask: bool, begin: Begin
    ) -> None:
        self.given_dice = list(dice) if dice is not None else None
        self.given_choices = dict(choices)
        self.ask = ask
        self.dice = TypedDice(dice) if dice is not None else None
        self.choices = GivenChoices(choices, ask=ask)
        self.lock = threading.Lock()  # one request at a time takes the run on
        self.word: object = None  # the run's last word: its question, result or error
        self.paused = False  # at a question (else finished, or not started)
        self.done = False  # finished with a result, not written yet (the players review it)
        self.aside = False  # put aside (written past, or idle too long): never kept again
        self.assumed: dict[str, str] = {}  # defaults the run went on with, not yet answered
        self.ahead: object = None  # the run's word past them (where it stands)
        self.used = time.monotonic()
        self._begin = begin
        self._go_on: GoOn | None = None

    def takes(self, dice: Sequence[int] | None, choices: Mapping[str, str], ask: bool) -> bool:
        """Whether these answers carry on from those given so far (the same, and maybe more)."""
        if self.aside or ask != self.ask or (dice is None) != (self.given_dice is None):
            return False
        if not self.paused and not (
            self.done and (dice is None or len(dice) == len(self.given_dice or ()))
        ):
            return False  # a finished run is taken again only with no die beyond its own
        if (
            dice is not None
            and self.given_dice is not None
            and list(dice[: len(self.given_dice)]) != self.given_dice
        ):
            return False
        if any(choices.get(k) != v for k, v in self.given_choices.items()):
            return False
        if self.assumed and not self._assumed_alike(dice, choices):
            return False
        # an answer to a question the run has already settled (its default taken, ``ask`` off)
        # would be read by a fresh run: these answers do not carry on from the run's
        asked = self.choices.asked
        return not any(
            k not in self.given_choices and k not in self.assumed and answers_one_of(k, asked)
            for k in choices
        )

    def _assumed_alike(self, dice: Sequence[int] | None, choices: Mapping[str, str]) -> bool:
        """Whether these answers agree with the defaults the run went on with: all of them
        given alike, or none and nothing new (the question asked again)."""
        given = [k for k in self.assumed if k in choices]
        if any(choices[k] != self.assumed[k] for k in given):
            return False
        if len(given) == len(self.assumed):
            return True
        more_dice = dice is not None and len(dice) > len(self.given_dice or ())
        return not given and not more_dice and set(choices) <= set(self.given_choices)

    def answer(self, dice: Sequence[int] | None, choices: Mapping[str, str]) -> object:
        """Give the run the answers beyond those given so far and take it on to its next word
        (the caller holds ``lock``)."""
        new_dice = (
            list(dice[len(self.given_dice) :]) if dice and self.given_dice is not None else []
        )
        new_choices = {k: v for k, v in choices.items() if k not in self.given_choices}
        if self.assumed and all(new_choices.get(k) == v for k, v in self.assumed.items()):
            # the defaults the run went on with, taken by the players: it stands past them
            self.given_choices.update(self.assumed)
            new_choices = {k: v for k, v in new_choices.items() if k not in self.assumed}
            self.assumed, self.word = {}, self.ahead
        if self.word is not None and not new_dice and not new_choices:
            return self.word  # nothing new: the question stands
        if self.given_dice is not None and self.dice is not None:
            self.given_dice += new_dice
            self.dice.add(new_dice)
        self.given_choices.update(new_choices)
        self.choices.add(new_choices)
        self.used = time.monotonic()
        self.word = self._on()
        # Only with typed dice, whose next roll stops it: the battle's own dice (seeded, fair)
        # would roll on, and a question met past a roll would tell its dice before they show.
        typed = self.dice is not None
        if isinstance(self.word, Need) and self.word.kind == "choice" and self.ask and typed:
            self.word = self._go_ahead(self.word)
        return self.word

    def _on(self) -> object:
        """The run taken on to its next word, with the answers its sources hold now."""
        try:
            if self._go_on is None:
                self._go_on = self._begin(self.dice, self.choices)
            word = self._go_on()
            self.paused, self.done = False, True
        except NeedAnswer as e:
            word = e.need
            self.paused, self.done = True, False
        except BaseException as e:  # what the rules raise is the request's to word
            word = e
            self.paused, self.done = False, False
        return word

    def _go_ahead(self, asked: Need) -> Need:
        """The run taken on past the choice ``asked`` with its default, and past each choice
        after it likewise, until a roll is asked for, the command is complete or ``AHEAD``
        questions are met: ``asked`` with ``then``, the questions met on the way. Where the
        rules raise on the way, the run is not kept (a fresh one hears the players' answers)
        and ``asked`` goes alone."""
        then: list[Need] = []
        word: object = asked
        while isinstance(word, Need) and word.kind == "choice" and len(then) < AHEAD:
            self.assumed[word.key] = word.default
            self.choices.add({word.key: word.default})
            word = self._on()
            if isinstance(word, Need):
                then.append(word)
        if isinstance(word, BaseException):
            self.assumed = {}
            return asked
        self.ahead = word
        return msgspec.structs.replace(asked, then=then)


class Pending:
    """The paused runs of this process, shared by every thread."""

    def __init__(self, kept: int = RUNS_KEPT) -> None:
        self._kept = kept
        self._runs: OrderedDict[Key, _Run] = OrderedDict()  # the least recently used first
        self._battles: dict[UUID, set[Key]] = {}  # each battle's keys, for ``drop``
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._runs)

    def answer(
        self,
        key: Key,
        dice: Sequence[int] | None,
        choices: Mapping[str, str],
        ask: bool,
        begin: Begin,
    ) -> tuple[object, DiceSource | None]:
        """The next word of the command ``key`` with these answers: its paused run taken on
        when it has one that these answers carry on from, a new run otherwise (``begin``).
        Returns the word (a ``Need``, the procedure's result, or the exception it raised) and
        the run's dice (None: the battle's own)."""
        with self._lock:
            run = self._runs.get(key)
            if run is not None and not run.takes(dice, choices, ask):
                run = None  # other answers: a fresh run, which takes its place once it speaks
            if run is not None:
                self._runs.move_to_end(key)
        if run is not None:
            with run.lock:
                if run.takes(dice, choices, ask):
                    word = run.answer(dice, choices)
                    self._after(key, run)
                    return word, run.dice
        fresh = _Run(dice, choices, ask, begin)
        with fresh.lock:
            word = fresh.answer(dice, choices)
            self._after(key, fresh)
        return word, fresh.dice

    def _after(self, key: Key, run: _Run) -> None:
        """Keep ``run`` while it waits at a question, or has finished and is not written yet
        (in place of any other of its key; ``commit`` puts it aside as it writes); forget it
        once the rules refused it. Runs idle too long, and the longest idle beyond
        ``RUNS_KEPT``, are put aside."""
        with self._lock:
            kept = self._runs.get(key)
            if not (run.paused or run.done) or run.aside:
                if kept is run:
                    self._forget(key)
                return
            if kept is not run and kept is not None and kept.used > run.used:
                return  # another phone's answers took its place since: theirs are newer
            if kept is not None and kept is not run:
                kept.aside = True
            self._runs[key] = run
            self._runs.move_to_end(key)
            self._battles.setdefault(key[0], set()).add(key)
            idle = time.monotonic() - WAIT_FOR_ANSWER
            while self._runs:
                oldest_key, oldest = next(iter(self._runs.items()))
                if len(self._runs) <= self._kept and oldest.used >= idle:
                    break
                self._forget(oldest_key)

    def _forget(self, key: Key) -> None:
        run = self._runs.pop(key, None)
        if run is not None:
            run.aside = True
        keys = self._battles.get(key[0])
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self._battles[key[0]]

    def drop(self, battle: UUID, below: int) -> None:
        """Put aside the battle's runs adjudicated from versions before ``below`` (written past)."""
        with self._lock:
            for key in [k for k in self._battles.get(battle, ()) if k[1] < below]:
                self._forget(key)


__all__ = ["Pending"]
