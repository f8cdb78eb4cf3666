"""A tournament's tokens for its judge, over HTTP (the dashboard's "Tokens" box): the list, a
table's token re-issued (a lost phone) or revoked (``web/tokens.py``; `bxb tables` does the
same from the terminal)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
from litestar import delete, get, post
from litestar.params import FromPath

from blowbyblow.web.api import REFUSALS, AnyRequest, server, work
from blowbyblow.web.errors import ApiError
from blowbyblow.web.tokens import list_tokens, reissue, revoke
from blowbyblow.web.tournament import TournamentError

T = TypeVar("T")


class TokenInfo(msgspec.Struct, kw_only=True):
    role: str
    table: int | None
    fingerprint: str  # the first characters of the token's hash: the token is never shown again
    created: str
    revoked: str  # when; "" while it works


class NewToken(msgspec.Struct, kw_only=True):
    table: int
    token: str  # shown this once
    link: str  # the join link, relative to the server


class Revoked(msgspec.Struct, kw_only=True):
    table: int
    revoked: int  # how many tokens stopped


async def _as_judge(
    request: AnyRequest, slug: str, action: str, fn: Callable[..., T], *args: Any
) -> T:
    """``fn(tournaments, slug, *args)`` for the tournament's judge; a bad table: 422."""
    srv = server(request)
    srv.access(request).judge(action, slug)
    try:
        return await work(fn, srv.tournaments, slug, *args)
    except TournamentError as e:
        raise ApiError(422, "table", "a table of the tournament", str(e)) from None


@get("/api/tournaments/{slug:str}/tokens", tags=["judge"], responses=REFUSALS)
async def tokens(request: AnyRequest, slug: FromPath[str]) -> list[TokenInfo]:
    """Every token of the tournament: whose, when made, revoked or working."""
    rows = await _as_judge(request, slug, "lists the tokens", list_tokens)
    return [TokenInfo(**row.__dict__) for row in rows]


@post("/api/tournaments/{slug:str}/tables/{table:int}/token", tags=["judge"], responses=REFUSALS)
async def reissue_token(request: AnyRequest, slug: FromPath[str], table: FromPath[int]) -> NewToken:
    """A new token for the table (a lost phone): the old one stops working at once."""
    token = await _as_judge(request, slug, "re-issues a table's token", reissue, table)
    return NewToken(table=table, token=token, link=f"/join/{token}")


@delete(
    "/api/tournaments/{slug:str}/tables/{table:int}/token",
    tags=["judge"],
    responses=REFUSALS,
    status_code=200,
)
async def revoke_token(request: AnyRequest, slug: FromPath[str], table: FromPath[int]) -> Revoked:
    """Stop the table's token (`bxb tables reissue` or the dashboard gives a new one)."""
    count = await _as_judge(request, slug, "revokes a table's token", revoke, table)
    return Revoked(table=table, revoked=count)


TOKEN_ROUTES = [tokens, reissue_token, revoke_token]
