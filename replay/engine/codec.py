"""Encoding events with msgspec: binary (MessagePack) in the store, JSON for people and exports.

Each game system has its own tagged union of event types (``type`` is the class name), so two
systems may both have a ``HitRolled``. Encoding is deterministic (dict keys sorted), so the same
event always has the same bytes, in any process, on any machine: these bytes are what the hash
chain covers and what verification compares."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, Union

import msgspec

from blowbyblow.domain.core import (
    CORE_EVENT_TYPES,
    BattleStarted,
    CommandIssued,
    Event,
)
from blowbyblow.domain.judging import JUDGE_EVENT_TYPES
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.registry import get_game_system

if TYPE_CHECKING:
    from blowbyblow.replay.engine.unbounded import Unbounded

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


class Codec:
    """Encoder and decoders for the events of one game system."""

    def __init__(self, ruleset: AnyGameSystem) -> None:
        self.ruleset = ruleset
        self.command_type: Any = ruleset.command_type
        types: tuple[Any, ...] = (
            BattleStarted[ruleset.setup_type],  # type: ignore[name-defined]
            CommandIssued[self.command_type],  # type: ignore[name-defined]
            *CORE_EVENT_TYPES,
            *JUDGE_EVENT_TYPES,
            *ruleset.event_types,
        )
        self.event_type: Any = Union[types]  # noqa: UP007
        self.type_names = frozenset(getattr(t, "__origin__", t).__name__ for t in types)
        self._decoder = msgspec.msgpack.Decoder(self.event_type)
        self._stored: dict[int, msgspec.msgpack.Decoder[Any]] = {}
        self._unbounded: Unbounded | None = None

    @property
    def unbounded(self) -> Unbounded:
        """The events as recorded, without the setup's bounds (made when first needed)."""
        if self._unbounded is None:
            from blowbyblow.replay.engine.unbounded import Unbounded  # old records only

            self._unbounded = Unbounded(self.event_type)
        return self._unbounded

    def decode(self, data: bytes) -> Event:
        """A recorded event: checked against the types' bounds first (the fast path); one
        outside them, recorded by a release with no such bound or a wider one, read as it was
        recorded (a log is evidence: bounds are checked where a scenario or a command enters)."""
        try:
            event: Event = self._decoder.decode(data)
        except msgspec.ValidationError:
            event = self.unbounded.decode(data)
        return event

    def decode_stored(self, records: Iterable[bytes], current: int) -> list[Event] | None:
        """The events of stored records (the store's envelopes), decoded straight to this
        system's events; None when one is not in format ``current`` or does not decode (the
        caller then reads them one by one, upcasting, and names the record at fault)."""
        decode = self._stored_decoder(current).decode
        try:
            return [decode(r).event for r in records]
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None

    def _stored_decoder(self, current: int) -> msgspec.msgpack.Decoder[Any]:
        """A stored record's event, decoded in one call straight from the record's bytes, the
        record's format checked to be ``current`` by msgspec as it decodes (the hash chain's
        fields are skipped): the store's reads."""
        decoder = self._stored.get(current)
        if decoder is None:
            fields = [("v", Literal[current]), ("event", self.event_type)]
            decoder = msgspec.msgpack.Decoder(msgspec.defstruct("StoredEvent", fields))
            self._stored[current] = decoder
        return decoder

    def from_builtins(self, obj: Any) -> Event:
        """A recorded event from its plain data (an upcast record, an export's line), read as
        recorded like ``decode``."""
        try:
            event: Event = msgspec.convert(obj, self.event_type)
        except msgspec.ValidationError:
            event = self.unbounded.convert(obj)
        return event


_CODECS: dict[str, Codec] = {}


def codec_of(ruleset: AnyGameSystem) -> Codec:
    """The codec of ``ruleset``'s events, made once per system id."""
    found = _CODECS.get(ruleset.id)
    if found is None:
        found = _CODECS[ruleset.id] = Codec(ruleset)
    return found


def codec_for(ruleset_id: str) -> Codec:
    found = _CODECS.get(ruleset_id)
    return found if found is not None else codec_of(get_game_system(ruleset_id))


def to_builtins(obj: Any) -> Any:
    return msgspec.to_builtins(obj, order="sorted")
