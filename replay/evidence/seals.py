"""What turns a log into evidence: signed checkpoints (seals) and provably fair dice.

- A *seal* is a checkpoint over a battle's length and last hash, signed with Ed25519. It is
  appended to the battle as ``BattleSealed`` (so the battle is closed to further commands) and
  kept as well in a seal record of its own beside the battle, so that deleting the battle's
  trailing events, the seal included, is still caught.
- *Fair dice* (docs/dice.md, docs/judging.md): at the start the battle records only a commitment
  to the table's secret seed, ``SHA-256("bxb-commit-v1" 0x00 seed)``, and the seed itself
  encrypted to the judges' escrow keys (``SeedEscrowed``); then each side gives a value of its own
  (``ContributionGiven``); the dice come from the seed mixed with every contribution
  (``dice.FAIR_ALGORITHM``). The seal reveals the seed, and anyone can then recompute every die.
  ``replay.battles.fair_start`` starts fair battles, ``replay.evidence.fairness`` finds their
  dice; this module holds the keys and the escrow's cryptography.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import msgspec

from blowbyblow.domain.judging import (
    BattleSealed,
    Checkpoint,
    EscrowBox,
    SeedEscrowed,
)
from blowbyblow.domain.judging import JudgingError as JudgingError  # where callers look for it
from blowbyblow.replay.store.vault import private_folder, write_private

# cryptography is imported by the functions that sign, check or open something: this module's
# events are part of every battle's codec, and the commands that only read a battle (`bxb at`)
# are spared its import, about a twentieth of their whole run.
if TYPE_CHECKING:
    from cryptography.hazmat.primitives import hpke
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

CHECKPOINT_ALGORITHM = "bxb-checkpoint-v1"
COMMIT_ALGORITHM = "bxb-commit-v1"
ESCROW_ALGORITHM = "bxb-escrow-v1"


@cache
def _escrow_suite() -> hpke.Suite:
    """RFC 9180 HPKE, base mode: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305. The
    library makes a fresh ephemeral key for every box and binds ``info`` into the key schedule."""
    from cryptography.hazmat.primitives import hpke

    return hpke.Suite(hpke.KEM.X25519, hpke.KDF.HKDF_SHA256, hpke.AEAD.CHACHA20_POLY1305)


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
#
# A judge has ONE secret: an Ed25519 private key (NAME.key). It signs seals, and the judge's
# escrow key, the X25519 key fair battles' seeds are encrypted to, is derived from it
# (``bxb-escrow-key-v1``: HKDF-SHA256 over the Ed25519 private key's 32 raw bytes, info
# "bxb-escrow-key-v1", 32 bytes, taken as an X25519 private key). One file to guard, back up and
# carry to whatever machine seals; HKDF with its own label makes the escrow key independent of
# the signing key, so using one reveals nothing of the other. Two public keys are published:
# NAME.pub (hex, for `--public-key`) and NAME.escrow.pub (``x25519:HEX``, for `record --fair`).
# The escrow key is written with its ``x25519:`` tag so that a sealing key (bare hex of the same
# length) cannot be taken for it by mistake: a seed escrowed to that would be lost.

ESCROW_KEY_ALGORITHM = "bxb-escrow-key-v1"
ESCROW_KEY_TAG = "x25519:"


class KeyFiles(NamedTuple):
    private: Path  # NAME.key, PEM PKCS#8, 0600: the judge's one secret
    public: Path  # NAME.pub: the sealing public key, hex
    escrow: Path  # NAME.escrow.pub: the escrow public key, x25519:HEX


def default_key_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "blowbyblow" / "keys"


def new_keys(directory: Path, name: str = "judge") -> KeyFiles:
    """Write NAME.key (the private key, PEM PKCS#8, mode 0600, in a folder of mode 0700),
    NAME.pub and NAME.escrow.pub in ``directory``."""
    if not name or "/" in name or name.startswith(".") or not name.isprintable():
        raise JudgingError(f"--name: expected a plain file name such as judge, not {name!r}")
    private_folder(directory, ours=directory == default_key_dir())
    files = key_files(directory / f"{name}.key")
    if files.private.exists():
        raise JudgingError(f"{files.private} exists already; not overwriting a signing key")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    write_private(files.private, pem)
    write_public_keys(files, key)
    return files


def key_files(private: Path) -> KeyFiles:
    """The files of the key pair whose private key is ``private`` (NAME.key)."""
    if not private.name or private.is_dir():
        raise JudgingError(f"--key {str(private)!r}: expected a private key file such as judge.key")
    stem = private.name.removesuffix(".key")
    return KeyFiles(
        private=private,
        public=private.with_name(f"{stem}.pub"),
        escrow=private.with_name(f"{stem}.escrow.pub"),
    )


def write_public_keys(files: KeyFiles, key: Ed25519PrivateKey) -> None:
    """(Re)write the two public key files of ``key`` (mode 0644 whatever the umask: anyone may
    read them, only the judge may change them); they can always be made again from it."""
    _write_public(files.public, public_hex(key))
    _write_public(files.escrow, escrow_public_text(escrow_key(key)))


def _write_public(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.fchmod(fd, 0o644)
        os.write(fd, (text + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)


def public_hex(key: Ed25519PrivateKey) -> str:
    from cryptography.hazmat.primitives import serialization

    return (
        key.public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        .hex()
    )


def escrow_key(key: Ed25519PrivateKey) -> X25519PrivateKey:
    """The judge's escrow key, derived from the signing key (``bxb-escrow-key-v1``)."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    raw = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    derived = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=ESCROW_KEY_ALGORITHM.encode()
    ).derive(raw)
    return X25519PrivateKey.from_private_bytes(derived)


