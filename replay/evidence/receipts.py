"""Signed receipts: after every command, the recording side (the CLI's key, a tournament
server's key) signs the battle's chain head and hands the receipt to the table. A player who
keeps it can later prove what the log held: the hash chain makes the head at position P commit
to every event up to P, so a log that is shorter than P (a truncation) or whose hash at P differs
(a rewrite, re-chained) contradicts a receipt signed by a key the player trusts.

Receipt ``bxb-receipt-v1``: Ed25519 over

    "bxb-receipt-v1" 0x00 ‖ battle id (16 bytes) ‖ position (8 bytes, big-endian) ‖ head (32 bytes)

where ``head`` is the chain hash of the event at ``position`` (``replay.store.log.chain_hash``).
A receipt is kept as one line of text,

    bxb-receipt-v1 BATTLE POSITION HEAD PUBLIC_KEY SIGNATURE

(hex, space-separated; copy-pasteable), or as the JSON object of its fields; its canonical bytes
are MessagePack with keys sorted (``Receipt.encode``).

What a receipt does not prove: anything after its position, and anything at all to someone who
does not trust its key (a player can sign receipts with a key of their own)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias
from uuid import UUID

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from nacl.bindings import crypto_sign, crypto_sign_seed_keypair

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.evidence.chain import check_chain, read_all
from blowbyblow.replay.evidence.seals import public_hex
from blowbyblow.replay.store.log import BattleStore, LoggedEvent

if TYPE_CHECKING:
    from blowbyblow.replay.evidence.notes import Verifier
    from blowbyblow.replay.evidence.proofs import WitnessedReceipt
    from blowbyblow.replay.evidence.witness import Policy

RECEIPT_ALGORITHM = "bxb-receipt-v1"
_MAX_POSITION = 2**63 - 1


class ReceiptError(BlowByBlowError):
    pass


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """The recording side's signature over a battle's chain head at one position."""

    algorithm: str
    battle: str  # the battle id
    position: int  # from 1
    head: str  # hex of the chain hash at ``position``
    public_key: str  # hex of the raw 32-byte Ed25519 public key
    signature: str  # hex

    def encode(self) -> bytes:
        """Canonical bytes: MessagePack with keys sorted."""
        return encode(self)

    def text(self) -> str:
        """One line a player can copy, paste and keep."""
        return " ".join(
            (
                self.algorithm,
                self.battle,
                str(self.position),
                self.head,
                self.public_key,
                self.signature,
            )
        )

    def json(self) -> str:
        return msgspec.json.encode(self, order="sorted").decode()


def signed_bytes(battle: UUID, position: int, head: bytes) -> bytes:
    """What a receipt's signature covers."""
    return RECEIPT_ALGORITHM.encode() + b"\x00" + battle.bytes + position.to_bytes(8, "big") + head


# Each key's public key (hex) and its secret key as libsodium takes it (seed, then public key),
# by the key object's id (the key kept beside, so that its id names no other key while the
# entry lasts): worked out once a key, as a server signs every write with one key (issue 25).
_SIGNERS: dict[int, tuple[Ed25519PrivateKey, str, bytes]] = {}


def _signer_of(key: Ed25519PrivateKey) -> tuple[str, bytes]:
    found = _SIGNERS.get(id(key))
    if found is None or found[0] is not key:
        if len(_SIGNERS) >= 16:
            _SIGNERS.clear()
        seed = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        _, secret = crypto_sign_seed_keypair(seed)
        found = _SIGNERS[id(key)] = (key, public_hex(key), secret)
    return found[1], found[2]


