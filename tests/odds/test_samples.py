"""Monte Carlo's samples go on from a copy of the procedure where they all stand at their first
seeded roll: the counts are those of samples run each from the command's start."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any

import pytest

from blowbyblow.replay.engine.dice import seeded_roll
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.odds import resume, samples
from blowbyblow.replay.odds.explore import Policy, prepare, scenario_command
from blowbyblow.replay.odds.paths import Answer, Command, adjudicate
from blowbyblow.replay.odds.samples import sample


class _FromStart:
    """Sample ``i``'s dice as a run from the command's start rolls them."""

    source = "sampled"

    def __init__(self, seed: str, path: Sequence[Answer]) -> None:
        self.seed, self.path, self.depth = seed, path, 0

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        depth, self.depth = self.depth, self.depth + 1
        if depth < len(self.path):
            face = self.path[depth]
            assert isinstance(face, tuple)
            return face, self.source
        return seeded_roll(self.seed, key, n, sides), self.source


def _from_start(
    cmd: Command, n: int, seed: str, path: Sequence[Answer] = ()
) -> list[tuple[Hashable, int]]:
    counts: dict[Hashable, int] = {}
    for i in range(n):
        outcome = cmd.leaf(adjudicate(cmd, _FromStart(f"{seed}/{i}", path), cmd.choices))
        counts[outcome] = counts.get(outcome, 0) + 1
    return list(counts.items())  # in the order first met, as the answer lists them


def _demo(ruleset: str, number: int, until: frozenset[str] = frozenset()) -> Command:
    demo = game_systems()[ruleset].demo()
    at, _ = scenario_command(demo, number)
    return prepare(at, Policy(name="scripted", answers=demo.choices), until)[1]


def _counting(cmd: Command) -> tuple[Command, list[int]]:
    """``cmd`` with its procedure counted each time the driver makes it."""
    made: list[int] = []
    system = cmd.table.system
    procedure = system.procedure

    def counted(state: Any, command: Any, ctx: Any) -> Any:
        made.append(1)
        return procedure(state, command, ctx)

    table = dataclasses.replace(cmd.table, system=dataclasses.replace(system, procedure=counted))
    return dataclasses.replace(cmd, table=table), made


@pytest.mark.parametrize(
    ("ruleset", "number"),
    [("necromunda-legacy", 1), ("wh40k-2e", 6), ("necromunda-2023", 1), ("asl", 2)],
)
def test_samples_count_as_runs_from_the_start(ruleset: str, number: int) -> None:
    """The demo commands with the longest runs (the older charge, the 40K second fight) and two
    others: the same outcomes, the same counts, met in the same order; the procedure made
    once."""
    cmd, made = _counting(_demo(ruleset, number))
    found = list(sample(cmd, 60, "from-start").items())
    assert sum(made) == 1
    assert found == _from_start(cmd, 60, "from-start")


def test_samples_after_a_path_and_up_to_an_event() -> None:
    """A path's faces before the seeded dice (``bxb luck``'s samples), and a command stopped
    after its first event of a kind (``--until``): as runs from the start."""
    cmd = _demo("wh40k-2e", 6)
    path = [(6, 6), (1, 1, 1)]
    assert list(sample(cmd, 40, "path", path=path).items()) == _from_start(cmd, 40, "path", path)
    stopped, made = _counting(_demo("wh40k-2e", 6, frozenset({"HitsScored"})))
    found = sample(stopped, 40, "until")
    assert sum(made) == 1 and len(found) > 1
    assert list(found.items()) == _from_start(stopped, 40, "until")


def test_a_command_stopped_before_its_first_seeded_roll() -> None:
    """Stopped before any seeded roll: every sample ends alike, from one run."""
    cmd, made = _counting(_demo("wh40k-2e", 6, frozenset({"CombatRoundBegun"})))
    found = list(sample(cmd, 25, "none").items())
    assert sum(made) == 1
    assert found == _from_start(cmd, 25, "none")


def test_a_procedure_that_cannot_be_copied_is_run_from_the_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the procedure cannot be copied (at its first seeded roll, or only when a sample
    copies it), each sample runs from the command's start, to the same counts."""
    cmd = _demo("necromunda-legacy", 1)
    expected = _from_start(cmd, 30, "copy")

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise resume.NotFrozen("refused")

    with monkeypatch.context() as m:
        m.setattr(samples, "freeze", refuse)
        counted, made = _counting(cmd)
        assert list(sample(counted, 30, "copy").items()) == expected
        assert sum(made) == 31  # the shared part's run, then each sample's
    with monkeypatch.context() as m:
        m.setattr(resume.Frozen, "resume", refuse)
        counted, made = _counting(cmd)
        assert list(sample(counted, 30, "copy").items()) == expected
        assert sum(made) == 31
