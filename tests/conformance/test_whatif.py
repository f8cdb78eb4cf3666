"""What-if: every game system's demo re-run under every other value of every ruling."""

from __future__ import annotations

from conformance_helpers import Demo

from blowbyblow.domain.core import BattleStarted
from blowbyblow.replay.battles.record import save_events
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore


def test_what_if_under_every_other_ruling_value(demo: Demo) -> None:
    """Each re-run runs to its end (or says why it stopped), records the ruling it was asked
    for, leaves the original battle as it was, and, saved as a battle, verifies."""
    in_force = demo.started.rulings
    original = [e.data for e in demo.events]
    alternatives = [
        (ruling.name, value)
        for ruling in demo.system.rulings
        for value in ruling.choices
        if value != in_force[ruling.name]
    ]
    assert alternatives or not demo.system.rulings
    for name, value in alternatives:
        wi = what_if(demo.store.read(demo.battle), {name: value})
        started = wi.alternative[0]
        assert isinstance(started, BattleStarted)
        assert started.rulings == {**in_force, name: value}, name
        assert encode(wi.original_state) == encode(demo.state), name
        assert len(wi.alternative) > 1 or wi.stopped, name
        elsewhere = BattleStore(":memory:")
        saved = save_events(elsewhere, wi.ruleset, wi.alternative)
        report = verify_battle(elsewhere, saved.battle)
        assert report.ok, f"{name}={value}: {report.problem and report.problem.describe()}"
    assert [e.data for e in demo.store.read(demo.battle)] == original
    assert verify_battle(demo.store, demo.battle).ok