def sign_receipt(key: Ed25519PrivateKey, battle: UUID, logged: LoggedEvent) -> Receipt:
    """The receipt for ``battle``'s chain head at ``logged`` (the last event a command wrote).

    Signed by libsodium (PyNaCl), not by the OpenSSL inside ``cryptography``: an Ed25519
    signature is deterministic (RFC 8032), so both give the same bytes, and libsodium's field
    arithmetic (51-bit limbs) signs in about half the instructions (0.24 M against 0.45 M), a
    receipt at every written command (issue 25)."""
    if logged.originator_id != battle:
        raise ReceiptError(f"the event given is battle {logged.originator_id}'s, not {battle}'s")
    public, secret = _signer_of(key)
    message = signed_bytes(battle, logged.position, logged.hash)
    return Receipt(
        algorithm=RECEIPT_ALGORITHM,
        battle=str(battle),
        position=logged.position,
        head=logged.hash.hex(),
        public_key=public,
        signature=crypto_sign(message, secret)[:64].hex(),
    )


def receipt_for(store: BattleStore, battle: UUID, key: Ed25519PrivateKey) -> Receipt:
    """The receipt for ``battle``'s chain head as the store holds it now: what a live table or
    the tournament server hands out after each command."""
    last = store.last(battle)
    if last is None:
        raise ReceiptError(f"no battle {battle} in this store")
    return sign_receipt(key, battle, last)


def signature_ok(receipt: Receipt) -> bool:
    try:
        message = signed_bytes(UUID(receipt.battle), receipt.position, bytes.fromhex(receipt.head))
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(receipt.public_key)).verify(
            bytes.fromhex(receipt.signature), message
        )
    except (InvalidSignature, ValueError, OverflowError):
        return False
    return receipt.algorithm == RECEIPT_ALGORITHM


# --- reading receipts ---------------------------------------------------------------------------


def _hex(value: object, size: int, what: str) -> str:
    text = str(value).lower()
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise ReceiptError(f"{what}: expected {size * 2} hex digits, not {value!r}") from None
    if len(raw) != size:
        raise ReceiptError(f"{what}: expected {size * 2} hex digits, not {len(text)}")
    return text


def _receipt(fields: dict[str, object]) -> Receipt:
    if fields.get("algorithm") != RECEIPT_ALGORITHM:
        raise ReceiptError(
            f"expected a {RECEIPT_ALGORITHM} receipt, not {fields.get('algorithm')!r}"
        )
    try:
        battle = str(UUID(str(fields["battle"])))
    except ValueError:
        raise ReceiptError(f"battle: expected a battle id, not {fields['battle']!r}") from None
    position = fields["position"]
    if (
        isinstance(position, str)
        and position.isascii()
        and position.isdigit()
        and len(position) < 20
    ):
        position = int(position)
    if not isinstance(position, int) or isinstance(position, bool):
        raise ReceiptError(f"position: expected a whole number, not {position!r}")
    if not 1 <= position <= _MAX_POSITION:
        raise ReceiptError(f"position: expected 1 or more, not {position}")
    return Receipt(
        algorithm=RECEIPT_ALGORITHM,
        battle=battle,
        position=position,
        head=_hex(fields["head"], 32, "head"),
        public_key=_hex(fields["public_key"], 32, "public key"),
        signature=_hex(fields["signature"], 64, "signature"),
    )


_FIELDS = ("algorithm", "battle", "position", "head", "public_key", "signature")


def parse_receipt(line: str) -> Receipt:
    """One receipt, from its line of text or its JSON object."""
    line = line.strip()
    if line.startswith("{"):
        try:
            fields = json.loads(line)
        except (ValueError, RecursionError) as e:
            raise ReceiptError(f"not a JSON object: {e}") from None
        if not isinstance(fields, dict) or set(fields) != set(_FIELDS):
            raise ReceiptError(f"a receipt's JSON has exactly the keys {', '.join(_FIELDS)}")
        return _receipt(fields)
    parts = line.split()
    if len(parts) != len(_FIELDS):
        raise ReceiptError(
            f"expected {len(_FIELDS)} fields ({' '.join(_FIELDS)}), found {len(parts)}"
        )
    return _receipt(dict(zip(_FIELDS, parts, strict=True)))


