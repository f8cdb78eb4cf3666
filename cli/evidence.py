"""Evidence a player or an organiser keeps outside the store: ``bxb receipt`` (a signed receipt
for a battle's chain head), ``bxb root`` (the tournament's Merkle root over every battle's head,
inclusion and consistency proofs) and ``bxb check-proof`` (a kept proof checked with no store).
``bxb verify --receipt`` uses ``load_receipts`` and ``show_receipts`` from here."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated
from uuid import UUID

import msgspec
import typer

from blowbyblow.cli.app import STDIO, KeyOption, _battle, app, fail, open_store
from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.evidence.merkle import (
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
    Receipt,
    ReceiptError,
    check_receipts,
    parse_receipts,
    receipt_for,
)
from blowbyblow.replay.evidence.seals import default_key_dir, load_private_key, load_public_key
from blowbyblow.replay.store.log import BattleStore, LoggedEvent

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


def load_receipts(files: Sequence[Path]) -> list[Receipt]:
    """Every receipt in ``files`` (``--receipt``); a bad line ends in one error naming it."""
    receipts: list[Receipt] = []
    for path in files:
        try:
            found = parse_receipts(_read_text(path, "--receipt"))
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


def receipt_keys(keys: Sequence[str] | None) -> frozenset[str] | None:
    if not keys:
        return None
    try:
        return frozenset(load_public_key(k) for k in keys)
    except BlowByBlowError as e:
        fail(f"--receipt-key: {e}")


def show_receipts(
    checked: BattleStore | Sequence[LoggedEvent],
    receipts: Sequence[Receipt],
    trusted: frozenset[str] | None,
    only: UUID | None = None,
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
    report = check_receipts(checked, chosen, trusted_keys=trusted)
    for check in report.checks:
        typer.echo(check.describe())
    skipped = len(receipts) - len(chosen) + sum(c.verdict == "skipped" for c in report.checks)
    held = sum(c.verdict == "holds" for c in report.checks)
    typer.echo(
        f"{held} of {len(receipts) - skipped} receipts hold"
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
def cmd_root(
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
) -> None:
    """The tournament's Merkle root (RFC 9162) over every battle's head: one line to publish per
    round that commits to every table's log. Exit 1 when the store no longer gives a root
    published earlier (--since)."""
    store = open_store()
    chosen = [_battle(store, b) for b in battles] if battles else None
    try:
        heads = battle_heads(store, chosen)
    except BlowByBlowError as e:
        fail(f"{e} (run `bxb verify` for details)", code=1)
    if not heads:
        fail("the store holds no battles yet (try `bxb demo`)")
    if proof is not None:
        try:
            inclusion = prove_inclusion(heads, _battle(store, proof))
        except MerkleError as e:
            fail(str(e))
        typer.echo(msgspec_json(inclusion))
        return
    if since is not None:
        try:
            consistency = prove_consistency(heads, _published(since, "--since"))
        except MerkleError as e:
            typer.echo(f"root FAILED: {e}", err=True)
            raise typer.Exit(1) from None
        typer.echo(msgspec_json(consistency))
        return
    tree = tree_head(heads)
    if as_json:
        typer.echo(msgspec_json(tree))
    else:
        _print_tree(store, tree)


def msgspec_json(obj: object) -> str:
    return msgspec.json.encode(obj, order="sorted").decode()


@app.command("check-proof")
def cmd_check_proof(
    file: Annotated[
        Path,
        typer.Argument(help="A proof `bxb root --proof` or `--since` printed (-: standard input)."),
    ],
    root: Annotated[
        str | None,
        typer.Option(
            "--root", help="The published root it must be against ('bxb-root-v1 SIZE ROOT')."
        ),
    ] = None,
) -> None:
    """Check a kept inclusion or consistency proof with no store. Exit 1 if it does not hold."""
    published = _published(root, "--root") if root is not None else None
    try:
        said = check_proof(_read_text(file, "proof"), published)
    except MerkleError as e:
        typer.echo(f"proof FAILED: {e}")
        raise typer.Exit(1) from None
    typer.echo(f"proof OK: {said}")
