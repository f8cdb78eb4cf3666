"""The odds desk: the odds a server is asked for (a recorded command's, or a scenario's
command: the quick odds), where anyone may ask (issue: odds for anyone, for ever).

Every request is bounded (``DeskLimits``: the runs of the rules and the Monte Carlo samples it
may ask for, and the seconds of processor time it may take, after which its worker stops it);
answers are kept by
what decides them (the battle's events up to the end of the command, the budget, the samples,
the seed: never by a position, so two positions of one command are one answer); a recorded
command whose graph went past its budget is remembered, and asked again with as small a budget
(fewer or more samples, another seed) it is sampled at once, without the runs the graph would
spend again before it gave up (the same answer: the graph is the rules' own, with no clock); a
first answer (``first``: a few samples drawn at once, the graph not tried) has a worker and slots
of its own, so it never waits behind a full answer's graph; the same question asked while it is
being computed waits for that computation; at most ``waiting`` requests of each kind (full
answers, first answers) are running or waiting at once, and any more are refused at once
(``OddsBusy``) rather than queued for ever; and the work runs in worker processes of their own
at a lower CPU priority (``os.nice``), so it can neither hold the server's interpreter nor starve
a table's writes of the processor.

    desk = OddsDesk(DeskLimits())          # once, at start-up; desk.close() at shutdown
    desk.warm()                            # optional: start the worker before the first asks
    odds = desk.recorded(events, position, budget=2000, samples=1000)  # blocking
    future = desk.submit(events, position, budget=2000, samples=1000)  # or a Future of it
    odds = desk.scenario(scenario, 1, budget=2000, samples=1000)       # a scenario's command
    first = desk.submit(events, position, budget=2000, samples=200, first=True)  # beside it

``close`` stops the workers at once, whatever they are doing (a server shutting down does not
wait for odds nobody will read).

Refusals are ``OddsRefused`` (``field``, ``expected``, ``reason``): ``TooMuchAsked`` (the request
is outside the limits: nothing is run), ``OddsBusy`` (try again shortly), ``OddsTimedOut`` (the
work took longer than allowed); an error of the rules (no such position, a command the rules
refuse) comes through as an ``OddsError`` with its words."""

from __future__ import annotations

import collections
import concurrent.futures as cf
import contextlib
import hashlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from blowbyblow.domain.core import BlowByBlowError, CommandIssued, Event
from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.odds.answers import Odds
from blowbyblow.replay.odds.explore import (
    DEFAULT_SEED,
    HowToExplore,
    OddsError,
    recorded_odds,
    scenario_odds,
)

NICE = 10  # how much lower the workers' CPU priority is than the server's


@dataclass(frozen=True, kw_only=True)
class DeskLimits:
    max_budget: int = 5000  # runs of the rules for the exact odds
    max_samples: int = 20_000  # Monte Carlo samples past the budget
    seconds: float = 10.0  # a request's worker stops it past this much processor time
    workers: int = 1  # processes computing odds (leave the server its processors)
    waiting: int = 4  # requests running or waiting at once; any more are refused
    kept: int = 256  # answers kept
    first_samples: int = 1000  # a first answer's samples at most (drawn at once, no graph)
    # a full answer known to be sampled starts its first answer of this many samples (the
    # viewer's, web/static/viewer.js) at once; 0: none
    ahead: int = 200


