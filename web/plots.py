"""The plots on the judge's viewer: a command's odds and the battle's luck over time, drawn by
matplotlib on the server as SVG, the same figures as ``bxb odds --plot`` and ``bxb luck --plot``
(``replay/odds/plots.py``), shown by the page as images.

Why on the server: one drawing for the terminal, the files and the pages (the same figure, tested
once), no chart library to vendor and keep up in the wheel, and nothing but a same-origin image
for the page's policy; the cost is a server that has matplotlib (the ``plot`` extra: without it,
the route answers 501 with what to install, and the page says it beside the figures it still
shows as text). A plot costs the server its odds (asked as the odds route asks them, so bounded
and cached alike) and ~0.1-0.3 s of drawing, one plot at a time, each kept once drawn: the odds
of a recorded command never change."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any
from uuid import UUID

from litestar import Request, Response, get
from litestar.params import FromPath, Parameter

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, CommandIssued
from blowbyblow.replay.odds.luck import HowToJudge, battle_luck
from blowbyblow.replay.odds.plots import (
    NEEDS,
    PlotError,
    available,
    image,
    luck_figure,
    odds_figure,
)
from blowbyblow.web import window
from blowbyblow.web.api import ODDS_BUDGET, ODDS_SAMPLES, REFUSALS, server, work
from blowbyblow.web.errors import ApiError

AnyRequest = Request[Any, Any, Any]
KEPT = 64  # plots kept, drawn
SVG = "image/svg+xml"

_drawn: OrderedDict[tuple[UUID, int, int, int], bytes] = OrderedDict()
_drawing = threading.Lock()  # one plot at a time: matplotlib's caches are shared


def _kept(key: tuple[UUID, int, int, int], draw: Any) -> bytes:
    with _drawing:
        found = _drawn.get(key)
        if found is None:
            found = draw()
            _drawn[key] = found
            while len(_drawn) > KEPT:
                _drawn.popitem(last=False)
        _drawn.move_to_end(key)
        return found


def _needs_matplotlib() -> None:
    if not available():
        raise ApiError(501, "plot", "matplotlib on the server (the plot extra)", NEEDS)


@get("/api/battles/{battle:str}/odds/plot", tags=["read"], responses=REFUSALS)
async def odds_plot(
    request: AnyRequest,
    battle: FromPath[str],
    position: int = Parameter(ge=1, description="Any position of the recorded command."),
    budget: int = Parameter(
        default=ODDS_BUDGET, ge=1, le=5000, description="Runs before Monte Carlo takes over."
    ),
    samples: int = Parameter(
        default=ODDS_SAMPLES, ge=0, le=20000, description="Monte Carlo samples past the budget."
    ),
) -> Response[bytes]:
    """The odds of a recorded command (``/odds``) as an SVG image, drawn by matplotlib as
    ``bxb odds --plot`` draws them: each outcome's probability as bars, what the dice gave in
    orange. 501 when the server has no matplotlib."""
    srv = server(request)
    srv.access(request).read()
    _needs_matplotlib()
    bid = await work(srv.service.battle_id, battle)
    odds = await work(srv.service.odds, bid, position, budget, samples)
    label = await work(lambda: srv.service.read(bid).started.label)

    def draw() -> bytes:
        try:
            return image(odds_figure(odds, label, columns=1), "svg")  # a phone's width
        except PlotError as e:
            raise ApiError(501, "plot", "matplotlib on the server", str(e)) from None

    svg = await work(_kept, (bid, odds.command, budget, samples), draw)
    # A recorded command's odds never change: the browser may keep the image.
    return Response(svg, media_type=SVG, headers={"Cache-Control": "private, max-age=86400"})


# Luck is worked out command by command from the exact tree of each: heavier than one command's
# odds, so the viewer's is bounded (commands, budget) and one is worked out at a time; longer
# battles and finer figures: `bxb luck BATTLE --plot FILE`.
LUCK_COMMANDS = 40
LUCK_BUDGET = 200
LUCK_SAMPLES = 10
_luck_running = threading.BoundedSemaphore(1)


def _luck_svg(srv: Any, battle: UUID, upto: int | None, budget: int, samples: int) -> bytes:
    store = srv.store
    version = store.version(battle)
    end = version if upto is None else upto
    if not 1 <= end <= version:
        raise ApiError(
            422,
            "upto",
            "a position of the battle",
            f"the battle has events 1 to {version}, not {end}",
        )
    key = (battle, -end, budget, samples)  # beside the odds' keys: a negative position
    with _drawing:
        kept = _drawn.get(key)
    if kept is not None:
        return kept
    # the command at ``end`` first (its number: a few records read), the log only then
    if window.command_at(srv.service, battle, end) > LUCK_COMMANDS:
        commands = window.command_at(srv.service, battle, end)
    else:
        events = [e.event for e in store.read(battle, lte=end)]
        commands = sum(1 for e in events if isinstance(e, CommandIssued))
    if commands > LUCK_COMMANDS:
        raise ApiError(
            422,
            "upto",
            f"the viewer's luck covers at most {LUCK_COMMANDS} commands",
            f"the battle has {commands} commands up to position {end}: step back, or run "
            f"`bxb luck {battle} --plot luck.svg`",
        )
    if not _luck_running.acquire(blocking=False):
        raise ApiError(
            503,
            "luck",
            "one luck worked out at a time",
            "the server is working out another "
            "battle's luck; nothing was computed, try again shortly",
        )
    try:
        luck = battle_luck(events, HowToJudge(budget=budget, samples=samples))
    except BlowByBlowError as e:
        raise ApiError(422, "upto", "a battle whose luck can be worked out", str(e)) from None
    finally:
        _luck_running.release()
    label = events[0].label if isinstance(events[0], BattleStarted) else str(battle)
    title = f"luck of {label} up to position {end} ({commands} commands)"
    return _kept(key, lambda: image(luck_figure(luck, title), "svg"))


@get("/api/battles/{battle:str}/luck/plot", tags=["read"], responses=REFUSALS)
async def luck_plot(
    request: AnyRequest,
    battle: FromPath[str],
    upto: int | None = Parameter(
        default=None, ge=1, description="The luck of the commands up to this position."
    ),
    budget: int = Parameter(
        default=LUCK_BUDGET, ge=1, le=2000, description="Exact runs a command, then samples."
    ),
    samples: int = Parameter(
        default=LUCK_SAMPLES, ge=1, le=100, description="Samples a face past the budget."
    ),
) -> Response[bytes]:
    """Each side's running luck percentile over the battle's rolls up to ``upto`` (``bxb luck
    --plot``) as an SVG image drawn by matplotlib; at most 40 commands (longer: ``bxb luck``).
    501 when the server has no matplotlib; 503 while another luck is worked out."""
    srv = server(request)
    srv.access(request).read()
    _needs_matplotlib()
    bid = await work(srv.service.battle_id, battle)
    svg = await work(_luck_svg, srv, bid, upto, budget, samples)
    return Response(svg, media_type=SVG, headers={"Cache-Control": "private, max-age=86400"})


PLOT_ROUTES = [odds_plot, luck_plot]

__all__ = ["PLOT_ROUTES"]
