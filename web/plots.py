"""The odds' plots on the judge's viewer: matplotlib draws them on the server as SVG, the same
figures as ``bxb odds --plot`` (``replay/odds/plots.py``), shown by the page as an image.

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

from blowbyblow.replay.odds.plots import NEEDS, PlotError, available, image, odds_figure
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


PLOT_ROUTES = [odds_plot]

__all__ = ["PLOT_ROUTES"]
