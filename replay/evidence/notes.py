"""Checkpoints of the tournament's tree as C2SP signed notes, and witnesses' cosignatures on them
(c2sp.org/signed-note, c2sp.org/tlog-checkpoint, c2sp.org/tlog-cosignature, Ed25519 kind).

Written by hand: the formats are a few lines of text and two hashes, and no well-kept Python
implementation was found (Go's golang.org/x/mod/sumdb/note is the reference; sigstore-python
keeps its checkpoint parsing internal; the one PyPI package that names these specifications is a
month old and not on the package index this project installs from). ``tests/evidence/
test_witness.py`` checks it against the examples and rules the specifications give.

- A checkpoint's body is three lines, each ending in a newline: the log's *origin* (its name),
  the tree's size in decimal, its root hash in base64 (RFC 4648 §4).
- A signed note is the body, an empty line, then signature lines ``— NAME BASE64`` (an em dash,
  U+2014), where BASE64 holds a 4-byte key ID and the signature. The log signs the body itself
  (Ed25519, key ID ``SHA-256(NAME ‖ 0x0A ‖ 0x01 ‖ public key)[:4]``).
- A cosignature (``cosignature/v1``) is a witness's Ed25519 signature over ``"cosignature/v1\\n"
  ‖ "time " ‖ T ‖ "\\n" ‖ body``, T the POSIX time it was made; its line holds the key ID
  ``SHA-256(NAME ‖ 0x0A ‖ 0x04 ‖ public key)[:4]``, T as 8 bytes big-endian, then the 64-byte
  signature. It says: as of T, the largest tree of this log the witness has seen, and checked
  consistent with every earlier one it cosigned, has this root."""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.evidence.seals import public_hex

DASH = "\u2014"  # the em dash that starts a note's signature line
NOTE_SIGNATURE = 0x01  # the key ID's type byte of an Ed25519 note signature (the log's)
COSIGNATURE_V1 = 0x04  # ... and of an Ed25519 cosignature/v1 (a witness's)
MAX_NAME = 255  # characters of a log's or a witness's name (an origin is a short URL-like name)
MAX_NOTE_BYTES = 1 << 20  # far more than any checkpoint with its cosignatures needs


class NoteError(BlowByBlowError):
    pass