def parse_receipts(text: str) -> list[Receipt]:
    """The receipts of a file: one per line (text or JSON); blank lines and ``#`` comments are
    skipped. A line that is not a receipt is an error naming it."""
    receipts: list[Receipt] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            receipts.append(parse_receipt(line))
        except ReceiptError as e:
            raise ReceiptError(f"line {n}: {e}") from None
    return receipts


# --- checking a log against receipts ------------------------------------------------------------

HOLDS = "holds"
FAILED = frozenset(
    {
        "truncated",
        "rewritten",
        "missing",
        "chain",
        "unreadable",
        "forged",
        "untrusted",
        "unwitnessed",
    }
)

# A receipt the organiser signed (``Receipt``), or a head witnessed in a round's cosigned root
# (``proofs.WitnessedReceipt``): each says which battle, at which position, with which head.
AnyReceipt: TypeAlias = "Receipt | WitnessedReceipt"


@dataclass(frozen=True)
class Witnessing:
    """What a witnessed receipt is checked against: the log's key and the witness policy."""

    log: Verifier
    policy: Policy


@dataclass(frozen=True)
class ReceiptCheck:
    """What one receipt proves of the log it was checked against.

    ``verdict``: ``holds`` (the log still has this head at this position: events 1 to
    ``position`` are the ones receipted), ``truncated`` (the log is shorter than the receipt's
    position: events were deleted), ``missing`` (the battle is gone), ``rewritten`` (another hash
    at that position: an event at or before it was changed, deleted or inserted and the chain
    recomputed), ``chain`` (the chain up to that position is broken), ``unreadable`` (a record
    before it cannot be read), ``forged`` (the receipt's own signature does not hold: it proves
    nothing), ``untrusted`` (signed by a key not trusted), ``unwitnessed`` (a witnessed receipt
    whose checkpoint fewer than the policy's quorum of witnesses cosigned), ``skipped`` (another
    battle's)."""

    receipt: AnyReceipt
    verdict: str
    message: str

    @property
    def ok(self) -> bool:
        return self.verdict not in FAILED

    def describe(self) -> str:
        head = f"battle {self.receipt.battle} position {self.receipt.position}"
        return f"receipt {'OK' if self.ok else 'FAILED'}: {head}: {self.verdict}: {self.message}"


@dataclass
class ReceiptReport:
    checks: list[ReceiptCheck] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failed(self) -> list[ReceiptCheck]:
        return [c for c in self.checks if not c.ok]


def check_receipts(
    store_or_events: BattleStore | Sequence[LoggedEvent],
    receipts: Sequence[AnyReceipt],
    *,
    trusted_keys: frozenset[str] | None = None,
    witnessing: Witnessing | None = None,
) -> ReceiptReport:
    """Check a store (every battle a receipt names) or one battle's events (receipts of other
    battles are skipped) against receipts: which receipt proves what. ``trusted_keys``: hex
    public keys a receipt must be signed by (None: any key whose signature holds, named in each
    message so the reader can judge); ``witnessing``: the log key and the policy a witnessed
    receipt's checkpoint must meet (without it, a witnessed receipt proves nothing)."""
    report = ReceiptReport()
    by_battle: dict[str, list[AnyReceipt]] = {}
    for receipt in receipts:
        by_battle.setdefault(receipt.battle, []).append(receipt)
    if isinstance(store_or_events, BattleStore):
        for battle, group in by_battle.items():
            try:
                bid = UUID(battle)
            except ValueError:
                report.checks.extend(ReceiptCheck(r, "forged", "not a battle id") for r in group)
                continue
            events, problem = read_all(store_or_events, bid)
            unreadable = problem.position if problem is not None else None
            report.checks.extend(
                _check_battle(bid, events, unreadable, group, (trusted_keys, witnessing))
            )
        return report
    events = list(store_or_events)
    mine = str(events[0].originator_id) if events else None
    for other, group in by_battle.items():
        if other != mine:
            report.checks.extend(
                ReceiptCheck(r, "skipped", "a receipt of another battle") for r in group
            )
    if mine is not None and mine in by_battle:
        report.checks.extend(
            _check_battle(UUID(mine), events, None, by_battle[mine], (trusted_keys, witnessing))
        )
    return report


