"""Snapshots: a battle's state kept every ``EVERY`` events, so the state at any position costs
reading one snapshot and folding fewer than ``EVERY`` events, whatever the battle's length.

A snapshot is a cache of ``fold_battle(system, log, position)``, never evidence; it is trusted
only while everything it was made from still holds:
- the code that folded it: ``fingerprint`` is a hash of the game system's id and of the source
  of its fold's package (where its version is set too) and of the generic fold, so a snapshot
  made by other code (an upgrade, a fixed ``evolve``) is not used;
- the log up to its position: it keeps the hash of the event at its position, which the hash
  chain makes stand for every event before it, and a reader checks it against the record;
- the voids: a ``CommandVoided`` recorded later cancels a command played before it, so a snapshot
  keeps how many voids the battle had when it was made, and is not used once a later void
  cancels a command at or before its position (``usable``).

States are encoded as MessagePack in their own order (dict entries as inserted), not the
canonical sorted order of events: a state read back must be the very state the fold gives,
down to the order of its fighters, which the views and the legal commands follow."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.projections.battle import VoidedCommand

EVERY = 1000  # events between snapshots: bounds the fold behind any state read
FORMAT = "bxb-snapshot-v1"


class Snapshot(msgspec.Struct, frozen=True, kw_only=True):
    """A battle's state right after the event at ``position``."""

    position: int
    hash: bytes  # the chain hash of the event at ``position``
    voids: int  # how many voids the battle had when this was made
    fingerprint: str  # the code that folded it (``fingerprint``)
    state: bytes  # ``encode_state`` of the state


def due(after: int, upto: int) -> list[int]:
    """The snapshot positions in (after, upto]."""
    first = (after // EVERY + 1) * EVERY
    return list(range(first, upto + 1, EVERY))


def usable(snapshot: Snapshot, voided: Sequence[VoidedCommand]) -> bool:
    """Does ``snapshot`` still stand, given the battle's voids in the order they were recorded?"""
    return all(v.first > snapshot.position for v in voided[snapshot.voids :])


_FINGERPRINTS: dict[str, str] = {}


def fingerprint(system: AnyGameSystem) -> str:
    """A hash of what the state of ``system`` is folded with: its id, and the source of the
    modules of its fold's package and of the generic fold. "" when a source cannot be read (no
    snapshot is then made or trusted for it). Not its version, which a fold that changes
    changes with it: ``bxb at`` reads a battle with its system's fold alone, and makes and uses
    the same snapshots as every other read (``replay/engine/readers.py``)."""
    key = system.id
    if key in _FINGERPRINTS:
        return _FINGERPRINTS[key]
    h = hashlib.sha256(f"{FORMAT} {key}\n".encode())
    folders = sorted(
        {_package_folder(f.__module__) for f in (system.evolve, system.initial_state)}
        | {Path(__file__).parent, _package_folder("blowbyblow.domain.core")},
        key=str,
    )
    found = ""
    try:
        for folder in folders:
            for source in sorted(folder.glob("*.py")):
                h.update(f"{source.name}\n".encode())
                h.update(source.read_bytes())
        found = h.hexdigest()
    except (OSError, TypeError):
        found = ""
    _FINGERPRINTS[key] = found
    return found


def _package_folder(module: str) -> Path:
    file = getattr(sys.modules.get(module), "__file__", None)
    if file is None:
        raise TypeError(f"no source for {module}")
    return Path(file).parent


def encode_state(state: Any) -> bytes:
    return msgspec.msgpack.encode(state)


_DECODERS: dict[str, msgspec.msgpack.Decoder[Any]] = {}


def decode_state(system: AnyGameSystem, data: bytes) -> Any:
    decoder = _DECODERS.get(system.id)
    if decoder is None:
        decoder = _DECODERS[system.id] = msgspec.msgpack.Decoder(system.state_type)
    return decoder.decode(data)


def snapshot_of(
    system: AnyGameSystem, state: Any, position: int, hash_: bytes, voids: int
) -> Snapshot | None:
    """A snapshot of ``state``, or None when this system's states do not read back exactly as
    they were (a state type msgspec cannot round-trip): such a system is folded from the start."""
    mark = fingerprint(system)
    if not mark:
        return None
    data = encode_state(state)
    try:
        if encode_state(decode_state(system, data)) != data:
            return None
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError):
        return None
    return Snapshot(position=position, hash=hash_, voids=voids, fingerprint=mark, state=data)


__all__ = [
    "EVERY",
    "Snapshot",
    "decode_state",
    "due",
    "encode_state",
    "fingerprint",
    "snapshot_of",
    "usable",
]
