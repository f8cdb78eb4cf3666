"""Format versions of the stored and exported records, and the upcasters that read old ones.

Format 3 (current):
- every game system names its rulings the same way, lower-case words joined by hyphens with no
  system prefix (format 2 had ``asl.ambush-threshold`` and ``gf-incapacitation``);
- every game system's version reads MAJOR.MINOR (format 2 had ``0.1.0`` for ``asl`` and ``1`` for
  ``wh40k-2e``; the rules did not change, both are ``1.0`` now).

Format 2:
- events are encoded as MessagePack with every map's keys sorted (``codec.encode``);
- ``DiceRolled.source`` is ``seeded``, ``physical`` or ``imported``.

Format 1 (the first layout; still read):
- ``DiceRolled.source`` said ``digital`` for seeded digital dice.

An upcaster turns an event's plain data from one format into the next; the hash chain always
covers the bytes as they were stored, so upcasting never breaks evidence."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CURRENT_FORMAT = 3

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def _v1_to_v2(event: dict[str, Any]) -> dict[str, Any]:
    if event.get("type") == "DiceRolled":
        if event.get("source") == "seeded":
            raise ValueError(
                "DiceRolled.source 'seeded' did not exist in format 1 (it was 'digital')"
            )
        if event.get("source") == "digital":
            return {**event, "source": "seeded"}
    return event


_V2_RULING_PREFIX = {"asl": "asl.", "gangfight": "gf-"}
_V2_VERSION = {("asl", "0.1.0"): "1.0", ("wh40k-2e", "1"): "1.0"}


def _v2_to_v3(event: dict[str, Any]) -> dict[str, Any]:
    if event.get("type") != "BattleStarted":
        return event
    ruleset = event.get("ruleset")
    prefix = _V2_RULING_PREFIX.get(str(ruleset))
    rulings = event.get("rulings")
    if prefix is not None and isinstance(rulings, dict):
        event = {
            **event,
            "rulings": {k.removeprefix(prefix): v for k, v in rulings.items()},
        }
    version = _V2_VERSION.get((str(ruleset), str(event.get("ruleset_version"))))
    if version is not None:
        event = {**event, "ruleset_version": version}
    return event


UPCASTERS: dict[int, Upcaster] = {1: _v1_to_v2, 2: _v2_to_v3}


def upcast(event: dict[str, Any], from_format: int) -> dict[str, Any]:
    if from_format > CURRENT_FORMAT:
        raise ValueError(f"format {from_format} is newer than this engine's ({CURRENT_FORMAT})")
    for version in range(from_format, CURRENT_FORMAT):
        event = UPCASTERS[version](event)
    return event
