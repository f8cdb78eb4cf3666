"""A tournament's tokens, managed: listed (never shown again: the store keeps only each token's
SHA-256, so a token is named by its role, table and the first characters of its hash),
re-issued (a lost phone: the table's old token stops working and a new one is shown once) and
revoked. A revoked token's row moves to ``bxb_revoked_tokens`` (with when), so the list still
says what was revoked. ``bxb tables list|reissue|revoke`` and the judge's dashboard use these.

A server process keeps the tokens it has seen for a few seconds (``TournamentStore.principal``),
so a token revoked by another process (``bxb tables revoke``) stops working within that time; on
PostgreSQL a revoke tells every server process as it commits (``web/relay.py``), and they forget
their tokens at once."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from blowbyblow.web.tournament import TournamentError, TournamentStore, new_token, token_hash

_SCHEMA = """create table if not exists bxb_revoked_tokens (
    hash text primary key, tournament text not null, role text not null,
    table_number integer, created text not null, revoked text not null)"""


def now_text() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class TokenRow:
    """One token of a tournament, as listed: ``fingerprint``, its hash's first 12 characters."""

    role: str
    table: int | None
    fingerprint: str
    created: str
    revoked: str = ""  # when; "" while it works

    def line(self) -> str:
        who = "judge" if self.table is None else f"table {self.table}"
        state = f"revoked {self.revoked}" if self.revoked else "works"
        return f"{who:<9} {self.fingerprint}  made {self.created}  {state}"


def list_tokens(store: TournamentStore, slug: str) -> list[TokenRow]:
    """Every token of tournament ``slug``, working ones first, by table (the judges' last)."""
    store.tournament(slug)
    with store.database.cursor() as cur:
        cur.run(_SCHEMA)
        live = cur.run(
            "select role, table_number, hash, created from bxb_tokens where tournament = ?",
            (slug,),
        )
        gone = cur.run(
            "select role, table_number, hash, created, revoked from bxb_revoked_tokens "
            "where tournament = ?",
            (slug,),
        )
    rows = [TokenRow(str(r), t, str(h)[:12], str(c)) for r, t, h, c in live]
    rows += [TokenRow(str(r), t, str(h)[:12], str(c), str(v)) for r, t, h, c, v in gone]
    return sorted(rows, key=lambda r: (bool(r.revoked), r.table is None, r.table or 0, r.created))


def revoke(store: TournamentStore, slug: str, table: int | None) -> int:
    """Stop every working token of ``table`` (None: the judges') of tournament ``slug``; how
    many were stopped."""
    _table_of(store, slug, table)
    where, params = _where(slug, table)
    now = now_text()
    with store.database.cursor() as cur:
        cur.run(_SCHEMA)
        found = cur.run(f"select hash, role, table_number, created from bxb_tokens {where}", params)
        for digest, role, number, created in found:
            cur.run(
                "insert into bxb_revoked_tokens "
                "(hash, tournament, role, table_number, created, revoked) "
                "values (?, ?, ?, ?, ?, ?)",
                (digest, slug, role, number, created, now),
            )
        cur.run(f"delete from bxb_tokens {where}", params)
        store.tokens_changed(cur)
    store.forget_tokens()
    return len(found)


def reissue(store: TournamentStore, slug: str, table: int | None) -> str:
    """A new token for ``table`` (None: the judges'), shown this once; the old ones stop."""
    revoke(store, slug, table)
    token = new_token()
    with store.database.cursor() as cur:
        cur.run(
            "insert into bxb_tokens (hash, tournament, role, table_number, created) "
            "values (?, ?, ?, ?, ?)",
            (token_hash(token), slug, "judge" if table is None else "table", table, now_text()),
        )
    return token


def _table_of(store: TournamentStore, slug: str, table: int | None) -> None:
    tournament = store.tournament(slug)
    if table is not None and table not in tournament.tables:
        if not tournament.tables:  # "1 to 0" named no table
            raise TournamentError(
                f"table: tournament {slug!r} has no tables yet, so no table {table} "
                f"(`bxb tables add {slug} --count N`)"
            )
        raise TournamentError(
            f"table: expected one of the tables of tournament {slug!r} "
            f"(1 to {len(tournament.tables)}), not {table}"
        )


def _where(slug: str, table: int | None) -> tuple[str, tuple[object, ...]]:
    if table is None:
        return "where tournament = ? and role = 'judge'", (slug,)
    return "where tournament = ? and role = 'table' and table_number = ?", (slug, table)


__all__ = ["TokenRow", "list_tokens", "reissue", "revoke"]
