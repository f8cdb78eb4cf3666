"""Commands answered over several requests, kept paused where the rules ask (issue 25).

The table page answers a command's dice one roll at a time, each roll a request carrying every
answer given so far. Running the rules procedure again from its start at every request made a
command cost one adjudication per roll. Instead the door keeps the run paused at the question,
in a thread of its own (``Pending``: short-lived, in this process's memory, keyed by battle,
version and command), and the next request's new answers resume it where it stopped. Nothing is
written until the command completes; the door then writes it as any other.

A request that finds no paused run here (another server process, a run that waited too long or
was put aside for newer ones, answers that are not those given before) starts the command afresh
from every answer it carries, which is what every request did before: a paused run only ever
saves work, it never changes what is adjudicated. The run reads its answers through the same
sources (``TypedDice``, ``GivenChoices``), so the dice, the choices and the events are the same
as when every answer is given at once."""

from __future__ import annotations

import contextvars
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from uuid import UUID

from blowbyblow.replay.battles.inputs import GivenChoices, Need, NeedAnswer, TypedDice
from blowbyblow.replay.engine.dice import ChoiceSource, DiceSource, ListedDice

WAIT_FOR_ANSWER = 600.0  # seconds a paused run waits for the table's next answer
WAIT_FOR_RULES = 60.0  # seconds a request waits for the rules to reach their next question
RUNS_KEPT = 1024  # paused runs kept at once in a process; the longest idle is put aside first

Key = tuple[UUID, int, bytes]  # battle, version adjudicated from, the command's canonical bytes


GONE = object()  # a run put aside while a request waited on it: the request starts afresh


class _PutAside(BaseException):
    """Raised inside a paused run to end it (BaseException: no rule procedure catches it)."""


class _Run:
    """One command's procedure, run in a thread that waits wherever the rules ask for an
    answer not given yet. The requests hand it answers and wait for its next word: a ``Need``,
    the finished result, or what the rules raised."""

    def __init__(self, dice: Sequence[int] | None, choices: Mapping[str, str]) -> None:
        self.given_dice = list(dice) if dice is not None else None
        self.given_choices = dict(choices)
        self.lock = threading.Lock()  # one request at a time talks to the run
        self._turn = threading.Condition()
        self._answers = 0  # how many times answers were added: what a waiting run waits on
        self._said = 0  # how many words the run has said: what a request waits on
        self._word: object = None
        self._aside = False
        self.finished = False
        self.dice: PausedDice | None = None  # the run's sources, where new answers are put
        self.choices: PausedChoices | None = None

    # --- the run's side (in its own thread) -------------------------------------------------

    def wait(self, need: Need) -> None:
        """Say ``need`` and wait until a request adds answers (or the run is put aside)."""
        with self._turn:
            answers = self._answers
            self._say(need)
            ok = self._turn.wait_for(
                lambda: self._answers > answers or self._aside, WAIT_FOR_ANSWER
            )
            if not ok or self._aside:
                self._aside = True
                raise _PutAside

    def end(self, word: object) -> None:
        with self._turn:
            self.finished = True
            self._say(word)

    def _say(self, word: object) -> None:
        self._word = word
        self._said += 1
        self._turn.notify_all()

    # --- the requests' side ------------------------------------------------------------------

    def takes(self, dice: Sequence[int] | None, choices: Mapping[str, str]) -> bool:
        """Whether these answers carry on from those given so far (the same, and maybe more)."""
        if self.finished or self._aside:
            return False
        if (dice is None) != (self.given_dice is None):
            return False
        if (
            dice is not None
            and self.given_dice is not None
            and list(dice[: len(self.given_dice)]) != self.given_dice
        ):
            return False
        return all(choices.get(k) == v for k, v in self.given_choices.items())

    def answer(self, dice: Sequence[int] | None, choices: Mapping[str, str]) -> object:
        """Give the run's sources the answers beyond those given so far and wait for the
        run's next word."""
        new_dice = (
            list(dice[len(self.given_dice) :]) if dice and self.given_dice is not None else []
        )
        new_choices = {k: v for k, v in choices.items() if k not in self.given_choices}
        with self._turn:
            if not new_dice and not new_choices:  # nothing new: the question stands
                return self._word
            said = self._said
            if self.given_dice is not None:
                self.given_dice += new_dice
            self.given_choices.update(new_choices)
            if self.dice is not None:
                self.dice.add(new_dice)
            if self.choices is not None:
                self.choices.add(new_choices)
            self._answers += 1
            self._turn.notify_all()
        return self.word_after(said)

    def word_after(self, said: int) -> object:
        """The run's word once it has said more than ``said`` words (what a request waits on);
        ``GONE`` if it was put aside first (between a request finding it and answering it,
        another phone's answers or a write took its place: it will not speak again)."""
        with self._turn:
            if not self._turn.wait_for(lambda: self._said > said or self._aside, WAIT_FOR_RULES):
                self._aside = True
                self._turn.notify_all()
                raise TimeoutError("the rules did not reach their next question in time")
            return self._word if self._said > said else GONE

    def put_aside(self) -> None:
        with self._turn:
            self._aside = True
            self._turn.notify_all()


