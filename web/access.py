"""Who may do what. A token comes as ``Authorization: Bearer TOKEN`` (the API) or in the
``bxb_token`` cookie that ``/join/TOKEN`` sets (the pages; HttpOnly, SameSite=Strict, so another
site's page cannot write with it).

- Nothing is written without a token: no token or an unknown one is 401.
- A table's token plays only its own table's battles (start, commands, finish); 403 otherwise.
- The judge token of a tournament does everything a table does at any of its tables, and
  alone seals, exports, imports and runs what-ifs; 403 for a table token.
- A command is voided (with a reason) by the judge of the battle's tournament, until the seal,
  or by the table's own token while its battle is being played: once the table has ended the
  battle ("End battle"), a correction is the judge's call.
- Reading is open, or needs a token of any tournament (``bxb serve --reading tokens``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from litestar import Request

from blowbyblow.web.errors import ApiError
from blowbyblow.web.guard import first_header
from blowbyblow.web.tournament import Principal, TableBattle, TournamentStore

COOKIE = "bxb_token"
Reading = Literal["open", "tokens"]


def presented_token(request: Request[Any, Any, Any]) -> str | None:
    """The token a request presents: its bearer token, else its ``bxb_token`` cookie. The two
    headers are looked for in the request's header list as sent, without Litestar's map of every
    header (issue 25); a cookie header whose token ``_plain_cookie`` cannot read as Litestar
    reads it is read by Litestar's own parser, from its map."""
    sent = request.scope["headers"]
    header = first_header(sent, b"authorization") or ""
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    cookie = first_header(sent, b"cookie")
    if cookie is None:
        return None  # Litestar's cookies: none
    plain = _plain_cookie(cookie)
    if plain is not None:
        return plain or None
    return request.cookies.get(COOKIE) or None


def _plain_cookie(cookie: str) -> str | None:
    """The ``bxb_token`` cookie's value in a cookie header, when it is there once and holds
    nothing Litestar's parser would change (no quote, backslash or ``%``): its value stripped,
    as that parser gives it ("" when the header has no such cookie); None otherwise (Litestar's
    parser reads it: a quoted or escaped value, or the cookie twice, the last one winning)."""
    found = [
        v
        for k, eq, v in (p.partition("=") for p in cookie.split(";"))
        if eq and k.strip() == COOKIE
    ]
    if not found:
        return ""
    if len(found) > 1 or any(c in found[0] for c in '"\\%'):
        return None
    return found[0].strip()


@dataclass(frozen=True)
class Access:
    """The principal a request speaks for (None: no valid token) and the server's read rule."""

    principal: Principal | None
    presented: bool
    reading: Reading

    @classmethod
    def of(
        cls,
        request: Request[Any, Any, Any],
        tournaments: TournamentStore,
        reading: Reading,
    ) -> Access:
        token = presented_token(request)
        return cls(
            principal=tournaments.principal(token), presented=token is not None, reading=reading
        )

    @classmethod
    def kept(
        cls, request: Request[Any, Any, Any], tournaments: TournamentStore, reading: Reading
    ) -> Access | None:
        """``of``, from the tokens this process remembers alone (None: the token is to be read,
        or there is none)."""
        principal = tournaments.remembered(presented_token(request))
        return None if principal is None else cls(principal, presented=True, reading=reading)

    def _who(self, action: str) -> Principal:
        if self.principal is None:
            if self.presented:
                raise ApiError(
                    401,
                    "Authorization",
                    "a token this server made",
                    f"{action}: the token is not valid",
                )
            raise ApiError(
                401,
                "Authorization",
                "nothing is written without a token",
                f"{action}: no token given",
            )
        return self.principal

    def read(self) -> None:
        if self.reading == "tokens" and self.principal is None:
            self._who("reading")

    def judge(self, action: str, tournament: str | None) -> Principal:
        """A judge of ``tournament`` (None: a battle at no table, any tournament's judge)."""
        who = self._who(action)
        if not who.is_judge:
            raise ApiError(
                403,
                "Authorization",
                f"only a judge {action}",
                f"this is a table's token; only a judge {action}",
            )
        if tournament is not None and who.tournament != tournament:
            raise ApiError(
                403,
                "Authorization",
                "a judge acts in their own tournament",
                f"this judge's token is for {who.tournament}, not {tournament}",
            )
        return who

    def table(self, action: str, tournament: str, table: int) -> Principal:
        """The token of ``table`` of ``tournament``, or a judge of that tournament."""
        who = self._who(action)
        if who.tournament != tournament:
            raise ApiError(
                403,
                "Authorization",
                "a token acts in its own tournament",
                f"the token is for {who.tournament}, not {tournament}",
            )
        if not who.is_judge and who.table != table:
            raise ApiError(
                403,
                "Authorization",
                "a table's token plays only its own table's battles",
                f"this token is table {who.table}'s, not table {table}'s",
            )
        return who

    def battle_at_table(self, action: str, place: TableBattle | None) -> Principal:
        if place is None:
            return self.judge(action, None)
        return self.table(action, place.tournament, place.table)

    def voider(self, place: TableBattle | None) -> Principal:
        """Who may void a command of the battle at ``place`` (see the module's rules)."""
        who = self.battle_at_table("voids a command", place)
        if place is not None and place.finished and not who.is_judge:
            raise ApiError(
                403,
                "Authorization",
                "once a table has ended its battle, only a judge voids",
                f"table {place.table} has ended this battle; ask the judge to void the command",
            )
        return who


def describe(who: Principal) -> str:
    """A principal as a void records it (``by``)."""
    if who.is_judge:
        return f"judge of {who.tournament}"
    return f"table {who.table} of {who.tournament}"


__all__ = ["COOKIE", "Access", "Reading", "describe", "presented_token"]
