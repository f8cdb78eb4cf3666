"""Refusals over HTTP, in one place: the front door's typed refusals (``Refused``: invalid,
conflict, not found, unavailable, forbidden) and the server's own (``ApiError``: a body that does
not fit, a token that may not) become one ``ErrorBody`` with its status. A store that cannot be
reached is a 503 everywhere: nothing was written, try again."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from typing import Any, TypeVar
from urllib.parse import unquote, unquote_to_bytes

import msgspec

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.battles.refusals import Kind, Refused, Unreachable
from blowbyblow.replay.engine.scenario import ScenarioError, check_values
from blowbyblow.replay.store.log import StoreBusy, StoreUnavailable, UnreadableEvent
from blowbyblow.web.tournament import TournamentError

STATUS: dict[Kind, int] = {
    "invalid": 422,
    "conflict": 409,
    "not_found": 404,
    "unavailable": 503,
    "forbidden": 403,
}


class ApiError(BlowByBlowError):
    """A refusal: HTTP ``status``, the ``field`` at fault, the ``rule`` broken. Nothing written."""

    def __init__(self, status: int, field: str, rule: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.status = status
        self.field = field
        self.rule = rule
        self.message = message


def api_error(error: BaseException) -> ApiError | None:
    """``error`` as the server says it, or None when it is no refusal (a bug: 500)."""
    if isinstance(error, ApiError):
        return error
    if isinstance(error, StoreUnavailable | StoreBusy) or _pool_exhausted(error):
        error = Unreachable(str(error))
    elif _sqlite_fault(error):
        error = Unreachable(f"the tournament register: {error}")
    elif isinstance(error, UnreadableEvent):  # read by a page or the index: as the door says it
        error = Refused("conflict", "battle", "a battle must be readable (see verify)", str(error))
    if isinstance(error, Refused):
        return ApiError(STATUS[error.kind], error.field, error.rule, error.message)
    if isinstance(error, TournamentError):  # a tournament (or a table of it) the server lacks
        return ApiError(404, "tournament", "a tournament of this server", str(error))
    return None


def sent_error(scope: Mapping[str, Any], error: BaseException) -> ApiError | None:
    """``error`` as the server says it to the request of ``scope`` (``as_sent``), or None when
    it is no refusal."""
    found = api_error(error)
    return None if found is None else as_sent(scope, found)


def as_sent(scope: Mapping[str, Any], error: ApiError) -> ApiError:
    """``error`` with each part of the request's address that is not UTF-8 text written as
    ``bxb`` writes such a byte of an argument, ``\\xff``: the server reads the byte 0xff as
    U+FFFD, a character nobody sent. Refusals only: nothing on the way of a request served."""
    if "\ufffd" not in error.message:
        return error
    message = error.message
    path, query = scope.get("raw_path") or b"", scope.get("query_string") or b""
    for part, plus in [(p, False) for p in path.split(b"/")] + [
        (q, True) for q in re.split(rb"[&=]", query)
    ]:
        part = part.replace(b"+", b" ") if plus else part
        read = unquote(part.decode("latin-1"), errors="replace")
        sent = unquote_to_bytes(part).decode("utf-8", "backslashreplace")
        if read != sent:
            message = message.replace(read, sent)
    return ApiError(error.status, error.field, error.rule, message)


def _pool_exhausted(error: BaseException) -> bool:
    """psycopg's pool giving up on a connection: the database is away."""
    return type(error).__name__ in {"PoolTimeout", "OperationalError", "InterfaceError"} and type(
        error
    ).__module__.startswith(("psycopg", "psycopg_pool", "eventsourcing"))


def _sqlite_fault(error: BaseException) -> bool:
    """The register's own SQLite connection refused a write it could not make (a full disk, a
    file locked too long, read-only, an I/O error): its transaction was rolled back."""
    return isinstance(error, sqlite3.OperationalError) and any(
        word in str(error).lower()
        for word in (
            "full",
            "locked",
            "busy",
            "readonly",
            "read-only",
            "disk i/o",
            "unable to open",
        )
    )


_PATH = re.compile(r" - at `\$(.*)`$")


_T = TypeVar("_T")


def bounded(field_name: str, value: _T) -> _T:
    """``value`` as posted, once every number in it is finite and of a size a record can hold
    (a command's ``turn`` of 10^30 fits Python's int and the command's type, not the log)."""
    try:
        check_values(value, field_name + ": ")
    except ScenarioError as e:
        raise ApiError(
            422, field_name, "numbers within the bounds a record holds", str(e)
        ) from None
    return value


def validation(field_name: str, error: msgspec.ValidationError, rule: str) -> ApiError:
    """msgspec says '... - at `$.a[0].b`'; the field is then ``field_name.a[0].b``."""
    text = str(error)
    m = _PATH.search(text)
    if m:
        return ApiError(422, field_name + m.group(1), rule, text[: m.start()])
    return ApiError(422, field_name, rule, text)


__all__ = ["STATUS", "ApiError", "api_error", "as_sent", "bounded", "sent_error", "validation"]
