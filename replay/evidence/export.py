"""Portable records: a battle as a self-contained JSON Lines file that anyone can read and
re-check, as a PGN file is for a chess game.

Line 1, the header: ``{"format": "bxb-export", "version", "battle", "ruleset",
"ruleset_version", "label", "events", "chain", "last_hash", "seal"}`` where ``version`` is the
record format (``formats.CURRENT_FORMAT``) and ``seal`` repeats the signed checkpoint of a sealed
battle (or is null). Then one line per event, in order: ``{"position", "type", "rule" (rule steps
only), "event", "prev", "hash", "at", "v"}``, ``v`` being the format the event was stored in.
Keys are sorted and the output is deterministic, so export -> import -> export gives the same
bytes.

Each event's hash is recomputed from its JSON alone (the canonical MessagePack of the plain data
is the same as the stored bytes), so a file is checked without trusting whoever made it.

Reading is strict and bounded, since a file may come from anyone (docs/store.md, "Reading an
export"): UTF-8 only; strict JSON (no NaN or Infinity, no number too large for a float); at most
``MAX_EXPORT_BYTES`` in all, ``MAX_LINE_BYTES`` a line, ``MAX_DEPTH`` levels of nesting; whole
numbers only within what MessagePack records (-2^63 to 2^64-1); every position, count and format
a JSON integer (not 2.0 or "2"), every hash 64 lower-case hex digits and the battle id in its
canonical form, as the export writes them. A file outside these bounds is
reported as a problem at its line, like any other bad file, never a crash."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import msgspec

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, RuleEvent
from blowbyblow.domain.judging import BattleSealed
from blowbyblow.replay.engine.codec import codec_for, encode, encode_json, to_builtins
from blowbyblow.replay.engine.formats import CURRENT_FORMAT, upcast
from blowbyblow.replay.engine.registry import UnknownGameSystem
from blowbyblow.replay.evidence.verify import Problem, Report, verify_events
from blowbyblow.replay.store.log import CHAIN_ALGORITHM, BattleStore, LoggedEvent, chain_hash

EXPORT_FORMAT = "bxb-export"
MAX_EXPORT_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 32
_SMALLEST, _LARGEST = -(2**63), 2**64 - 1  # what MessagePack can record


class ExportError(BlowByBlowError):
    pass


def export_header(first: LoggedEvent | None, last: LoggedEvent | None, count: int) -> bytes:
    """The file's first line, for a battle of ``count`` records from ``first`` to ``last``."""
    if first is None or last is None or not isinstance(first.event, BattleStarted):
        raise ExportError("nothing to export: the battle has no BattleStarted")
    started = first.event
    seal = to_builtins(last.event) if isinstance(last.event, BattleSealed) else None
    header = {
        "format": EXPORT_FORMAT,
        "version": CURRENT_FORMAT,
        "battle": str(first.originator_id),
        "ruleset": started.ruleset,
        "ruleset_version": started.ruleset_version,
        "label": started.label,
        "events": count,
        "chain": CHAIN_ALGORITHM,
        "last_hash": last.hash.hex(),
        "seal": seal,
    }
    return encode_json(header)


def export_line(logged: LoggedEvent) -> bytes:
    """A record's line."""
    line: dict[str, Any] = {
        "position": logged.position,
        "type": type(logged.event).__name__,
        # the event's data as stored (not upcast), so its hash can be recomputed from the file
        "event": msgspec.msgpack.decode(logged.data),
        "prev": logged.prev_hash.hex(),
        "hash": logged.hash.hex(),
        "at": logged.recorded_at,
        "v": logged.format,
    }
    if isinstance(logged.event, RuleEvent):
        line["rule"] = logged.event.rule
    return encode_json(line)


def export_lines(events: list[LoggedEvent]) -> list[bytes]:
    first, last = (events[0], events[-1]) if events else (None, None)
    return [export_header(first, last, len(events)), *map(export_line, events)]


def export_battle(store: BattleStore, battle: UUID) -> bytes:
    return b"".join(line + b"\n" for line in export_lines(store.read(battle)))


def export_stream(
    store: BattleStore,
    battle: UUID,
    first: LoggedEvent | None,
    last: LoggedEvent | None,
    count: int,
) -> Iterator[bytes]:
    """``export_battle``, line by line, in flat memory, for a battle already read once (``count``
    records from ``first`` to ``last``): the header made now (ExportError now, for a battle with
    no BattleStarted), the records read again as the lines are written."""
    header = export_header(first, last, count) + b"\n"
    upto = 0 if last is None else last.position
    records = (export_line(logged) + b"\n" for logged in store.logged(battle, lte=upto))
    return itertools.chain([header], records)


