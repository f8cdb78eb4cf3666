"""Format versions of the stored and exported records, and the upcasters that read old ones.

Format 2 (current):
- events are encoded as MessagePack with every map's keys sorted (``codec.encode``);
- ``DiceRolled.source`` is ``seeded``, ``physical`` or ``imported``.

Format 1 (the first layout; still read):
- ``DiceRolled.source`` said ``digital`` for seeded digital dice.

An upcaster turns an event's plain data from one format into the next; the hash chain always
covers the bytes as they were stored, so upcasting never breaks evidence."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CURRENT_FORMAT = 2

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


UPCASTERS: dict[int, Upcaster] = {1: _v1_to_v2}


def upcast(event: dict[str, Any], from_format: int) -> dict[str, Any]:
    if from_format > CURRENT_FORMAT:
        raise ValueError(f"format {from_format} is newer than this engine's ({CURRENT_FORMAT})")
    for version in range(from_format, CURRENT_FORMAT):
        event = UPCASTERS[version](event)
    return event
