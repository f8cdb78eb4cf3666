"""Quick odds on the server: "this profile against that one" without a scenario file. The page
(``/odds``) draws a game system's setup with the setup forms' engine (``static/forms.js``, from
the system's setup JSON Schema, its demo's fighters to start from), offers the commands the rules
allow at its start, and shows the odds of the one picked: each side's loss and share of every
tally, at least k, mean and spread, from the same procedures as every other odds
(``replay/odds/quick.py``, ``bxb odds --ruleset ID --set PATH=VALUE``).

Bounded as the viewer's odds are, by the same odds desk (``web/odds_desk.py``): budget and
samples within the API's limits, worked out in the desk's worker processes, at most as many at
once as it allows (any more: 503 at once)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get, post
from litestar.params import FromPath, JSONBody
from litestar.response import Template

from blowbyblow.domain.system import CommandOption
from blowbyblow.replay.engine.registry import UnknownGameSystem, game_systems, get_game_system
from blowbyblow.replay.odds.explore import Odds
from blowbyblow.replay.odds.quick import (
    QuickError,
    demo_setup,
    option_command,
    options,
    quick_scenario,
)
from blowbyblow.web.api import ODDS_BUDGET, ODDS_SAMPLES, REFUSALS, AnyRequest, server, work
from blowbyblow.web.errors import ApiError, bounded
from blowbyblow.web.forms import SetupForm, setup_form
from blowbyblow.web.pages import REFUSALS as PAGE_REFUSALS
from blowbyblow.web.pages import _page, _refused

MAX_BUDGET = 5000  # as the viewer's odds (GET /api/battles/ID/odds)
MAX_SAMPLES = 20_000


class QuickStart(msgspec.Struct, frozen=True, kw_only=True):
    """What the quick odds page starts from for a game system."""

    form: SetupForm
    setup: dict[str, Any]  # the demo's setup: its fighters are the profiles to change
    rulings: dict[str, str]
    options: list[CommandOption]


class QuickSetup(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    setup: dict[str, Any]
    rulings: dict[str, str] = {}


class QuickOdds(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One command from ``setup``: a legal option (``option``, with ``picks``) or its JSON."""

    setup: dict[str, Any]
    rulings: dict[str, str] = {}
    option: int | None = None
    picks: dict[str, str] = {}
    command: dict[str, Any] | None = None
    budget: int = ODDS_BUDGET
    samples: int = ODDS_SAMPLES


def _system(ruleset: str) -> Any:
    try:
        return get_game_system(ruleset)
    except UnknownGameSystem as e:
        raise ApiError(404, "ruleset", "a game system of this server", str(e)) from None


def _problem(e: QuickError) -> ApiError:
    message = str(e)
    field = message.split(":", 1)[0] if ":" in message else "setup"
    return ApiError(422, field, "a setup and a command bxb play would take", message)


def quick_start(ruleset: str) -> QuickStart:
    system = _system(ruleset)
    setup = demo_setup(system)
    rulings = dict(system.demo().rulings)
    return QuickStart(
        form=setup_form(system),
        setup=setup,
        rulings=rulings,
        options=options(system, setup, rulings),
    )


def quick_options(ruleset: str, req: QuickSetup) -> list[CommandOption]:
    system = _system(ruleset)
    try:
        return options(system, bounded("setup", req.setup), req.rulings)
    except QuickError as e:
        raise _problem(e) from None


def quick_odds(srv: Any, ruleset: str, req: QuickOdds) -> Odds:
    system = _system(ruleset)
    if not 1 <= req.budget <= MAX_BUDGET or not 0 <= req.samples <= MAX_SAMPLES:
        raise ApiError(
            422,
            "budget",
            f"budget 1 to {MAX_BUDGET:,}, samples 0 to {MAX_SAMPLES:,}",
            f"budget {req.budget}, samples {req.samples}",
        )
    if (req.command is None) == (req.option is None):
        raise ApiError(
            422, "command", "one command: its JSON, or a legal option", "give command or option"
        )
    try:
        setup = bounded("setup", req.setup)
        command = req.command
        if command is None:
            assert req.option is not None
            command = option_command(
                system, options(system, setup, req.rulings), req.option, req.picks
            )
        scenario = quick_scenario(system, setup, req.rulings, bounded("command", command))
    except QuickError as e:
        raise _problem(e) from None
    found: Odds = srv.service.odds_desk.scenario(scenario, req.budget, req.samples, "command")
    return found


@get("/odds", include_in_schema=False)
async def quick_odds_page(request: AnyRequest) -> Template:
    """The quick odds page: a game system, two profiles, a command, its odds."""
    try:
        server(request).access(request).read()
    except PAGE_REFUSALS as e:
        return _refused(request, e)
    systems = [(s.id, s.title) for s in game_systems().values()]
    return _page(request, "quick_odds.html", systems=systems)


@get("/api/rulesets/{ruleset:str}/quick", tags=["read"], responses=REFUSALS)
async def quick_start_route(request: AnyRequest, ruleset: FromPath[str]) -> QuickStart:
    """The setup form of the game system, its demo's setup (the profiles to change), its
    rulings and the commands the rules allow at its start."""
    server(request).access(request).read()
    return await work(quick_start, ruleset)


@post(
    "/api/rulesets/{ruleset:str}/quick/options", tags=["read"], status_code=200, responses=REFUSALS
)
async def quick_options_route(
    request: AnyRequest, ruleset: FromPath[str], data: JSONBody[QuickSetup]
) -> list[CommandOption]:
    """The commands the rules allow at the start of this setup (422 naming a field it gets
    wrong, in ``bxb play``'s words)."""
    server(request).access(request).read()
    return await work(quick_options, ruleset, data)


@post("/api/rulesets/{ruleset:str}/quick/odds", tags=["read"], status_code=200, responses=REFUSALS)
async def quick_odds_route(
    request: AnyRequest, ruleset: FromPath[str], data: JSONBody[QuickOdds]
) -> Odds:
    """The odds of one command from this setup (``bxb odds --ruleset ID --set PATH=VALUE
    --next JSON --json``): each unit's status after it, each side's loss and share of every
    tally, at least k, mean and spread; exact, or Monte Carlo with 95% intervals. Writes
    nothing; at most as many worked out at once as the viewer's odds."""
    srv = server(request)
    srv.access(request).read()
    return await work(quick_odds, srv, ruleset, data)


QUICK_ROUTES = [quick_odds_page, quick_start_route, quick_options_route, quick_odds_route]

__all__ = ["QUICK_ROUTES", "QuickOdds", "QuickSetup", "QuickStart"]