class PausedDice(TypedDice):
    """Typed dice that wait for the next roll instead of giving up when they run out."""

    def __init__(self, run: _Run, values: Sequence[int]) -> None:
        super().__init__(values)
        self._run = run

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        while self.used + n > len(self._values):
            prompt = f"{purpose or key}: roll {n}D{sides}"
            self._run.wait(
                Need(kind="dice", key=key, n=n, sides=sides, prompt=prompt, dice_used=self.used)
            )
        values, source = ListedDice(self._values[self.used : self.used + n]).roll(
            key, n, sides, purpose
        )
        self.used += n
        return values, source

    def add(self, values: Sequence[int]) -> None:
        self._values.extend(values)


class PausedChoices(GivenChoices):
    """Given choices that wait for the answer to a question not answered yet."""

    def __init__(self, run: _Run, answers: Mapping[str, str], *, ask: bool) -> None:
        super().__init__(answers, ask=ask)
        self._run = run

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        while True:
            try:
                return super().choose(key, options, default, prompt)
            except NeedAnswer as e:
                self._run.wait(e.need)

    def add(self, answers: Mapping[str, str]) -> None:
        self._answers.update(answers)


class Pending:
    """The paused runs of this process, shared by every thread."""

    def __init__(self, kept: int = RUNS_KEPT) -> None:
        self._kept = kept
        self._runs: OrderedDict[Key, _Run] = OrderedDict()
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
        run_with: Callable[[DiceSource | None, ChoiceSource], Any],
    ) -> tuple[object, DiceSource | None]:
        """The next word of the command ``key`` with these answers: its paused run resumed when
        it has one that these answers carry on from, a new run otherwise. ``run_with(dice,
        choices)`` runs the procedure (``dice`` None: the battle's own). Returns the word (a
        ``Need``, the procedure's result, or the exception it raised) and the run's dice."""
        with self._lock:
            run = self._runs.get(key)
            if run is not None and not run.takes(dice, choices):
                self._runs.pop(key)
                run.put_aside()
                run = None
            if run is not None:
                self._runs.move_to_end(key)
        if run is not None:
            with run.lock:
                if run.takes(dice, choices):
                    word = self._after(key, run, run.answer(dice, choices))
                    if word is not GONE:
                        return word, run.dice
        for keep in (True, False):  # a run not kept is one no other request can put aside
            fresh = _Run(dice, choices)
            fresh.dice = PausedDice(fresh, dice) if dice is not None else None
            given = fresh.choices = PausedChoices(fresh, choices, ask=ask)
            word = self._start(key, fresh, given, run_with, keep=keep)
            if word is not GONE:
                break
        return word, fresh.dice

    def _start(
        self,
        key: Key,
        run: _Run,
        given: PausedChoices,
        run_with: Callable[[DiceSource | None, ChoiceSource], Any],
        *,
        keep: bool,
    ) -> object:
        typed = run.dice

        def go() -> None:
            try:
                word: object = run_with(typed, given)
            except _PutAside:
                return
            except BaseException as e:  # what the rules raise is the request's to word
                word = e
            run.end(word)

        with run.lock:
            context = contextvars.copy_context()  # the request's log context, in the run too
            threading.Thread(target=context.run, args=(go,), daemon=True, name="bxb-run").start()
            word = run.word_after(0)
            if keep:
                return self._after(key, run, word)
            run.put_aside()  # its question goes back; the next request starts afresh
            return word

    def _after(self, key: Key, run: _Run, word: object) -> object:
        """Keep the run while it waits for answers; forget it once it has finished (or once
        it was put aside: ``GONE``)."""
        with self._lock:
            if run.finished or word is GONE:
                if self._runs.get(key) is run:
                    self._runs.pop(key)
                return word
            kept = self._runs.get(key)
            if kept is not None and kept is not run:
                kept.put_aside()
            self._runs[key] = run
            self._runs.move_to_end(key)
            while len(self._runs) > self._kept:
                _, oldest = self._runs.popitem(last=False)
                oldest.put_aside()
        return word

    def drop(self, battle: UUID, below: int) -> None:
        """Put aside the battle's runs adjudicated from versions before ``below`` (written past)."""
        with self._lock:
            stale = [k for k in self._runs if k[0] == battle and k[1] < below]
            for k in stale:
                self._runs.pop(k).put_aside()


__all__ = ["PausedChoices", "PausedDice", "Pending"]
