"""A11.8 Street Fighting and the building levels of ASL Locations.

A Location is one level of a hex: ground level (0) or an upper level (1, 2, ...) of a building;
Locations of one building hex share its ``hex``. A road Location names, in ``road_sides``, the
hexes ADJACENT to it on each of the two sides of its road. "Any vehicle in a road hex and
ADJACENT to a building hex on both sides of that road is especially vulnerable to CC in that
hex. All Infantry advancing into that road Location from ground level of one or more of those
adjacent building hexes qualify automatically for Ambush benefits ... any vehicle in such a road
hex may be attacked with Reaction Fire (D7.2) by Infantry on ground level of those buildings"
(A11.8). Chapter A11 names no cellars, so none are modelled."""

from __future__ import annotations

from typing import Protocol

from blowbyblow.domain.asl.rulings import STREET_FIGHTING_ROAD
from blowbyblow.domain.asl.setup import LocationSetup, hex_of
from blowbyblow.domain.asl.state import State, units_in
from blowbyblow.domain.core import Context, RuleViolation


def building_hexes(state: State) -> set[str]:
    """The hexes with a building Location (at any level)."""
    return {hex_of(loc) for loc in state.locations.values() if loc.terrain == "building"}


def both_sides(state: State, road: LocationSetup, from_hex: str) -> bool:
    """A11.8: the road is ADJACENT to a building hex on both sides, ``from_hex`` one of them."""
    if len(road.road_sides) != 2:
        return False
    buildings = building_hexes(state)
    sides = [set(side) & buildings for side in road.road_sides]
    return all(sides) and any(from_hex in side for side in sides)


def street_fighting_refusal(
    state: State, came_from: str, road_location: str, both: bool, what: str
) -> str | None:
    """Why Infantry in ``came_from`` may not Street Fight onto a vehicle in ``road_location``
    (A11.8), or None. ``both``: ruling street-fighting-road=both-sides."""
    src, road = state.locations[came_from], state.locations[road_location]
    if src.terrain != "building" or road.terrain != "road" or road_location not in src.adjacent:
        return (
            f"{what} from {came_from} needs a building Location ADJACENT to the road "
            f"Location {road_location}"
        )
    if src.level != 0:
        return (
            f"{what} from {came_from}, level {src.level} of its building: A11.8 allows it only "
            "from ground level"
        )
    if both and not both_sides(state, road, hex_of(src)):
        return (
            f"{what} onto {road_location}: its road is not ADJACENT to a building hex on both "
            f"sides ({hex_of(src)} among them; road_sides)"
        )
    return None


class CCBeingChecked(Protocol):
    """A ``closecombat`` command being checked (legal.py)."""

    state: State
    ctx: Context

    @property
    def loc(self) -> str: ...


def check_street_fighters(chk: CCBeingChecked) -> None:
    """A11.8 for the CC of a Location: each unit there that Street Fights from a building
    Location (``street_fighting_from``) onto a road does so from ground level, and (ruling
    street-fighting-road=both-sides) onto a road with a building hex on both sides."""
    state, location = chk.state, chk.loc
    both = chk.ctx.ruling(STREET_FIGHTING_ROAD) == "both-sides"
    if state.locations[location].terrain != "road":
        return  # a vehicle in Bypass (A11.8 last sentence but one) or a setup's own reading
    for u in units_in(state, location):
        if u.street_fighting_from is None:
            continue
        why = street_fighting_refusal(
            state, u.street_fighting_from, location, both, f"{u.id} Street Fighting"
        )
        if why is not None:
            raise RuleViolation("A11.8", why)
