"""A command a phone sends as an option (with picks) is built once for the battle's head it was
offered at (web/requests.py, ``BattleHead.built``): a table typing its dice sends the same option
with every roll (issue 25). What is built must be that head's own option with those picks, never
another battle's, another version's or other picks'."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from web_helpers import make_site

from blowbyblow.replay.battles.head import BattleHead
from blowbyblow.web.requests import command_of
from blowbyblow.web.schemas import PlayCommand, StartBattle, VoidRequest
from blowbyblow.web.service import Service


def _every_choice(head: BattleHead) -> list[tuple[int, dict[str, str]]]:
    """Each option, with each value of each of its picks in turn."""
    asked: list[tuple[int, dict[str, str]]] = []
    for i, option in enumerate(head.options):
        asked.append((i, {}))
        for name, allowed in option.options.items():
            asked += [(i, {name: value}) for value in allowed]
    return asked


def _built_as_offered(head: BattleHead) -> list[Any]:
    """Every choice of ``head`` built through the requests' path, each checked against its
    option built afresh by the game system; asked twice (the second time from the cache)."""
    found = []
    for _ in range(2):
        for i, picks in _every_choice(head):
            built = command_of(head, PlayCommand(option=i, picks=picks))
            assert built == head.system.build_command(head.options[i], picks), (i, picks)
            found.append(built)
    return found


def test_a_command_is_its_own_heads_option_with_its_own_picks(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    service = Service(store=site.store, tournaments=site.tournaments)
    ids = [
        UUID(service.start("spring", t, StartBattle(ruleset=r, seed="b")).battle)
        for t, r in ((1, "gangfight"), (2, "necromunda-2023"), (3, "gangfight"))
    ]
    heads = []
    for battle in ids:
        heads.append(service.read(battle))
        service.play(battle, PlayCommand(option=0))  # the next head: options of its own
        heads.append(service.read(battle))
    first = UUID(str(ids[0]))
    service.void(first, VoidRequest(command=1, reason="undo"), "judge")  # back to the opening
    heads.append(service.read(first))
    seen = [_built_as_offered(head) for head in heads]
    # different picks of one option build different commands
    for found in seen:
        assert len({repr(c) for c in found}) > 1
    # the heads offer different commands under the same option numbers (else a cache that
    # mixed them up could not be caught above)
    assert len({repr(found[:3]) for found in seen}) > 1
