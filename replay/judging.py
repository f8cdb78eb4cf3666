"""What turns a log into evidence: signed checkpoints (seals) and provably fair dice.

- A *seal* is a checkpoint over a battle's length and last hash, signed with Ed25519. It is
  appended to the battle as ``BattleSealed`` (so the battle is closed to further commands) and
  kept as well in a seal record of its own beside the battle, so that deleting the battle's
  trailing events, the seal included, is still caught.
- *Fair mode*: at the start the battle records only a commitment to its dice seed,
  ``SHA-256("bxb-commit-v1" 0x00 seed)``; the seed is kept aside and revealed in the seal, and
  anyone can then recompute every digital die from it and the roll keys.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from blowbyblow.domain.core import BlowByBlowError, Event

CHECKPOINT_ALGORITHM = "bxb-checkpoint-v1"
COMMIT_ALGORITHM = "bxb-commit-v1"


class JudgingError(BlowByBlowError):
    pass


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


JUDGE_EVENT_TYPES: tuple[type[Event], ...] = (BattleSealed,)


def commitment(seed: str) -> str:
    return hashlib.sha256(f"{COMMIT_ALGORITHM}\x00{seed}".encode()).hexdigest()


def new_fair_seed() -> str:
    """The only unseeded randomness in blowbyblow: a fair battle's secret seed, made once at its
    start (never during adjudication) and revealed when the battle is sealed."""
    return secrets.token_hex(32)


def _signed_bytes(checkpoint: Checkpoint) -> bytes:
    return (
        CHECKPOINT_ALGORITHM.encode()
        + b"\x00"
        + msgspec.msgpack.Encoder(order="deterministic").encode(checkpoint)
    )


# --- keys ------------------------------------------------------------------------------------


def default_key_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "blowbyblow" / "keys"


def new_keys(directory: Path, name: str = "judge") -> tuple[Path, Path]:
    """Write NAME.key (private, PEM PKCS#8, mode 0600) and NAME.pub (hex) in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    private_path, public_path = directory / f"{name}.key", directory / f"{name}.pub"
    if private_path.exists():
        raise JudgingError(f"{private_path} exists already; not overwriting a signing key")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    public_path.write_text(public_hex(key) + "\n", encoding="ascii")
    return private_path, public_path


def public_hex(key: Ed25519PrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        .hex()
    )


def load_private_key(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError) as e:
        raise JudgingError(f"{path}: not a readable Ed25519 private key: {e}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise JudgingError(f"{path}: not an Ed25519 key")
    return key


def load_public_key(text_or_path: str) -> str:
    """A public key as hex, given the hex itself or a .pub file holding it."""
    candidate = text_or_path.strip()
    p = Path(candidate)
    if p.exists():
        candidate = p.read_text(encoding="ascii").strip()
    try:
        raw = bytes.fromhex(candidate)
        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise JudgingError(
            f"{text_or_path!r} is neither a hex Ed25519 public key nor a file holding one"
        ) from None
    return candidate.lower()


def seal(checkpoint: Checkpoint, key: Ed25519PrivateKey) -> BattleSealed:
    return BattleSealed(
        checkpoint=checkpoint,
        public_key=public_hex(key),
        signature=key.sign(_signed_bytes(checkpoint)).hex(),
    )


def signature_ok(sealed: BattleSealed) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(sealed.public_key)).verify(
            bytes.fromhex(sealed.signature), _signed_bytes(sealed.checkpoint)
        )
    except (InvalidSignature, ValueError):
        return False
    return True


class SeedVault:
    """Where a fair battle's seed waits, secret, until the seal reveals it: one file per battle
    (mode 0600) in a folder beside the store, or memory for an in-memory store."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._memory: dict[str, str] = {}

    def put(self, battle: str, seed: str) -> None:
        if self.directory is None:
            self._memory[battle] = seed
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.directory / battle, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(seed)

    def get(self, battle: str) -> str | None:
        if self.directory is None:
            return self._memory.get(battle)
        p = self.directory / battle
        return p.read_text(encoding="ascii").strip() if p.exists() else None
