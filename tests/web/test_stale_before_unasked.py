"""A phone that is behind (another server process, or `bxb play` on the same store, wrote since
it read the battle) and also sends an answer the command never asks learns first that it is
behind: 409, as it would with nothing else wrong, not 422 about its answer. Its answer was meant
for the battle it saw; the battle has moved on, so the phone must read it again before anything
it sends can be judged. Before, the server process judged the command on the head it keeps,
unread (the append at its version is the check), and refused the answer first: the player
mended it, sent again, and only then heard the battle had moved.

Without a version (a client that plays whatever the battle is now), such a refusal is judged
again on the battle as it stands: what the rules say of the battle now."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest
from web_helpers import Site, make_site

from blowbyblow.replay.battles.refusals import Refused
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.web.schemas import PlayCommand, StartBattle
from blowbyblow.web.service import Service

UNASKED = {"no/such/question": "yes"}


def _two_processes(tmp_path: Path) -> tuple[Site, Service, Service, UUID, list[dict[str, object]]]:
    site = make_site(tmp_path)
    phone_side, other = (Service(store=site.store, tournaments=site.tournaments) for _ in "ab")
    started = phone_side.start("spring", 1, StartBattle(ruleset="gangfight", seed="s"))
    battle = UUID(started.battle)
    other.read(battle)
    commands = [dict(c) for c in map(_plain, get_game_system("gangfight").demo().commands)]
    return site, phone_side, other, battle, commands


def _plain(command: object) -> dict[str, object]:
    import msgspec

    plain = msgspec.to_builtins(command)
    assert isinstance(plain, dict)
    return plain


def test_a_stale_phone_with_an_unasked_answer_hears_409_first(tmp_path: Path) -> None:
    site, phone_side, other, battle, commands = _two_processes(tmp_path)
    seen = phone_side.read(battle).version
    other.play(battle, PlayCommand(version=seen, command=commands[0]))  # the other process
    with pytest.raises(Refused) as refused:
        phone_side.play(battle, PlayCommand(version=seen, command=commands[1], choices=UNASKED))
    assert refused.value.kind == "conflict", refused.value
    assert site.store.version(battle) > seen


def test_a_fresh_phone_with_an_unasked_answer_hears_422(tmp_path: Path) -> None:
    _, phone_side, _, battle, commands = _two_processes(tmp_path)
    seen = phone_side.read(battle).version
    with pytest.raises(Refused) as refused:
        phone_side.play(battle, PlayCommand(version=seen, command=commands[0], choices=UNASKED))
    assert (refused.value.kind, refused.value.field) == ("invalid", "choices")


def test_on_the_event_loop_a_refusal_goes_to_the_worker_that_reads(tmp_path: Path) -> None:
    """The loop's way (typed dice: ``play_kept``, nothing read) does not refuse on the head it
    keeps: it leaves the request to ``play``, which reads whether the battle moved on."""
    _, phone_side, other, battle, commands = _two_processes(tmp_path)
    kept = phone_side.door.kept(battle)
    assert kept is not None
    other.play(battle, PlayCommand(version=kept.version, command=commands[0]))
    req = PlayCommand(version=kept.version, command=commands[1], choices=UNASKED)
    assert phone_side.play_kept(kept, req) is None
    with pytest.raises(Refused) as refused:
        phone_side.play(battle, req)
    assert refused.value.kind == "conflict"


def test_without_a_version_the_battle_as_it_stands_judges(tmp_path: Path) -> None:
    site, phone_side, other, battle, commands = _two_processes(tmp_path)
    seen = phone_side.read(battle).version
    other.play(battle, PlayCommand(version=seen, command=commands[0]))
    played = phone_side.play(battle, PlayCommand(command=commands[1]))
    assert played.status == "played" and played.version == site.store.version(battle)
