"""A tournament's root, witnessed, on the server (docs/judging.md, Roots that others witness):
``bxb serve --witnesses POLICY --origin NAME`` asks the policy's witnesses to cosign each root
a judge publishes, and publishes it only when the policy's quorum did, as ``bxb root
--witnesses`` does at the command line.

- ``POST /api/tournaments/SLUG/root`` (the tournament's judge): the checkpoint over the
  tournament's battles at their heads, signed with the server's key under the log's name
  ``NAME/SLUG``, shown to every witness (each checks it consistent with the last one of that log
  it cosigned); kept and answered 201 with every cosignature when the quorum cosigned, else 409
  naming what each witness said, and nothing kept.
- ``GET /api/tournaments/SLUG/root``: the last root published, for anyone who may read.
- ``GET /api/battles/BATTLE/proof``: the battle's witnessed receipt in the last root that holds
  it (C2SP tlog-proof, ``replay/evidence/proofs.py``), for the table to keep; `bxb verify
  --receipt` and `bxb check-proof` check it.

The leaves are the tournament's sealed battles, each at its head, in a fixed order: those of the
last root published first, in its order, then the others as the register lists them (oldest
first), so a round's root extends the last one and witnesses can check it so. Only sealed
battles: a sealed battle takes no more events, so its leaf never changes, while a battle still
played (or flagged, ruled on, forked) would change its leaf and every witness would then refuse
the tournament's next root as inconsistent. A sealed battle rewritten afterwards (its seal and
seal record deleted with it) changes its leaf, and the witnesses refuse. Published roots are kept
in the register's database (``bxb_roots``), with the heads each was made over."""

from __future__ import annotations

import datetime
import threading
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from litestar import Response, get, post
from litestar.params import FromPath

from blowbyblow.replay.evidence.merkle import Head, MerkleError, battle_heads
from blowbyblow.replay.evidence.notes import NOTE_SIGNATURE, parse_note, vkey
from blowbyblow.replay.evidence.proofs import witnessed_receipt
from blowbyblow.replay.evidence.seals import public_hex
from blowbyblow.replay.evidence.witness import Policy, WitnessError, publish_root
from blowbyblow.replay.store.log import BattleStore
from blowbyblow.web.api import REFUSALS, AnyRequest, server, work
from blowbyblow.web.errors import ApiError
from blowbyblow.web.tournament import TournamentError, TournamentStore

_SCHEMA = """create table if not exists bxb_roots (
    tournament text not null, size integer not null, checkpoint text not null,
    heads text not null, published text not null, primary key (tournament, size))"""


@dataclass(frozen=True)
class RootTerms:
    """How the server publishes roots: the log's name (each tournament's log is ``NAME/SLUG``)
    and the witness policy."""

    origin: str
    policy: Policy


class PublishedRoot(msgspec.Struct, kw_only=True):
    """A tournament's root as published: its checkpoint with every cosignature (C2SP signed
    note), the log's key a reader checks it with, and what each witness said."""

    tournament: str
    size: int
    checkpoint: str
    log_key: str  # NAME+KEYID+BASE64, as `bxb witness log-key` prints it
    published: str
    battles: list[str] = []  # in the order of their leaves: `bxb root B1 B2 ...` gives the root
    said: dict[str, str] = {}


