"""Evidence a player or an organiser keeps outside the store: ``bxb receipt`` (a signed receipt
for a battle's chain head), ``bxb root`` (the tournament's Merkle root over every battle's head,
inclusion and consistency proofs; with ``--witnesses``, the root as a checkpoint cosigned by the
policy's quorum of witnesses) and ``bxb check-proof`` (a kept proof checked with no store, and
with ``--checkpoint`` its root's cosignatures).
``bxb verify --receipt`` uses ``load_receipts`` and ``show_receipts`` from here, ``bxb verify
--checkpoint`` ``show_checkpoint``."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated
from uuid import UUID

import msgspec
import typer

from blowbyblow.cli.app import STDIO, KeyOption, _battle, app, fail, open_store, unreadable
from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.evidence.merkle import (
    Head,
    MerkleError,
    TreeHead,
    battle_heads,
    check_proof,
    parse_tree_head,
    prove_consistency,
    prove_inclusion,
    tree_head,
)
from blowbyblow.replay.evidence.receipts import (
    AnyReceipt,
    Receipt,
    ReceiptError,
    Witnessing,
    check_receipts,
    parse_receipts,
    receipt_for,
)
from blowbyblow.replay.evidence.seals import default_key_dir, load_private_key, load_public_key
from blowbyblow.replay.store.log import BattleStore, LoggedEvent

if TYPE_CHECKING:  # imported when a root is witnessed
    from blowbyblow.replay.evidence.witness import Policy

_MAX_FILE = 16 * 1024 * 1024  # a receipt or proof file is small; refuse to read a huge one


def _read_text(path: Path, what: str) -> str:
    """A small text file's text, or standard input's for ``-``."""
    if str(path) == STDIO:
        raw = sys.stdin.buffer.read(_MAX_FILE + 1)
        if len(raw) > _MAX_FILE:
            fail(f"{what} -: larger than {_MAX_FILE // (1024 * 1024)} MiB; expected a small text")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            fail(f"{what} -: standard input is not UTF-8 text")
    try:
        if path.stat().st_size > _MAX_FILE:
            fail(
                f"{what} {path}: larger than {_MAX_FILE // (1024 * 1024)} MiB; expected a small text file"
            )
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        fail(f"{what} {path}: not UTF-8 text")
    except OSError as e:
        fail(f"{what} {path}: cannot read: {e.strerror}")


# --- receipts ----------------------------------------------------------------------------------


def load_receipts(files: Sequence[Path]) -> list[AnyReceipt]:
    """Every receipt in ``files`` (``--receipt``): lines of receipts, or one witnessed receipt
    (``bxb root --proof BATTLE --checkpoint FILE``); a bad one ends in one error naming it."""
    from blowbyblow.replay.evidence.proofs import (
        ProofError,
        is_witnessed_receipt,
        parse_witnessed_receipt,
    )

    receipts: list[AnyReceipt] = []
    for path in files:
        text = _read_text(path, "--receipt")
        if is_witnessed_receipt(text):
            try:
                receipts.append(parse_witnessed_receipt(text))
            except ProofError as e:
                fail(f"--receipt {path}: not a witnessed receipt: {e}", code=1)
            continue
        try:
            found = parse_receipts(text)
        except ReceiptError as e:
            fail(
                f"--receipt {path}: {e} (expected one receipt per line, as `bxb receipt` prints)",
                code=1,
            )
        if not found:  # a file that proves nothing must not let the verdict read as held
            fail(
                f"--receipt {path}: no receipt in it (expected one receipt per line, as "
                "`bxb receipt` prints)",
                code=1,
            )
        receipts.extend(found)
    return receipts


def witnessing(
    log_key: str | None, witnesses: Path | None, receipts: Sequence[AnyReceipt], checkpoint: bool
) -> Witnessing | None:
    """``--log-key`` and ``--witnesses``, parsed, for a checkpoint or witnessed receipts; one
    error line when they are missing where needed, or given with nothing to check."""
    from blowbyblow.replay.evidence.notes import NOTE_SIGNATURE, NoteError, parse_vkey

    cosigned = sum(not isinstance(r, Receipt) for r in receipts)
    if log_key is None and witnesses is None:
        if checkpoint:
            fail("--checkpoint, --log-key and --witnesses go together")
        if cosigned:
            fail(
                f"--receipt: {cosigned} witnessed receipt(s): give --log-key (the log's key) and "
                "--witnesses (the policy) to check their cosignatures"
            )
        return None
    if log_key is None or witnesses is None:
        fail("--log-key and --witnesses go together: the log's key, and the witness policy")
    if not checkpoint and not cosigned:
        fail(
            "--log-key and --witnesses check a --checkpoint or witnessed receipts "
            "(`bxb root --proof BATTLE --checkpoint FILE`); neither is given"
        )
    try:
        log = parse_vkey(log_key)
    except NoteError as e:
        fail(f"--log-key: {e}")
    if log.kind != NOTE_SIGNATURE:
        fail("--log-key: expected a log's key (`bxb witness log-key`), not a witness's")
    return Witnessing(log=log, policy=read_policy(witnesses, "--witnesses"))


def receipt_keys(keys: Sequence[str] | None) -> frozenset[str] | None:
    if not keys:
        return None
    try:
        return frozenset(load_public_key(k) for k in keys)
    except BlowByBlowError as e:
        fail(f"--receipt-key: {e}")


def show_receipts(
    checked: BattleStore | Sequence[LoggedEvent],
    receipts: Sequence[AnyReceipt],
    trusted: frozenset[str] | None,
    only: UUID | None = None,
    witnessed: Witnessing | None = None,
) -> bool:
    """Print what each receipt proves of the store (or one battle's events); True if none
    contradicts the log. ``only``: check this battle's receipts, skip the others."""
    if not receipts:
        return True
    chosen = [r for r in receipts if only is None or r.battle == str(only)]
    if not chosen:  # receipts that all speak of other battles prove nothing of this one
        typer.echo(
            f"receipt FAILED: none of the {len(receipts)} receipts given is of battle {only}"
        )
        return False
    report = check_receipts(checked, chosen, trusted_keys=trusted, witnessing=witnessed)
    for check in report.checks:
        typer.echo(check.describe())
    skipped = len(receipts) - len(chosen) + sum(c.verdict == "skipped" for c in report.checks)
    held = sum(c.verdict == "holds" for c in report.checks)
    cosigned = sum(
        c.verdict == "holds" and not isinstance(c.receipt, Receipt) for c in report.checks
    )
    typer.echo(
        f"{held} of {len(receipts) - skipped} receipts hold"
        + (f", {cosigned} of them witnessed" if cosigned else "")
        + (f" ({skipped} of other battles skipped)" if skipped else "")
    )
    return report.ok


@app.command("receipt")
def cmd_receipt(
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, prefix or label (default: the latest).")
    ] = None,
    key: KeyOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="The receipt as JSON.")] = False,
) -> None:
    """Sign the battle's chain head as it is now: a receipt a player keeps to prove later what
    the log held (`bxb verify --receipt FILE`)."""
    store = open_store()
    bid = _battle(store, battle)
    try:
        signed = receipt_for(store, bid, load_private_key(key or default_key_dir() / "judge.key"))
    except BlowByBlowError as e:
        fail(str(e))
    typer.echo(signed.json() if as_json else signed.text())


