"""The server's odds (issue 26, hole 4: odds for anyone, for ever): every odds the server is
asked for (the viewer's, their plot, the quick odds) is worked out by the engine's odds desk
(``replay/odds/desk.py``): in worker processes at a lower priority, never in the server's own,
a time limit each, kept by what decides them, a few at once and any more refused at once, so a
table's writes never wait for them. Here the desk is started and stopped with the server, and
its refusals are said as the API says every refusal (``ApiError``: status, field, expected)."""

from __future__ import annotations

import concurrent.futures as cf
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from blowbyblow.domain.core import BlowByBlowError, Event
from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.odds.desk import (
    DeskClosed,
    DeskLimits,
    OddsBusy,
    OddsDesk,
    OddsTimedOut,
    TooMuchAsked,
)
from blowbyblow.replay.odds.explore import Odds
from blowbyblow.web.errors import ApiError


@dataclass
class ServerOdds:
    """The server's odds desk: started with the first odds asked for (a server asked for none,
    a test's, starts no worker process) or by ``warm`` (``bxb serve``); ``close`` stops it for
    good: no desk is started after it (``DeskClosed``; odds asked then are answered 503)."""

    limits: DeskLimits = field(default_factory=DeskLimits)
    _desk: OddsDesk | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closed: bool = False

    def desk(self) -> OddsDesk:
        """The desk, started now if need be; ``DeskClosed`` once closed. A request's thread still
        running as the server stops (or a warm-up's) made a new desk after ``close``: workers
        nobody closed, which held the server's exit about 10 s."""
        with self._lock:
            if self._closed:
                raise DeskClosed("odds", "a server that is running", "the server is stopping")
            if self._desk is None:
                self._desk = OddsDesk(self.limits)
            return self._desk

    def warm(self) -> None:
        """Start the desk's workers now, in the background (``bxb serve`` at start-up): the
        first odds asked for then wait for no process to start and load the rules. A server
        stopped before or while it warms up (Ctrl-C at once) starts no desk after its close and
        says nothing of the warm-up it cut short (it printed a thread's traceback)."""

        def start() -> None:
            try:
                self.desk().warm()
            except (Exception, KeyboardInterrupt):  # a warm-up is for speed only
                # cut short: closed under it, or a worker stopped as it started (Ctrl-C at
                # once); the first odds asked for start what is missing, or say what is wrong
                return

        threading.Thread(target=start, name="odds-warm", daemon=True).start()

    def close(self) -> None:
        """Stop the desk's workers (at shutdown): odds being worked out are abandoned."""
        with self._lock:
            desk, self._desk = self._desk, None
            self._closed = True
        if desk is not None:
            desk.close()

    def recorded(
        self, events: Sequence[Event], position: int, budget: int, samples: int, first: bool = False
    ) -> Odds:
        """The odds of the recorded command holding ``position`` of the battle's ``events``
        (``first``: its first answer, samples drawn at once by a worker of its own)."""
        return self._asked(
            "position",
            "a position of one of the battle's recorded commands",
            lambda desk: desk.recorded(
                events, position, budget=budget, samples=samples, first=first
            ),
        )

    def scenario(self, scenario: AnyScenario, budget: int, samples: int, field_name: str) -> Odds:
        """The odds of ``scenario``'s first action (the quick odds); a refusal of the rules
        names ``field_name``."""
        return self._asked(
            field_name,
            "a command the rules can weigh",
            lambda desk: desk.scenario(scenario, 1, budget=budget, samples=samples),
        )

    def _asked(self, field_name: str, expected: str, ask: Callable[[OddsDesk], Odds]) -> Odds:
        """Odds from the desk, its refusals as the server says them."""
        try:
            return ask(self.desk())
        except DeskClosed:
            raise ApiError(
                503, field_name, "a server that is running", "the server is stopping; try again"
            ) from None
        except TooMuchAsked as e:
            raise ApiError(422, e.field, e.expected, e.reason) from None
        except OddsBusy as e:
            raise ApiError(
                503, field_name, e.expected, f"{e.reason}; nothing was computed"
            ) from None
        except OddsTimedOut as e:
            raise ApiError(422, "budget", e.expected, e.reason) from None
        except BlowByBlowError as e:
            raise ApiError(422, field_name, expected, str(e)) from None
        except (cf.BrokenExecutor, cf.CancelledError) as e:
            with self._lock:
                stopping = self._desk is None
            if isinstance(e, cf.BrokenExecutor) and not stopping:  # its worker killed
                raise ApiError(
                    503,
                    field_name,
                    "a worker that finishes its work",
                    "the process working out these odds stopped before its answer (out of "
                    "memory, or stopped by a signal); nothing was computed; ask again",
                ) from None
            # the desk closed under it
            raise ApiError(
                503, field_name, "a server that is running", "the server is stopping; try again"
            ) from None


__all__ = ["ServerOdds"]
