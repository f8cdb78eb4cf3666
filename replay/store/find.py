"""Finding a battle the way a user names it: by id, unique id prefix or label, or the most recent
one. Apart from ``replay/battles/record.py`` (which adjudicates and writes), so the commands that only
read a battle (``bxb at``, ``bxb log``) do not import the rules' machinery to find it."""

from __future__ import annotations

from uuid import UUID

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.store.log import BattleStore


class BattleNotFound(BlowByBlowError):
    pass


def resolve_battle(store: BattleStore, ref: str | None) -> UUID:
    """A battle named by id, unique id prefix or label; the most recent one when ``ref`` is None."""
    battles = store.battles()
    if not battles:
        raise BattleNotFound("the store holds no battles yet (try `bxb demo`)")
    if ref is None:
        return battles[-1].battle
    if not ref.strip():  # an unset shell variable ("$BATTLE"): every id starts with ""
        raise BattleNotFound(
            "the battle named is empty; expected a battle id, id prefix or label (see `bxb battles`)"
        )
    exact = [b for b in battles if str(b.battle) == ref]
    if exact:
        return exact[0].battle
    by_prefix = [b for b in battles if str(b.battle).startswith(ref.lower())]
    by_label = [b for b in battles if b.label == ref]
    matches = by_prefix or by_label
    if len(matches) == 1:
        return matches[0].battle
    if len(matches) > 1:
        raise BattleNotFound(
            f"{ref!r} names {len(matches)} battles: "
            + ", ".join(f"{b.battle} ({b.label})" for b in matches[:5])
        )
    raise BattleNotFound(f"no battle {ref!r} in this store (see `bxb battles`)")
