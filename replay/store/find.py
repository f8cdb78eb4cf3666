"""Finding a battle the way a user names it: by id, unique id prefix or label, or the most recent
one. Apart from ``replay/battles/record.py`` (which adjudicates and writes), so the commands that only
read a battle (``bxb at``, ``bxb log``) do not import the rules' machinery to find it.

Each name is one indexed lookup in the battle index, whatever the store's size: an id or an id
prefix a range of the index's unique id (a prefix ``1a2b`` is the ids from ``1a2b0000…`` to
``1a2bffff…``), a label its label index, the latest battle the last row by age. Only battles that
have records are found (a row whose battle's records are gone is no battle)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

from blowbyblow.domain.core import BlowByBlowError

if TYPE_CHECKING:
    from blowbyblow.projections.index import BattleRow
    from blowbyblow.replay.store.reading import StoreReader
    from blowbyblow.replay.store.records import Records


class BattleNotFound(BlowByBlowError):
    pass


_DASHES = (8, 13, 18, 23)  # where a battle id, as printed, has its dashes
_HEX = frozenset("0123456789abcdef")


def id_range(ref: str) -> tuple[str, str] | None:
    """The ids (32 hex digits, as the index keeps them) that start, printed, with ``ref``: the
    lowest and the highest; None when no printed id can start with it."""
    if len(ref) > 36:
        return None
    for at, char in enumerate(ref):
        if (char != "-") if at in _DASHES else (char not in _HEX):
            return None
    digits = ref.replace("-", "")
    return digits.ljust(32, "0"), digits.ljust(32, "f")


def resolve_battle(store: StoreReader, ref: str | None) -> UUID:
    """A battle named by id, unique id prefix or label; the most recent one when ``ref`` is None."""
    records = store.records
    if ref is None:
        return _newest(records).battle
    if not ref.strip():  # an unset shell variable ("$BATTLE"): every id starts with ""
        _newest(records)
        raise BattleNotFound(
            "the battle named is empty; expected a battle id, id prefix or label (see `bxb battles`)"
        )
    ids = id_range(ref.lower())  # a whole id is a prefix of one id only: itself
    matches, count = records.lookup(ids=ids) if ids is not None else ([], 0)
    if not count:
        matches, count = records.lookup(label=ref)
    if count == 1:
        return matches[0].battle
    if count > 1:
        raise BattleNotFound(
            f"{ref!r} names {count} battles: "
            + ", ".join(f"{b.battle} ({b.label})" for b in matches[:5])
        )
    _newest(records)
    raise BattleNotFound(f"no battle {ref!r} in this store (see `bxb battles`)")


def _newest(records: Records) -> BattleRow:
    newest = records.newest()
    if newest is None:
        raise BattleNotFound("the store holds no battles yet (try `bxb demo`)")
    return newest