@dataclass(frozen=True)
class Checkpoint:
    """A log's tree at one size: its origin (the log's name), size and root hash."""

    origin: str
    size: int
    root: bytes

    def body(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"


@dataclass(frozen=True)
class SignatureLine:
    """One signature line of a note: who signed (name), with which key (key ID), and the rest."""

    name: str
    key_id: bytes
    signature: bytes  # after the key ID: a note signature, or a cosignature's time and signature

    def line(self) -> str:
        return f"{DASH} {self.name} {base64.b64encode(self.key_id + self.signature).decode()}\n"


@dataclass(frozen=True)
class Note:
    body: str
    signatures: tuple[SignatureLine, ...]

    def text(self) -> str:
        return self.body + "\n" + "".join(s.line() for s in self.signatures)


def key_id(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def _raw(key: Ed25519PrivateKey) -> bytes:
    return bytes.fromhex(public_hex(key))


def check_name(name: str, what: str = "name") -> str:
    """A key name as a note allows it: printable, no spaces, no plus sign."""
    if (
        not name
        or len(name) > MAX_NAME
        or not name.isprintable()
        or any(c.isspace() or c == "+" for c in name)
    ):
        raise NoteError(
            f"{what}: expected a name of 1 to {MAX_NAME} characters without spaces or '+', "
            "such as example.org/w1"
        )
    return name


def vkey(name: str, kind: int, public: bytes) -> str:
    """The verifier key text a note's reader is given: ``NAME+KEYID(hex)+BASE64(kind ‖ key)``."""
    kid = key_id(name, kind, public).hex()
    return f"{name}+{kid}+{base64.b64encode(bytes([kind]) + public).decode()}"


@dataclass(frozen=True)
class Verifier:
    """Whose signature a reader accepts: a name, an Ed25519 public key, and the kind of
    signature (``NOTE_SIGNATURE`` for the log's, ``COSIGNATURE_V1`` for a witness's)."""

    name: str
    public: bytes
    kind: int

    @property
    def key_id(self) -> bytes:
        return key_id(self.name, self.kind, self.public)

    def vkey(self) -> str:
        return vkey(self.name, self.kind, self.public)


def parse_vkey(text: str) -> Verifier:
    """A verifier key ``NAME+KEYID+BASE64(kind ‖ key)`` (kind 0x01 or 0x04, Ed25519)."""
    parts = text.strip().split("+", 2)  # a name has no '+'; base64 may
    expected = "expected a verifier key NAME+KEYID+BASE64, as `bxb witness key` prints"
    if len(parts) != 3:
        raise NoteError(f"{text[:80]!r}: {expected}")
    name, kid, rest = parts
    try:
        raw = base64.b64decode(rest, validate=True)
    except binascii.Error:
        raise NoteError(f"{text[:80]!r}: {expected}") from None
    if len(raw) != 33 or raw[0] not in (NOTE_SIGNATURE, COSIGNATURE_V1):
        raise NoteError(f"{text[:80]!r}: not an Ed25519 note or cosignature key; {expected}")
    verifier = Verifier(check_name(name), raw[1:], raw[0])
    if verifier.key_id.hex() != kid.lower():
        raise NoteError(f"{text[:80]!r}: its key ID does not match its name and key")
    return verifier


def parse_checkpoint(body: str) -> Checkpoint:
    lines = body.split("\n")
    if len(lines) < 4 or lines[-1] != "" or any(not x for x in lines[:-1]):
        raise NoteError("a checkpoint's body is origin, size and root, each on a line of its own")
    origin, size, root = lines[0], lines[1], lines[2]
    if (
        not (size.isascii() and size.isdigit())
        or (size != "0" and size.startswith("0"))
        or len(size) > 19
    ):
        raise NoteError(f"checkpoint size: expected a decimal number, not {size[:40]!r}")
    try:
        raw = base64.b64decode(root, validate=True)
    except binascii.Error:
        raw = b""
    if len(raw) != 32:
        raise NoteError(f"checkpoint root: expected a 32-byte hash in base64, not {root[:60]!r}")
    return Checkpoint(origin=origin, size=int(size), root=raw)


def parse_note(text: str) -> Note:
    """A signed note: its body (ending in a newline), an empty line, one or more signature
    lines. NoteError naming what is wrong."""
    if len(text.encode()) > MAX_NOTE_BYTES:
        raise NoteError(f"a note is at most {MAX_NOTE_BYTES} bytes")
    body, sep, rest = text.partition("\n\n")
    if not sep or not rest.endswith("\n"):
        raise NoteError("a note is its text, an empty line, then its signature lines")
    signatures = tuple(parse_signature_line(x) for x in rest[:-1].split("\n"))
    return Note(body + "\n", signatures)


def parse_signature_line(line: str) -> SignatureLine:
    parts = line.split(" ")
    if len(parts) != 3 or parts[0] != DASH:
        raise NoteError(f"expected a signature line '{DASH} NAME BASE64', not {line[:80]!r}")
    try:
        raw = base64.b64decode(parts[2], validate=True)
    except binascii.Error:
        raise NoteError(f"signature of {parts[1]!r}: not base64") from None
    if len(raw) < 5:
        raise NoteError(f"signature of {parts[1]!r}: too short")
    return SignatureLine(check_name(parts[1]), raw[:4], raw[4:])


# --- signing ------------------------------------------------------------------------------------


def sign_checkpoint(checkpoint: Checkpoint, name: str, key: Ed25519PrivateKey) -> Note:
    """The log's own signed note of ``checkpoint``."""
    body = checkpoint.body()
    kid = key_id(name, NOTE_SIGNATURE, _raw(key))
    return Note(body, (SignatureLine(name, kid, key.sign(body.encode())),))


def cosigned_message(body: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n{body}".encode()


def cosign(body: str, name: str, key: Ed25519PrivateKey, timestamp: int) -> SignatureLine:
    """A witness's cosignature/v1 line on a checkpoint's body."""
    if not 0 <= timestamp < 2**63:
        raise NoteError(f"a cosignature's time is 0 to 2^63-1, not {timestamp}")
    signature = key.sign(cosigned_message(body, timestamp))
    kid = key_id(name, COSIGNATURE_V1, _raw(key))
    return SignatureLine(name, kid, timestamp.to_bytes(8, "big") + signature)


# --- checking -----------------------------------------------------------------------------------


def _valid(public: bytes, signature: bytes, message: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def signed_by(note: Note, verifier: Verifier) -> int | None:
    """Whether ``verifier`` signed ``note``: for a log key, 0 when its signature holds; for a
    witness, the time of its cosignature that holds; None when there is none. Lines of other
    names or key IDs are ignored, as the specification says."""
    for sig in note.signatures:
        if sig.name != verifier.name or sig.key_id != verifier.key_id:
            continue
        if verifier.kind == NOTE_SIGNATURE:
            if len(sig.signature) == 64 and _valid(
                verifier.public, sig.signature, note.body.encode()
            ):
                return 0
        elif len(sig.signature) == 72:
            when = int.from_bytes(sig.signature[:8], "big")
            message = cosigned_message(note.body, when)
            if when < 2**63 and _valid(verifier.public, sig.signature[8:], message):
                return when
    return None


def cosigners(note: Note, witnesses: Sequence[Verifier]) -> list[str]:
    """The names of the ``witnesses`` whose cosignature on ``note`` holds."""
    return [w.name for w in witnesses if signed_by(note, w) is not None]