@dataclass
class RootDesk:
    """The server's roots: the terms (None: no witnesses configured), the key that signs the
    checkpoints (the server's), and one publication at a time in this process."""

    terms: RootTerms | None
    key: Ed25519PrivateKey | None
    store: BattleStore
    tournaments: TournamentStore
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ready: bool = False

    def _db(self) -> Any:
        db = self.tournaments.database
        if not self._ready:
            with db.cursor() as cur:
                cur.run(_SCHEMA)
            self._ready = True
        return db

    def origin(self, slug: str) -> str:
        assert self.terms is not None
        return f"{self.terms.origin}/{slug}"

    def _log_key(self, slug: str) -> str:
        assert self.key is not None
        return vkey(self.origin(slug), NOTE_SIGNATURE, bytes.fromhex(public_hex(self.key)))

    def _rows(self, slug: str) -> list[tuple[Any, ...]]:
        with self._db().cursor() as cur:
            rows: list[tuple[Any, ...]] = cur.run(
                "select size, checkpoint, heads, published from bxb_roots where tournament = ? "
                "order by size desc",
                (slug,),
            )
        return rows

    def last(self, slug: str) -> PublishedRoot:
        self._tournament(slug)
        rows = self._rows(slug)
        if not rows:
            raise ApiError(404, "root", "a root published", f"tournament {slug} has none yet")
        size, checkpoint, heads, published = rows[0]
        return PublishedRoot(
            tournament=slug,
            size=int(size),
            checkpoint=str(checkpoint),
            log_key=self._log_key(slug) if self.key and self.terms else "",
            published=str(published),
            battles=[h.battle for h in msgspec.json.decode(heads, type=list[Head])],
        )

    def _tournament(self, slug: str) -> None:
        try:
            self.tournaments.tournament(slug)
        except TournamentError as e:
            raise ApiError(404, "tournament", "a tournament of this server", str(e)) from None

    def _heads(self, slug: str, before: list[Head]) -> list[Head]:
        """The tournament's sealed battles at their heads: those of the last root first, in its
        order (at their heads now: a rewrite shows), then the others as the register lists
        them. Only a sealed battle takes no more events, so only it has a leaf that stays."""
        order = [UUID(h.battle) for h in before]
        known = set(order)
        sealed = {b.battle for b in self.store.battles() if b.sealed}
        order += [
            b.battle
            for b in self.tournaments.battles(slug)
            if b.battle not in known and b.battle in sealed
        ]
        try:
            return battle_heads(self.store, order)
        except MerkleError as e:
            raise ApiError(
                409,
                "root",
                "every battle of the last root published is still in the store",
                str(e),
            ) from None

    def publish(self, slug: str) -> tuple[PublishedRoot, bool]:
        """Publish the tournament's root if the policy's quorum of witnesses cosigns it: the
        root, and whether it is new (False: the battles have not moved since the last one)."""
        if self.terms is None:
            raise ApiError(
                409,
                "witnesses",
                "a root is published once the policy's witnesses cosigned it",
                "this server has no witnesses: start it with `bxb serve --witnesses POLICY "
                "--origin NAME` (or publish with `bxb root --witnesses`)",
            )
        if self.key is None:
            raise ApiError(
                409, "key", "a root is signed with the server's key", "start it with --key"
            )
        self._tournament(slug)
        with self._lock:
            rows = self._rows(slug)
            before = msgspec.json.decode(rows[0][2], type=list[Head]) if rows else []
            heads = self._heads(slug, before)
            if not heads:
                raise ApiError(
                    409,
                    "root",
                    "a root covers the tournament's sealed battles",
                    "none is sealed yet: seal the round's battles first",
                )
            if rows and heads == before:
                return self.last(slug), False
            try:
                done = publish_root(heads, self.origin(slug), self.key, self.terms.policy)
            except WitnessError as e:
                raise ApiError(
                    409, "witnesses", "the policy's quorum of witnesses cosigns the root", str(e)
                ) from None
            now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
            with self._db().cursor() as cur:
                cur.run(
                    "insert into bxb_roots (tournament, size, checkpoint, heads, published) "
                    "values (?, ?, ?, ?, ?)",
                    (slug, len(heads), done.note.text(), msgspec.json.encode(heads).decode(), now),
                )
        published = self.last(slug)
        published.said = dict(done.said)
        return published, True

    def proof(self, battle: UUID) -> str:
        """The battle's witnessed receipt in the last root published that holds it."""
        place = self.tournaments.place_of(battle)
        if place is None:
            raise ApiError(404, "battle", "a battle at a table", f"battle {battle} is at none")
        for _, checkpoint, heads, _ in self._rows(place.tournament):
            leaves = msgspec.json.decode(heads, type=list[Head])
            if any(h.battle == str(battle) for h in leaves):
                return witnessed_receipt(leaves, battle, parse_note(str(checkpoint))).text()
        raise ApiError(
            404,
            "root",
            "a root published with the battle in it",
            f"no root of {place.tournament} published yet holds battle {battle}",
        )


def desk(request: AnyRequest) -> RootDesk:
    found = request.app.state.roots
    assert isinstance(found, RootDesk)
    return found


@post("/api/tournaments/{slug:str}/root", tags=["judge"], responses=REFUSALS, status_code=201)
async def publish(request: AnyRequest, slug: FromPath[str]) -> Response[PublishedRoot]:
    """Publish the tournament's root once the policy's quorum of witnesses cosigned it (201);
    200 with the last one when no battle moved since; 409 naming what each witness said."""
    server(request).access(request).judge("publishes the tournament's root", slug)
    published, new = await work(desk(request).publish, slug)
    return Response(published, status_code=201 if new else 200)


@get("/api/tournaments/{slug:str}/root", tags=["read"], responses=REFUSALS)
async def last_root(request: AnyRequest, slug: FromPath[str]) -> PublishedRoot:
    """The tournament's last root published, with its cosignatures."""
    server(request).access(request).read()
    return await work(desk(request).last, slug)


@get("/api/battles/{battle:str}/proof", tags=["read"], responses=REFUSALS, media_type="text/plain")
async def proof(request: AnyRequest, battle: FromPath[str]) -> str:
    """The battle's witnessed receipt (C2SP tlog-proof) in the last root that holds it: keep
    it; `bxb verify --receipt FILE --log-key KEY --witnesses POLICY` checks the log with it."""
    srv = server(request)

    def run() -> str:
        srv.access(request).read()
        return desk(request).proof(srv.service.battle_id(battle))

    return await work(run)


ROOT_ROUTES = [publish, last_root, proof]
