"""The engine's own events, beside the game systems': what judges and fair dice add to a battle's
log. A seal (``BattleSealed``) closes a battle with a signed checkpoint; a fair battle records
its seed escrowed to the judges (``SeedEscrowed``) and each side's contribution
(``ContributionGiven``). Pure data: signing, checking and opening them is the evidence room's
work (``replay/evidence/``)."""

from __future__ import annotations

import msgspec

from blowbyblow.domain.core import BlowByBlowError, Event


class Checkpoint(msgspec.Struct, frozen=True, kw_only=True):
    """What a seal signs: the battle, how many events precede the seal, the hash of the last of
    them, and (fair mode) the revealed dice seed."""

    algorithm: str
    battle: str
    length: int
    last_hash: str  # hex
    seed: str | None = None


class BattleSealed(Event, frozen=True, kw_only=True):
    """The battle is closed: its checkpoint, signed."""

    checkpoint: Checkpoint
    public_key: str  # hex of the raw 32-byte Ed25519 public key
    signature: str  # hex


class EscrowBox(msgspec.Struct, frozen=True, kw_only=True):
    """The seed encrypted to one judge's escrow key."""

    judge: str  # hex of the judge's X25519 escrow public key
    sealed: str  # hex of HPKE's encapsulated key followed by the ciphertext


class SeedEscrowed(Event, frozen=True, kw_only=True):
    """Position 2 of a fair battle: its secret seed, readable only with a judge's private key
    (``bxb-escrow-v1``, docs/judging.md), so whoever seals it can reveal it from the store."""

    algorithm: str
    boxes: tuple[EscrowBox, ...]


class ContributionGiven(Event, frozen=True, kw_only=True):
    """A side's own value, given after the seed was committed: the dice depend on it."""

    side: str
    value: str


class JudgingError(BlowByBlowError):
    """A seal, a key, an escrow or a kept secret that cannot be made, read or trusted."""


JUDGE_EVENT_TYPES: tuple[type[Event], ...] = (BattleSealed, SeedEscrowed, ContributionGiven)


__all__ = [
    "JUDGE_EVENT_TYPES",
    "BattleSealed",
    "Checkpoint",
    "ContributionGiven",
    "EscrowBox",
    "JudgingError",
    "SeedEscrowed",
]