@dataclass
class ReadExport:
    battle: UUID
    events: list[LoggedEvent]
    report: Report


class _Failed(Exception):
    """The first problem found in a file: reading stops there."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _fail(position: int, message: str) -> _Failed:
    return _Failed(Problem(position, "file", message))


@dataclass(frozen=True)
class _Header:
    """The first line of an export, checked: what it says of the battle and its file."""

    version: int
    battle: UUID
    ruleset: str
    count: int
    fields: dict[str, Any]  # the line as read, for what is compared with the battle itself

    @property
    def label(self) -> str:
        return str(self.fields.get("label", ""))


def read_export(
    text: bytes | str,
    trusted_keys: frozenset[str] | None = None,
    judge_keys: frozenset[str] | None = None,
) -> ReadExport:
    """Parse and fully verify an export: structure, hash chain, seal, every command re-adjudicated
    (``judge_keys``: the keys its rulings, notes and fork link must be signed by). Never raises
    for a bad file: the report says what is wrong."""
    nil = UUID(int=0)
    try:
        lines = _lines(text)
        header = _read_header(lines)
    except _Failed as failed:
        return ReadExport(nil, [], Report(nil, problem=failed.problem))
    events: list[LoggedEvent] = []
    report = Report(battle=header.battle, ruleset=header.ruleset, label=header.label)
    try:
        for n, raw in enumerate(lines[1:], start=1):
            events.append(_read_line(header, n, raw))
        _check_header_against_battle(header, events)
    except _Failed as failed:
        report.problem = failed.problem
        return ReadExport(header.battle, events, report)
    full = verify_events(header.battle, events, trusted_keys=trusted_keys, judge_keys=judge_keys)
    full.events = len(events)
    return ReadExport(header.battle, events, full)


def _lines(text: bytes | str) -> list[str]:
    """The file's non-blank lines, read strictly: UTF-8, within the size bounds."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if len(raw) > MAX_EXPORT_BYTES:
        raise _fail(0, f"the file is larger than {MAX_EXPORT_BYTES // 2**20} MiB")
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        at = raw.count(b"\n", 0, e.start) + 1
        raise _fail(
            max(0, at - 1), f"line {at} is not UTF-8 text (byte {e.start}); expected UTF-8"
        ) from None
    lines = [line for line in decoded.split("\n") if line.strip()]
    for n, line in enumerate(lines):
        if len(line) > MAX_LINE_BYTES:
            raise _fail(n, f"line {n + 1} is longer than {MAX_LINE_BYTES // 2**20} MiB")
    return lines


def _json(line: str) -> Any:
    """One line's JSON, strictly (RFC 8259: no NaN, no Infinity), within the bounds."""
    try:
        value = msgspec.json.decode(line)
    except RecursionError:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep") from None
    except (msgspec.DecodeError, msgspec.ValidationError) as e:
        raise ValueError(f"not JSON: {e}") from None
    _check_bounds(value, 0)
    return value