def escrow_public_hex(key: X25519PrivateKey) -> str:
    from cryptography.hazmat.primitives import serialization

    return (
        key.public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        .hex()
    )


def escrow_public_text(key: X25519PrivateKey) -> str:
    """The escrow public key as it is published and given to `record --fair`: x25519:HEX."""
    return ESCROW_KEY_TAG + escrow_public_hex(key)


_MAX_KEY_FILE = 64 * 1024  # a PEM private key is a few hundred bytes


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The judge's private key in ``path`` (PEM PKCS#8, no password, as `bxb keys new` writes
    it); anything else is a JudgingError saying what the file is and what was expected."""
    expected = "expected the unencrypted Ed25519 PEM file `bxb keys new` writes (NAME.key)"
    if not str(path) or path.is_dir():
        raise JudgingError(f"--key {str(path)!r} is not a file; {expected}")
    try:
        with path.open("rb") as f:
            data = f.read(_MAX_KEY_FILE + 1)
    except OSError as e:
        raise JudgingError(f"{path}: cannot be read ({e.strerror or e}); {expected}") from None
    if len(data) > _MAX_KEY_FILE:
        raise JudgingError(f"{path}: larger than {_MAX_KEY_FILE} bytes; {expected}")
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:  # the library's word for "this key is encrypted and no password was given"
        raise JudgingError(
            f"{path}: the key is protected by a password; {expected}: decrypt it first "
            f"(`openssl pkey -in {path} -out plain.key`) and keep that file private"
        ) from None
    except (ValueError, UnsupportedAlgorithm) as e:
        reason = str(e).split(". See ")[0]  # the library adds a link to its FAQ
        raise JudgingError(f"{path}: not a readable private key ({reason}); {expected}") from None
    if not isinstance(key, Ed25519PrivateKey):
        kind = type(key).__name__.removesuffix("PrivateKey")
        raise JudgingError(f"{path}: not an Ed25519 key but {kind}; {expected}")
    return key


def _key_text(text_or_path: str) -> str:
    candidate = text_or_path.strip()
    p = Path(candidate)
    if candidate and p.is_file():
        try:
            candidate = p.read_text(encoding="ascii").strip()
        except UnicodeDecodeError:  # the codec's own words name a byte, not the fault
            raise JudgingError(
                f"{text_or_path}: not a key file: it holds bytes that are not text; expected a "
                "public key file `bxb keys new` writes (one line, the key in hex)"
            ) from None
        except OSError as e:
            raise JudgingError(f"{text_or_path}: cannot read a key from it: {e}") from None
    return candidate


def load_public_key(text_or_path: str) -> str:
    """A sealing public key as hex, given the hex itself or a .pub file holding it."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    candidate = _key_text(text_or_path)
    try:
        raw = bytes.fromhex(candidate)
        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        if _names_a_file(text_or_path):  # a path mistyped, or the key kept elsewhere
            raise JudgingError(
                f"{text_or_path}: no such file; expected a hex Ed25519 public key or the "
                "NAME.pub file `bxb keys new` writes (it says where)"
            ) from None
        raise JudgingError(
            f"{text_or_path!r} is neither a hex Ed25519 public key nor a file holding one"
        ) from None
    return candidate.lower()