class OddsRefused(BlowByBlowError):
    """A request for odds the desk will not answer now: ``field`` and what it expected."""

    def __init__(self, field: str, expected: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.expected = expected
        self.reason = reason


class TooMuchAsked(OddsRefused):
    """The request asks for more work than the limits allow (or for none): nothing is run."""


class OddsBusy(OddsRefused):
    """As many requests as allowed are running or waiting: try again shortly."""


class OddsTimedOut(OddsRefused):
    """The work took longer than the limit and was stopped."""


class DeskClosed(OddsRefused):
    """The desk was closed (its server is stopping): nothing is run, and it starts no worker."""


def _closed() -> DeskClosed:
    return DeskClosed("odds", "a server that is running", "the odds desk is closed")


class DeskStats(msgspec.Struct, frozen=True, kw_only=True):
    computed: int  # answers worked out
    kept: int  # answers given from those kept
    joined: int  # requests that waited for the same question already being computed
    refused: int  # busy or too much asked
    timed_out: int
    sampled_at_once: int  # answers sampled without the graph, known past their budget
    first: int  # first answers worked out (samples drawn at once, beside the full answer)
    running: int  # now, running or waiting


class _OutOfTime(BaseException):
    """Raised in a worker by its alarm (a BaseException: no ``except Exception`` in the rules
    can swallow it)."""


def _lower_priority() -> None:
    """A worker's start: a lower priority; and Ctrl-C left to the server, which stops its
    workers as it stops (a terminal sends it to every process of the group: each worker printed
    a KeyboardInterrupt traceback when ``bxb serve`` was stopped)."""
    os.nice(NICE)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    server = multiprocessing.parent_process()  # the process that asked for this worker
    if server is not None:
        threading.Thread(target=_orphaned, args=(server,), name="server-gone", daemon=True).start()


def _orphaned(server: Any) -> None:
    """In a worker: end once the server is gone. A server killed outright (``kill -9``, out of
    memory) left its worker, the fork server and the resource tracker running for ever: the
    worker waits on its task queue, of which it holds both ends, and holds the pipe whose end
    tells the fork server that the server has gone."""
    server.join()  # its sentinel: a pipe the server alone writes to
    os._exit(0)


def _forkserver() -> multiprocessing.context.ForkServerContext:
    """The forkserver context, its server process (the one each worker is forked from) started
    with Ctrl-C blocked, as multiprocessing starts its resource tracker: a worker inherits that,
    so a Ctrl-C in a terminal (sent to every process of its group) cannot interrupt a worker
    before ``_lower_priority`` has run, nor the forkserver as it starts. Each printed a
    traceback when ``bxb serve`` was stopped in its first seconds."""
    from multiprocessing import forkserver, resource_tracker

    # first: it starts with SIGINT blocked too, and unblocks it here after (whatever it was)
    resource_tracker.ensure_running()
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # this thread's only
    try:
        forkserver.ensure_running()  # at once when it runs already
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return multiprocessing.get_context("forkserver")


def _alarm(signum: int, frame: Any) -> None:
    raise _OutOfTime


def _warm() -> int:
    """In a worker: load every game system now (the rules' modules), not at the first odds."""
    from blowbyblow.replay.engine.registry import game_systems

    game_systems()
    return os.getpid()


FIRST_NOTE = "a first answer: {samples} samples drawn at once, the exact odds not tried"


def first_odds(events: Sequence[Event], position: int, how: HowToExplore) -> Odds:
    """A recorded command's first answer: ``how.samples`` seeded samples drawn at once, the
    graph not tried (``how.graph`` False), said so in its note; the same answer every time."""
    odds = recorded_odds(events, position, how)
    return msgspec.structs.replace(odds, note=FIRST_NOTE.format(samples=how.samples))


def _compute(work: Callable[..., Odds], args: tuple[Any, ...], seconds: float) -> Any:
    """In a worker: ``work(*args)`` (``recorded_odds`` or ``scenario_odds``), or ``None`` when
    the alarm went off first."""
    # Processor time, not time on the clock: a worker at a lower priority on a busy machine
    # waits for the processor, and that is not work it did.
    previous = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        return work(*args)
    except _OutOfTime:
        return None
    except BlowByBlowError as e:  # as its words: not every error of the rules can be pickled
        raise OddsError(str(e)) from None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@dataclass
class _Counters:
    computed: int = 0
    kept: int = 0
    joined: int = 0
    refused: int = 0
    timed_out: int = 0
    sampled_at_once: int = 0
    first: int = 0


@dataclass
class OddsDesk:
    limits: DeskLimits = field(default_factory=DeskLimits)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.limits.waiting)
        # First answers have a worker and slots of their own: a first answer never waits
        # behind a full one (seconds of a charge's graph), and a tap's two asks take one slot
        # of each, as one ask did before.
        self._first_slots = threading.BoundedSemaphore(self.limits.waiting)
        self._answers: collections.OrderedDict[bytes, Odds] = collections.OrderedDict()
        self._computing: dict[bytes, cf.Future[Odds]] = {}
        # A recorded command (what decides it: ``_key``) and the largest budget its graph was
        # found past: the graph asked again within it would spend its runs and give up again.
        self._past: collections.OrderedDict[bytes, int] = collections.OrderedDict()
        self._counters = _Counters()
        self._running = 0
        self._closed = False
        self._retired: list[threading.Thread] = []  # broken pools' manager threads, ending
        self._pool = self._new_pool()
        self._first_pool: cf.ProcessPoolExecutor | None = None  # started with the first asked

    def _new_pool(self, workers: int | None = None) -> cf.ProcessPoolExecutor:
        # forkserver: workers start from a clean process, never a fork of the server's threads
        return cf.ProcessPoolExecutor(
            max_workers=workers or self.limits.workers,
            mp_context=_forkserver(),
            initializer=_lower_priority,
        )

    def _working(self, first: bool = False) -> cf.ProcessPoolExecutor:
        """The pool (``first``: the first answers' one, of one worker, started now if need
        be), or a new one in place of a pool a worker's death broke (killed by the kernel out
        of memory, or by a signal): a broken pool refuses all work, so every odds asked for
        after it was refused until the server restarted. A closed desk starts nothing
        (``DeskClosed``)."""
        with self._lock:
            if self._closed:
                raise _closed()
            pool = self._first_pool if first else self._pool
            broken = None
            if pool is None or getattr(pool, "_broken", False):
                broken, pool = pool, self._new_pool(1 if first else None)
                if first:
                    self._first_pool = pool
                else:
                    self._pool = pool
                # its manager thread may still be ending: close() waits for it (see there)
                ending = getattr(broken, "_executor_manager_thread", None)
                self._retired = [t for t in self._retired if t.is_alive()]
                if ending is not None:
                    self._retired.append(ending)
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)
        return pool

    def warm(self) -> None:
        """Start the workers now, the first answers' one too (a first request would otherwise
        wait for them)."""
        pools = [(self._working(), self.limits.workers), (self._working(first=True), 1)]
        for f in [pool.submit(_warm) for pool, n in pools for _ in range(n)]:
            f.result()

    def close(self) -> None:
        """Stop the workers now: what they were working out is abandoned (its requests fail),
        and no process is left behind."""
        with self._lock:
            self._closed = True
            pools = [p for p in (self._pool, self._first_pool) if p is not None]
            retired, self._retired = self._retired, []
        processes, managers = [], []
        for pool in pools:
            # Under the pool's own lock: a worker being started (the warm-up's first task, a
            # server stopped in its first seconds) has been started and is seen here; it was
            # left running and printed a traceback as its pool's semaphores went away under it.
            # A private name, as those below (CPython 3.11-3.13 have it): without it, unlocked.
            with getattr(pool, "_shutdown_lock", None) or contextlib.nullcontext():
                processes += list((getattr(pool, "_processes", None) or {}).values())
                manager = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
            pool.shutdown(wait=False, cancel_futures=True)
            managers += [manager] if manager is not None else []
        for process in processes:  # Python 3.14's ``terminate_workers``, by hand
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=10)
        # The pool's manager thread closes its wake-up pipe as it ends, and CPython 3.11's exit
        # hook writes to that pipe without a lock: a server exiting while the thread ended
        # printed an EBADF traceback. Closed means that thread has ended too, and so have those
        # of the pools a killed worker broke (replaced by ``_working``: shut down, not waited
        # for).
        for thread in [*retired, *managers]:
            thread.join(timeout=10)

    def workers(self, first: bool = False) -> list[int]:
        """The process ids of the workers now running (``first``: the first answers' one)."""
        pool = self._first_pool if first else self._pool
        processes = getattr(pool, "_processes", {}) or {}
        return [p.pid for p in processes.values() if p.pid is not None and p.is_alive()]

    def stats(self) -> DeskStats:
        c = self._counters
        return DeskStats(
            computed=c.computed,
            kept=c.kept,
            joined=c.joined,
            refused=c.refused,
            timed_out=c.timed_out,
            sampled_at_once=c.sampled_at_once,
            first=c.first,
            running=self._running,
        )

    def recorded(  # noqa: PLR0913 - keyword-only, each a part of what is asked
        self,
        events: Sequence[Event],
        position: int,
        *,
        budget: int,
        samples: int,
        seed: str = DEFAULT_SEED,
        first: bool = False,
    ) -> Odds:
        """The odds of the recorded command holding ``position`` of a battle's ``events``
        (``bxb odds --battle ID --position N``), within the limits; blocks until answered.
        ``first``: its first answer (``first_odds``), worked out by a worker of its own."""
        return self.submit(
            events, position, budget=budget, samples=samples, seed=seed, first=first
        ).result()

    def submit(  # noqa: PLR0913 - keyword-only, each a part of what is asked
        self,
        events: Sequence[Event],
        position: int,
        *,
        budget: int,
        samples: int,
        seed: str = DEFAULT_SEED,
        first: bool = False,
    ) -> cf.Future[Odds]:
        """The same as ``recorded``, as a Future (``asyncio.wrap_future`` awaits it). A full
        answer the desk knows will be sampled (its command's graph went past this budget
        before) and does not keep starts its first answer (``limits.ahead`` samples) now too,
        as the viewer's button will ask it if the full one is not back within 50 ms: that ask
        then finds it under way or kept."""
        self._check(budget, samples, seed, first)
        how = HowToExplore(budget=budget, samples=samples, seed=seed, graph=not first)
        command, end = self._key(events, position)
        key = self._asked(command, how)
        # Only what decides the answer goes to the worker: the events up to the command's end.
        upto = list(events[:end])
        if first:
            # never remembered as past its budget: the graph was not tried
            return self._ask(key, first_odds, (upto, position, how), first=True)
        with self._lock:
            sampled = self._past.get(command, 0) >= budget
            if sampled:
                self._past.move_to_end(command)
                how = HowToExplore(budget=budget, samples=samples, seed=seed, graph=False)
            kept = key in self._answers
        answer = self._ask(key, recorded_odds, (upto, position, how), past=(command, how))
        ahead = min(self.limits.ahead, self.limits.first_samples)
        if sampled and ahead and not kept:
            # Keyed as the page's own first ask is (``first=True`` above), so that ask joins it,
            # and sound to share: the key is the command (``_key``: every event up to its end,
            # so any position of one command, which gives one answer, and no other command), the
            # budget, the samples, the seed, and graph False, which no full answer's key has
            # (``key`` was made before ``sampled`` turned its graph off), so a first answer never
            # stands for a full one. The desk explores with the default policy only (the choices
            # as recorded, in the events hashed), so no two policies meet under one key: a
            # policy the desk came to take would have to join ``_asked``.
            soon = HowToExplore(budget=budget, samples=ahead, seed=seed, graph=False)
            with contextlib.suppress(OddsBusy):  # the first answers' slots full: not needed
                self._ask(
                    self._asked(command, soon), first_odds, (upto, position, soon), first=True
                )
        return answer

    def scenario(
        self,
        scenario: AnyScenario,
        number: int,
        *,
        budget: int,
        samples: int,
        seed: str = DEFAULT_SEED,
    ) -> Odds:
        """The odds of the scenario's ``number``-th action (``scenario_odds``: its choices are
        the scenario's), within the limits; blocks until answered."""
        self._check(budget, samples, seed)
        how = HowToExplore(budget=budget, samples=samples, seed=seed)
        digest = hashlib.sha256(b"scenario\x00")
        digest.update(msgspec.msgpack.encode([number, budget, samples, seed, scenario]))
        return self._ask(digest.digest(), scenario_odds, (scenario, number, how)).result()

    def _ask(
        self,
        key: bytes,
        work: Callable[..., Odds],
        args: tuple[Any, ...],
        past: tuple[bytes, HowToExplore] | None = None,
        first: bool = False,
    ) -> cf.Future[Odds]:
        """The answer kept under ``key``, the work under way for it, or ``work(*args)`` sent
        to a worker: in a slot, or refused at once when none is free. ``past``: the recorded
        command and how it is explored, remembered when its graph goes past the budget.
        ``first``: a first answer, in the first answers' slots and worker."""
        slots = self._first_slots if first else self._slots
        with self._lock:
            kept = self._answers.get(key)
            if kept is not None:
                self._answers.move_to_end(key)
                self._counters.kept += 1
                done: cf.Future[Odds] = cf.Future()
                done.set_result(kept)
                return done
            running = self._computing.get(key)
            if running is not None:
                self._counters.joined += 1
                return running
            if not slots.acquire(blocking=False):
                self._counters.refused += 1
                raise OddsBusy(
                    "odds",
                    "fewer requests at once",
                    f"{self.limits.waiting} requests for odds are being worked out; "
                    "try again in a few seconds",
                )
            self._running += 1
            answer: cf.Future[Odds] = cf.Future()
            self._computing[key] = answer
        try:
            task = self._working(first).submit(_compute, work, args, self.limits.seconds)
        except DeskClosed as e:
            task = cf.Future()
            task.set_exception(e)
        task.add_done_callback(lambda w: self._done(key, w, answer, past, first))
        return answer

    def _done(
        self,
        key: bytes,
        work: cf.Future[Any],
        answer: cf.Future[Odds],
        past: tuple[bytes, HowToExplore] | None,
        first: bool,
    ) -> None:
        try:
            result = work.result()
        except BaseException as e:
            error: BaseException | None = e
            result = None
        else:
            error = None
            if result is None:
                self._counters.timed_out += 1
                error = OddsTimedOut(
                    "odds",
                    f"at most {self.limits.seconds:g} s of work",
                    f"took more than {self.limits.seconds:g} s of work and was stopped; ask for a "
                    "smaller budget or fewer samples",
                )
        with self._lock:
            self._computing.pop(key, None)
            self._running -= 1
            (self._first_slots if first else self._slots).release()
            if error is None:
                self._counters.computed += 1
                self._counters.first += first
                self._answers[key] = result
                while len(self._answers) > self.limits.kept:
                    self._answers.popitem(last=False)
                if past is not None and result.method == "monte-carlo":
                    command, how = past
                    if not how.graph:
                        self._counters.sampled_at_once += 1
                    self._past[command] = max(self._past.get(command, 0), how.budget)
                    self._past.move_to_end(command)
                    while len(self._past) > self.limits.kept:
                        self._past.popitem(last=False)
        if error is None:
            answer.set_result(result)
        else:
            answer.set_exception(error)

    def _check(self, budget: int, samples: int, seed: str, first: bool = False) -> None:
        limits = self.limits
        for name, value, low, high in (
            ("budget", budget, 1, limits.max_budget),
            # a first answer is samples alone, and few: its worker is soon free again
            (
                "samples",
                samples,
                *((1, limits.first_samples) if first else (0, limits.max_samples)),
            ),
        ):
            if not low <= value <= high:
                self._counters.refused += 1
                within = " for a first answer" if first and name == "samples" else ""
                raise TooMuchAsked(
                    name,
                    f"{low} to {high:,}{within}",
                    f"must be {low} to {high:,}{within}, not {value}",
                )
        if not 1 <= len(seed) <= 200:
            self._counters.refused += 1
            raise TooMuchAsked("seed", "1 to 200 characters", "must be 1 to 200 characters")

    @staticmethod
    def _key(events: Sequence[Event], position: int) -> tuple[bytes, int]:
        """What decides the answer but how it is explored (``_asked``): the events up to the
        end of the command holding ``position`` (the state before it, the command, what its
        dice did), hashed; and that end. A position outside the battle keys as itself (the
        error is the answer)."""
        end = len(events)
        command: int | str
        if 1 <= position <= len(events):
            later = (
                i for i in range(position, len(events)) if isinstance(events[i], CommandIssued)
            )
            end = next(later, len(events))
            first = next(
                (i for i in range(position - 1, -1, -1) if isinstance(events[i], CommandIssued)),
                None,
            )
            command = first + 1 if first is not None else str(position)
            if first is None:  # before the first command: refused, naming where it is (the
                end = min(end + 1, len(events))  # events up to it), and the position asked
        else:  # as text: msgpack writes no int past 64 bits (`?position=10**23`)
            command = str(position)
        digest = hashlib.sha256(msgspec.msgpack.encode(command))
        digest.update(msgspec.msgpack.encode(list(events[:end])))
        return digest.digest(), end

    @staticmethod
    def _asked(which: bytes, how: HowToExplore) -> bytes:
        """The key of an answer: the command (``_key``) and how it is explored."""
        asked = msgspec.msgpack.encode([how.budget, how.samples, how.seed, how.graph])
        return hashlib.sha256(which + asked).digest()


__all__ = [
    "DeskClosed",
    "DeskLimits",
    "DeskStats",
    "OddsBusy",
    "OddsDesk",
    "OddsRefused",
    "OddsTimedOut",
    "TooMuchAsked",
]