def _check_bounds(value: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, bool):
        return
    if isinstance(value, int) and not _SMALLEST <= value <= _LARGEST:
        raise ValueError(f"the number {value} is out of range (-2^63 to 2^64-1)")
    if isinstance(value, dict):
        for v in value.values():
            _check_bounds(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _check_bounds(v, depth + 1)


def _whole(value: Any, name: str) -> int:
    """A whole number as the export writes it: a JSON integer, not 2.0, "2" or true."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name}: expected a whole number, not {value!r}")
    return value


def _hash(value: Any, name: str) -> bytes:
    """A SHA-256 hash as the export writes it: 64 lower-case hex digits."""
    if not isinstance(value, str) or len(value) != 64 or value.strip(_HEX_DIGITS):
        raise ValueError(f"{name}: expected 64 lower-case hex digits, not {value!r}")
    return bytes.fromhex(value)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name}: expected a string, not {value!r}")
    return value


def _battle_id(value: Any) -> UUID:
    """A battle id as the export writes it: the canonical lower-case form with hyphens."""
    if not isinstance(value, str) or str(_parse_uuid(value)) != value:
        raise ValueError(f"battle: expected a battle id such as {UUID(int=0)}, not {value!r}")
    return UUID(value)


def _parse_uuid(value: str) -> UUID | None:
    try:
        return UUID(value)
    except ValueError:
        return None


_HEX_DIGITS = "0123456789abcdef"


def _read_header(lines: list[str]) -> _Header:
    if not lines:
        raise _fail(0, "the file is empty")
    try:
        fields = _json(lines[0])
        if not isinstance(fields, dict) or fields.get("format") != EXPORT_FORMAT:
            raise ValueError("the first line is not a bxb-export header")
        header = _Header(
            version=_whole(fields["version"], "version"),
            battle=_battle_id(fields["battle"]),
            ruleset=_text(fields["ruleset"], "ruleset"),
            count=_whole(fields["events"], "events"),
            fields=fields,
        )
        _hash(fields["last_hash"], "last_hash")
        if fields.get("chain") != CHAIN_ALGORITHM:
            raise ValueError(f"unknown hash chain {fields.get('chain')!r}")
        if header.version > CURRENT_FORMAT or header.version < 1:
            raise ValueError(f"export format {header.version} is not one this engine reads")
        codec_for(header.ruleset)  # the game system is installed and its events can be read
    except (ValueError, KeyError, TypeError, UnknownGameSystem) as e:
        raise _fail(0, f"header: {e}") from None
    return header


def _read_line(header: _Header, n: int, raw: str) -> LoggedEvent:
    """Line ``n + 1`` of the file, the event at position ``n``: read, and chained to the last."""
    try:
        logged = _decode_line(header, raw)
    except (ValueError, KeyError, TypeError, msgspec.ValidationError) as e:
        raise _fail(n, f"line {n + 1} cannot be read: {e}") from None
    if logged.position != n:
        raise _fail(n, f"line {n + 1} holds position {logged.position}, expected {n}")
    if chain_hash(logged.link) != logged.hash:
        raise _Failed(
            Problem(n, "chain", "hash chain broken: the event's content does not match its hash")
        )
    return logged


def _decode_line(header: _Header, raw: str) -> LoggedEvent:
    line_keys = {"position", "type", "event", "prev", "hash", "at", "rule"} | (
        {"v"} if header.version >= 2 else set()
    )
    line = _json(raw)
    if not isinstance(line, dict):
        raise ValueError("expected a JSON object")
    if not set(line) <= line_keys:
        raise ValueError(
            f"unexpected keys {sorted(set(line) - line_keys)} for export format {header.version}"
        )
    fmt = _whole(line["v"], "v") if header.version >= 2 else 1
    if not 1 <= fmt <= header.version:
        raise ValueError(f"v is {fmt}; expected 1 to {header.version}, the file's format")
    plain = line["event"]
    if not isinstance(plain, dict):
        raise ValueError("event: expected a JSON object")
    data = encode(plain)  # the canonical bytes, as they were stored
    event = codec_for(header.ruleset).from_builtins(upcast(plain, fmt))
    if line["type"] != type(event).__name__:
        raise ValueError(f"type says {line['type']} but the event is {type(event).__name__}")
    if line.get("rule") != (event.rule if isinstance(event, RuleEvent) else None):
        raise ValueError("the line's rule differs from its event's")
    return LoggedEvent(
        originator_id=header.battle,
        originator_version=_whole(line["position"], "position"),
        ruleset=header.ruleset,
        event=event,
        data=data,
        prev_hash=_hash(line["prev"], "prev"),
        hash=_hash(line["hash"], "hash"),
        recorded_at=_text(line["at"], "at"),
        format=fmt,
    )


def _check_header_against_battle(header: _Header, events: list[LoggedEvent]) -> None:
    """What the header says of the battle (its start, length, last hash and seal) is what the
    lines hold."""
    fields = header.fields
    first = events[0].event if events else None
    # The header repeats the first event as it was stored (not upcast to today's format).
    stored = msgspec.msgpack.decode(events[0].data) if events else {}
    if not isinstance(first, BattleStarted) or (
        (stored.get("ruleset"), stored.get("ruleset_version"), stored.get("label"))
        != (header.ruleset, fields.get("ruleset_version"), fields.get("label"))
    ):
        raise _fail(1, "the header's ruleset, version or label is not the battle's")
    if len(events) != header.count:
        raise _fail(
            len(events),
            f"the header announces {header.count} events, the file holds {len(events)}: "
            "truncated or padded",
        )
    if events[-1].hash.hex() != fields.get("last_hash"):
        raise _fail(len(events), "the header's last hash is not the last event's")
    seal = fields.get("seal")
    last_is_seal = isinstance(events[-1].event, BattleSealed)
    if (seal is not None) != last_is_seal or (last_is_seal and encode(seal) != events[-1].data):
        raise _fail(len(events), "the header's seal does not match the battle's last event")
