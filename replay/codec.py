"""Encoding events with msgspec: binary (MessagePack) in the store, JSON for people and exports.

Each game system has its own tagged union of event types (``type`` is the class name), so two
systems may both have a ``HitRolled``. Encoding is deterministic (dict keys sorted), so the same
event always has the same bytes, in any process, on any machine: these bytes are what the hash
chain covers and what verification compares."""

from __future__ import annotations

from functools import cache
from typing import Any, Union

import msgspec

from blowbyblow.domain.core import (
    CORE_EVENT_TYPES,
    BattleStarted,
    CommandIssued,
    Event,
)
from blowbyblow.replay.judging import JUDGE_EVENT_TYPES
from blowbyblow.replay.ruleset import Ruleset
from blowbyblow.replay.rulesets import get_ruleset

# "sorted" orders struct fields and dict keys alike, so an event's canonical bytes are the same
# whether encoded from its struct or from its plain-data (JSON) form: an exported record can be
# re-hashed exactly from its JSON alone.
_encoder = msgspec.msgpack.Encoder(order="sorted")
_json_encoder = msgspec.json.Encoder(order="sorted")


def encode(obj: Any) -> bytes:
    """Canonical binary encoding of an event or a state (MessagePack, keys sorted)."""
    return _encoder.encode(obj)


def encode_json(obj: Any) -> bytes:
    return _json_encoder.encode(obj)


def command_union(ruleset: Ruleset) -> Any:
    if len(ruleset.command_types) == 1:
        return ruleset.command_types[0]
    return Union[tuple(ruleset.command_types)]  # noqa: UP007 - built at run time


class Codec:
    """Encoder and decoders for the events of one game system."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.command_type: Any = command_union(ruleset)
        types: tuple[Any, ...] = (
            BattleStarted[ruleset.setup_type],  # type: ignore[name-defined]
            CommandIssued[self.command_type],  # type: ignore[name-defined]
            *CORE_EVENT_TYPES,
            *JUDGE_EVENT_TYPES,
            *ruleset.event_types,
        )
        self.event_type: Any = Union[types]  # noqa: UP007
        self._decoder = msgspec.msgpack.Decoder(self.event_type)
        self._json_decoder = msgspec.json.Decoder(self.event_type)

    def decode(self, data: bytes) -> Event:
        event: Event = self._decoder.decode(data)
        return event

    def decode_json(self, data: bytes | str) -> Event:
        event: Event = self._json_decoder.decode(data)
        return event

    def from_builtins(self, obj: Any) -> Event:
        event: Event = msgspec.convert(obj, self.event_type)
        return event


@cache
def codec_for(ruleset_id: str) -> Codec:
    return Codec(get_ruleset(ruleset_id))


def to_builtins(obj: Any) -> Any:
    return msgspec.to_builtins(obj, order="sorted")