# --- the tournament's Merkle root -------------------------------------------------------------


def _published(text_or_path: str, what: str) -> TreeHead:
    path = Path(text_or_path)
    text = _read_text(path, what) if path.is_file() or text_or_path == STDIO else text_or_path
    try:
        return parse_tree_head(text)
    except MerkleError as e:
        fail(f"{what}: {e}")


def _print_tree(store: BattleStore, tree: TreeHead) -> None:
    labels = {str(b.battle): b.label for b in store.battles()}
    typer.echo(f"tournament root over {tree.size} battles (publish this line):")
    typer.echo(tree.line())
    for i, leaf in enumerate(tree.leaves):
        typer.echo(
            f"{i:>5}  {leaf.battle} {labels.get(leaf.battle, '')!r}: {leaf.events} events, "
            f"head {leaf.head[:16]}…"
        )


@app.command("root")
def cmd_root(  # noqa: PLR0913 - typer makes each parameter a command-line option
    battles: Annotated[
        list[str] | None,
        typer.Argument(
            help="The tournament's battles (id, prefix or label), in order "
            "(default: every battle in the store, in the order recorded)."
        ),
    ] = None,
    proof: Annotated[
        str | None,
        typer.Option("--proof", help="Print the inclusion proof of this battle's head."),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            help="A root published earlier ('bxb-root-v1 SIZE ROOT', or the file `bxb root --json` "
            "wrote, or - to read it from standard input): check the store still gives it and print "
            "the consistency proof to today's root.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="JSON (the root with its leaves).")
    ] = False,
    witnesses: Annotated[
        Path | None,
        typer.Option(
            "--witnesses",
            help="A witness policy file ('witness KEY URL' lines, 'quorum N'): sign the root as "
            "a checkpoint of --origin with --key, ask each witness to cosign it, and print it "
            "only when the quorum did.",
        ),
    ] = None,
    origin: Annotated[
        str | None,
        typer.Option("--origin", help="With --witnesses: the log's name, e.g. club.example/root."),
    ] = None,
    key: KeyOption = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(
            "--checkpoint",
            help="With --proof: the cosigned checkpoint `bxb root --witnesses` printed; print the "
            "battle's witnessed receipt in it (C2SP tlog-proof) for the table to keep.",
        ),
    ] = None,
) -> None:
    """The tournament's Merkle root (RFC 9162) over every battle's head: one line to publish per
    round that commits to every table's log. Exit 1 when the store no longer gives a root
    published earlier (--since), or when fewer witnesses than the policy's quorum cosigned it
    (--witnesses)."""
    store = open_store()
    chosen = [_battle(store, b) for b in battles] if battles else None
    try:
        heads = battle_heads(store, chosen)
    except BlowByBlowError as e:
        unreadable(e, code=1)
    if not heads:
        fail("the store holds no battles yet (try `bxb demo`)")
    if proof is not None:
        if checkpoint is not None:
            typer.echo(_witnessed_receipt(heads, _battle(store, proof), checkpoint), nl=False)
            return
        try:
            inclusion = prove_inclusion(heads, _battle(store, proof))
        except MerkleError as e:
            fail(str(e))
        typer.echo(msgspec_json(inclusion))
        return
    if checkpoint is not None:
        fail("--checkpoint goes with --proof BATTLE: the battle whose witnessed receipt to print")
    if since is not None:
        try:
            consistency = prove_consistency(heads, _published(since, "--since"))
        except MerkleError as e:
            typer.echo(f"root FAILED: {e}", err=True)
            raise typer.Exit(1) from None
        typer.echo(msgspec_json(consistency))
        return
    if witnesses is not None or origin is not None:
        _publish_witnessed(heads, witnesses, origin, key)
        return
    tree = tree_head(heads)
    if as_json:
        typer.echo(msgspec_json(tree))
    else:
        _print_tree(store, tree)