def _names_a_file(text: str) -> bool:
    """Whether ``text``, not a file there, reads as a path to one (a folder in it, or .pub)."""
    path = Path(text.strip())
    return not path.exists() and ("/" in text or path.suffix == ".pub")


def load_escrow_public_key(text_or_path: str) -> str:
    """A judge's escrow public key as hex, given x25519:HEX or a NAME.escrow.pub file."""
    candidate = _key_text(text_or_path)
    expected = "expected the judge's escrow key, x25519:HEX, or a NAME.escrow.pub file holding it"
    if not candidate.lower().startswith(ESCROW_KEY_TAG):
        hint = " (that is a sealing key, NAME.pub)" if _is_hex32(candidate) else ""
        raise JudgingError(f"{text_or_path!r} is not an escrow key{hint}: {expected}")
    hex_part = candidate[len(ESCROW_KEY_TAG) :].lower()
    if not _is_hex32(hex_part):
        raise JudgingError(f"{text_or_path!r}: {expected} (64 hex digits after x25519:)")
    return hex_part


def _is_hex32(text: str) -> bool:
    try:
        return len(bytes.fromhex(text)) == 32
    except ValueError:
        return False


def seal(checkpoint: Checkpoint, key: Ed25519PrivateKey) -> BattleSealed:
    return BattleSealed(
        checkpoint=checkpoint,
        public_key=public_hex(key),
        signature=key.sign(_signed_bytes(checkpoint)).hex(),
    )


def signature_ok(sealed: BattleSealed) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(sealed.public_key)).verify(
            bytes.fromhex(sealed.signature), _signed_bytes(sealed.checkpoint)
        )
    except (InvalidSignature, ValueError):
        return False
    return True


# --- escrow ----------------------------------------------------------------------------------


def _escrow_info(battle: str, commitment_hex: str) -> bytes:
    """What binds a box to its battle: a box copied into another battle does not open."""
    return f"{ESCROW_ALGORITHM}\x00{battle}\x00{commitment_hex}".encode()


def escrow_seed(seed: str, battle: str, commitment_hex: str, judges: list[str]) -> SeedEscrowed:
    """``seed`` encrypted to each judge's escrow key (hex), for the battle ``battle``."""
    if not judges:
        raise JudgingError("a fair battle's seed must be escrowed to at least one judge's key")
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

    info = _escrow_info(battle, commitment_hex)
    boxes = []
    for judge in dict.fromkeys(judges):
        public = X25519PublicKey.from_public_bytes(bytes.fromhex(judge))
        sealed = _escrow_suite().encrypt(seed.encode("ascii"), public, info=info)
        boxes.append(EscrowBox(judge=judge, sealed=sealed.hex()))
    return SeedEscrowed(algorithm=ESCROW_ALGORITHM, boxes=tuple(boxes))


def open_escrow(
    escrowed: SeedEscrowed, battle: str, commitment_hex: str, key: Ed25519PrivateKey
) -> str:
    """The seed in ``escrowed``, opened with the judge's key; it must match the commitment."""
    if escrowed.algorithm != ESCROW_ALGORITHM:
        raise JudgingError(f"unknown escrow algorithm {escrowed.algorithm!r}")
    mine = escrow_key(key)
    me = escrow_public_hex(mine)
    box = next((b for b in escrowed.boxes if b.judge == me), None)
    if box is None:
        to = ", ".join(ESCROW_KEY_TAG + b.judge[:16] + "…" for b in escrowed.boxes) or "no key"
        raise JudgingError(
            f"the seed of battle {battle} is escrowed to {to}, not to your key "
            f"({ESCROW_KEY_TAG}{me[:16]}…)"
        )
    from cryptography.exceptions import InvalidTag

    try:
        seed = (
            _escrow_suite()
            .decrypt(bytes.fromhex(box.sealed), mine, info=_escrow_info(battle, commitment_hex))
            .decode("ascii")
        )
    except (InvalidTag, ValueError, UnicodeDecodeError):
        raise JudgingError(
            f"the escrowed seed of battle {battle} does not open with your key: "
            "the escrow was altered, or made for another battle"
        ) from None
    if commitment(seed) != commitment_hex:
        raise JudgingError(
            f"the escrowed seed of battle {battle} does not match the commitment made at its "
            "start: the escrow was altered"
        )
    return seed
