"""A setup's lookup: its profiles and weapons by id, made once per setup and shared by every state
of the battle, and what a walk of the setup's lists would find."""

from __future__ import annotations

import msgspec
import pytest
from wh40k_helpers import ALL_WEAPONS, AXE, KNIFE, RIFLE, SWORD, model, setup

from blowbyblow.domain.wh40k import setup as setup_rules
from blowbyblow.domain.wh40k.setup import Wh40kSetup
from blowbyblow.domain.wh40k.state import initial_state
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play


def _walked(the_setup: Wh40kSetup, model_id: str) -> list[str]:
    """A model's weapons as a walk of the setup's lists finds them: the first of each id."""
    profile = next(m for m in the_setup.models if m.id == model_id)
    return [next(w for w in the_setup.weapons if w.id == wid).label for wid in profile.weapons]


def test_each_lookup_finds_what_a_walk_of_the_lists_finds() -> None:
    # an unchecked setup may list an id twice: the first is the one a walk finds
    twin = msgspec.structs.replace(SWORD, name="the second sword of that id", parry=False)
    the_setup = Wh40kSetup(
        models=[
            model("varro", "marines", weapons=["sword", "knife", "rifle"]),
            model("snagga", "orks", weapons=["axe"]),
            model("varro", "orks", ws=9),
        ],
        weapons=[*ALL_WEAPONS, twin],
    )
    state = initial_state(the_setup)
    assert state.profile("varro").player == "marines"
    assert state.profile("varro").weapon_skill == 4
    assert state.weapon("sword") is SWORD
    assert [w.label for w in state.weapons_of("varro")] == _walked(the_setup, "varro")
    assert state.weapons_of("varro") == (SWORD, KNIFE, RIFLE)
    assert state.close_combat_weapons("varro") == (SWORD, KNIFE)
    assert state.close_combat_weapons("snagga") == (AXE,)
    with pytest.raises(KeyError):
        state.profile("gorg")
    with pytest.raises(KeyError):
        state.weapon("hammer2")


def test_a_model_listing_an_unknown_weapon_fails_only_when_its_weapons_are_asked() -> None:
    state = initial_state(setup(model("a", "x", weapons=["nothing"]), model("b", "y")))
    assert state.profile("a").player == "x"
    assert state.weapons_of("b") == ()
    with pytest.raises(KeyError):
        state.weapons_of("a")


def test_every_state_of_a_battle_shares_one_lookup_and_writes_none_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    demo = get_game_system("wh40k-2e").demo()
    made: list[Wh40kSetup] = []
    make = setup_rules.Lookup.__init__

    def counted(self: setup_rules.Lookup, the_setup: Wh40kSetup) -> None:
        made.append(the_setup)
        make(self, the_setup)

    monkeypatch.setattr(setup_rules.Lookup, "__init__", counted)
    played = play(demo)  # its eight commands look profiles up hundreds of times
    assert made == [demo.setup]
    first = initial_state(demo.setup)
    # the lookup is not part of what is written: a state reads back equal, with its own
    written = msgspec.msgpack.encode(played.state)
    assert b"lookup" not in written
    back = msgspec.msgpack.decode(written, type=type(played.state))
    assert back == played.state
    assert back.setup.lookup is not played.state.setup.lookup
    assert msgspec.msgpack.encode(first.setup) == msgspec.msgpack.encode(demo.setup)
    for m in demo.setup.models:
        assert back.weapons_of(m.id) == played.state.weapons_of(m.id)