def _witnessed_receipt(heads: list[Head], battle: UUID, checkpoint: Path) -> str:
    """The witnessed receipt of ``battle`` in the cosigned checkpoint: the store's first battles
    must still give its root (a battle that went on since changed its leaf)."""
    from blowbyblow.replay.evidence.notes import NoteError, parse_checkpoint, parse_note
    from blowbyblow.replay.evidence.proofs import ProofError, witnessed_receipt

    try:
        note = parse_note(_read_text(checkpoint, "--checkpoint"))
        size = parse_checkpoint(note.body).size
        return witnessed_receipt(heads[:size], battle, note).text()
    except (NoteError, ProofError) as e:
        fail(f"--checkpoint {checkpoint}: {e}", code=1)


def read_policy(path: Path, what: str) -> Policy:
    from blowbyblow.replay.evidence.witness import WitnessError, parse_policy

    try:
        return parse_policy(_read_text(path, what))
    except WitnessError as e:
        fail(f"{what} {path}: {e}")


def _publish_witnessed(
    heads: list[Head], witnesses: Path | None, origin: str | None, key: Path | None
) -> None:
    """The root as a checkpoint cosigned by the policy's quorum of witnesses, on standard output;
    what each witness said on standard error."""
    from blowbyblow.replay.evidence.notes import NoteError, check_name
    from blowbyblow.replay.evidence.witness import WitnessError, publish_root

    if witnesses is None or origin is None:
        fail("--witnesses and --origin go together: the policy, and the log's name")
    try:
        check_name(origin, "--origin")
    except NoteError as e:
        fail(str(e))
    policy = read_policy(witnesses, "--witnesses")
    try:
        signing = load_private_key(key or default_key_dir() / "judge.key")
    except BlowByBlowError as e:
        fail(str(e))
    try:
        published = publish_root(heads, origin, signing, policy)
    except WitnessError as e:
        typer.echo(f"root FAILED: {e}", err=True)
        raise typer.Exit(1) from None
    for name, said in published.said.items():
        typer.echo(f"witness {name}: {said}", err=True)
    typer.echo(published.note.text(), nl=False)


def msgspec_json(obj: object) -> str:
    return msgspec.json.encode(obj, order="sorted").decode()