_Trust = tuple[frozenset[str] | None, Witnessing | None]


def _check_battle(
    battle: UUID,
    events: Sequence[LoggedEvent],
    unreadable: int | None,
    receipts: Sequence[AnyReceipt],
    trust: _Trust,
) -> list[ReceiptCheck]:
    checks = [
        _check_one(battle, events, unreadable, r, trust)
        for r in sorted(receipts, key=lambda r: r.position)
    ]
    # A rewrite lies after the last receipt that still holds: say where, when receipts bound it.
    held = 0
    located: list[ReceiptCheck] = []
    for check in checks:
        if check.verdict == HOLDS:
            held = max(held, check.receipt.position)
        elif check.verdict == "rewritten" and held:
            check = ReceiptCheck(
                check.receipt,
                check.verdict,
                f"{check.message} (the receipt at position {held} still holds, so the change is "
                f"between positions {held + 1} and {check.receipt.position})",
            )
        located.append(check)
    return located


def _signer(receipt: AnyReceipt, trust: _Trust) -> ReceiptCheck | str:
    """Who vouches for ``receipt`` (in words), or the check that says it proves nothing."""
    trusted_keys, witnessing = trust
    if not isinstance(receipt, Receipt):
        if witnessing is None:
            return ReceiptCheck(
                receipt,
                "unwitnessed",
                "a witnessed receipt is checked against the log's key and the witness policy "
                "(--log-key, --witnesses); without them it proves nothing",
            )
        from blowbyblow.replay.evidence.proofs import witness_problem

        verdict, why = witness_problem(receipt, witnessing.log, witnessing.policy)
        return why if verdict == "cosigned" else ReceiptCheck(receipt, verdict, why)
    signer = f"signed by {receipt.public_key[:16]}…"
    if not signature_ok(receipt):
        return ReceiptCheck(
            receipt, "forged", "the receipt's signature does not hold: it proves nothing"
        )
    if trusted_keys is not None and receipt.public_key not in trusted_keys:
        return ReceiptCheck(receipt, "untrusted", f"{signer}, not a key you trust")
    return signer


def _check_one(
    battle: UUID,
    events: Sequence[LoggedEvent],
    unreadable: int | None,
    receipt: AnyReceipt,
    trust: _Trust,
) -> ReceiptCheck:
    p = receipt.position
    signer = _signer(receipt, trust)
    if isinstance(signer, ReceiptCheck):
        return signer
    if not events and unreadable is None:
        return ReceiptCheck(
            receipt,
            "missing",
            f"the receipt ({signer}) proves the battle had {p} events; it is not there at all",
        )
    if p > len(events):
        if unreadable is not None:
            return ReceiptCheck(
                receipt, "unreadable", f"the record at position {unreadable} cannot be read"
            )
        return ReceiptCheck(
            receipt,
            "truncated",
            f"the receipt ({signer}) proves the battle had at least {p} events; the log now has "
            f"{len(events)}: events were deleted",
        )
    broken = check_chain(battle, events[:p])
    if broken is not None:
        return ReceiptCheck(receipt, "chain", broken.describe())
    found = events[p - 1].hash.hex()
    if found != receipt.head:
        return ReceiptCheck(
            receipt,
            "rewritten",
            f"the log's head at position {p} is {found[:16]}…, the receipt ({signer}) says "
            f"{receipt.head[:16]}…: an event at or before it was changed, deleted or inserted "
            "and the chain recomputed",
        )
    return ReceiptCheck(receipt, HOLDS, f"events 1 to {p} are the ones receipted ({signer})")