@app.command("check-proof")
def cmd_check_proof(
    file: Annotated[
        Path,
        typer.Argument(
            help="A proof `bxb root --proof` or `--since` printed, or a witnessed receipt "
            "(`bxb root --proof BATTLE --checkpoint FILE`) (-: standard input)."
        ),
    ],
    root: Annotated[
        str | None,
        typer.Option(
            "--root", help="The published root it must be against ('bxb-root-v1 SIZE ROOT')."
        ),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(
            "--checkpoint",
            help="The cosigned checkpoint `bxb root --witnesses` printed: the proof must be "
            "against its root, signed by --log-key and cosigned by the quorum of --witnesses.",
        ),
    ] = None,
    log_key: Annotated[
        str | None,
        typer.Option("--log-key", help="The log's key (`bxb witness log-key` printed it)."),
    ] = None,
    witnesses: Annotated[
        Path | None,
        typer.Option("--witnesses", help="The witness policy the checkpoint must meet."),
    ] = None,
) -> None:
    """Check a kept inclusion or consistency proof with no store; with --checkpoint, the root
    it is against must be one the policy's quorum of witnesses cosigned. A witnessed receipt
    carries its checkpoint: --log-key and --witnesses check its signature, its cosignatures and
    the battle's place in it. Exit 1 if it does not hold."""
    from blowbyblow.replay.evidence.proofs import is_witnessed_receipt

    text = _read_text(file, "proof")
    if is_witnessed_receipt(text):
        if root is not None:
            fail("--root: a witnessed receipt carries its own checkpoint; give --checkpoint")
        _check_witnessed_receipt(text, checkpoint, log_key, witnesses)
        return
    published = _published(root, "--root") if root is not None else None
    if checkpoint is not None or log_key is not None or witnesses is not None:
        if published is not None:
            fail("--root or --checkpoint: give one root the proof must be against")
        chosen = witnessing(log_key, witnesses, [], checkpoint is not None)
        assert chosen is not None and checkpoint is not None
        published = _witnessed(checkpoint, chosen)
    try:
        said = check_proof(text, published)
    except MerkleError as e:
        typer.echo(f"proof FAILED: {e}")
        raise typer.Exit(1) from None
    typer.echo(f"proof OK: {said}")


def _check_witnessed_receipt(
    text: str, checkpoint: Path | None, log_key: str | None, witnesses: Path | None
) -> None:
    """``bxb check-proof`` of a witnessed receipt: the log's signature, the policy's quorum of
    cosignatures and the inclusion of the battle's head; with --checkpoint, the same root."""
    from blowbyblow.replay.evidence.proofs import (
        ProofError,
        parse_witnessed_receipt,
        witness_problem,
    )

    try:
        receipt = parse_witnessed_receipt(text)
    except ProofError as e:
        fail(f"proof: not a witnessed receipt: {e}", code=1)
    chosen = witnessing(log_key, witnesses, [receipt], checkpoint is not None)
    assert chosen is not None
    if checkpoint is not None:
        published = _witnessed(checkpoint, chosen)
        cp = receipt.checkpoint
        if (published.size, published.root) != (cp.size, cp.root.hex()):
            typer.echo(
                f"proof FAILED: the receipt's checkpoint is of {cp.size} battles with root "
                f"{cp.root.hex()[:16]}…, not the checkpoint given ({published.size} battles, "
                f"root {published.root[:16]}…)"
            )
            raise typer.Exit(1)
    verdict, why = witness_problem(receipt, chosen.log, chosen.policy)
    if verdict != "cosigned":
        typer.echo(f"proof FAILED: witnessed receipt of battle {receipt.battle}: {verdict}: {why}")
        raise typer.Exit(1)
    typer.echo(
        f"proof OK: battle {receipt.battle} with {receipt.position} events (head "
        f"{receipt.head[:16]}…) is leaf {receipt.index} {why}"
    )


def _witnessed(checkpoint: Path, chosen: Witnessing) -> TreeHead:
    """The root of a cosigned checkpoint, once its signature and its quorum of cosignatures
    hold; exit 1 naming what is missing."""
    from blowbyblow.replay.evidence.witness import WitnessError, check_witnessed

    try:
        cp = check_witnessed(_read_text(checkpoint, "--checkpoint"), chosen.log, chosen.policy)
    except WitnessError as e:
        typer.echo(f"checkpoint FAILED: {e}")
        raise typer.Exit(1) from None
    typer.echo(f"checkpoint OK: {cp.origin} at {cp.size} battles, cosigned by the quorum")
    return TreeHead(size=cp.size, root=cp.root.hex())


def show_checkpoint(store: BattleStore, checkpoint: Path, chosen: Witnessing) -> bool:
    """``bxb verify --checkpoint``: the cosigned root a round published holds (signature,
    quorum), and the store's first battles still give it: True if so, said either way."""
    published = _witnessed(checkpoint, chosen)
    try:
        prove_consistency(battle_heads(store), published)
    except BlowByBlowError as e:
        typer.echo(f"checkpoint FAILED: {e}")
        return False
    typer.echo(
        f"checkpoint OK: the store's first {published.size} battles still give the cosigned root"
    )
    return True
