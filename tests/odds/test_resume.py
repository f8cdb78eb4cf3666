"""A suspended procedure copied (replay/odds/resume.py), so that a run goes on where its sibling
stood instead of replaying its path: the copy must go on as the original would, change nothing
of the original, be written as the original by its continuation, and fall back (NotFrozen, then
the replay) on anything it does not know. Then the graph: every run after the first resumed,
the answer the replay's, the replayed steps gone."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Generator
from typing import Any, cast

import pytest
from odds_helpers import WH40K, drive, scenario, situation, started
from resume_reference import checked_by_the_library

from blowbyblow.domain.core import Context, Procedure, roll
from blowbyblow.replay.odds import resume
from blowbyblow.replay.odds.answers import Margins, Weights
from blowbyblow.replay.odds.chance import Explorer
from blowbyblow.replay.odds.continuation import Continuations
from blowbyblow.replay.odds.explore import Policy, prepare, scenario_command
from blowbyblow.replay.odds.outcomes import Outcome
from blowbyblow.replay.odds.sharing import Sharer
from blowbyblow.replay.odds.traced import Die

Gen = Generator[Any, Any, Any]


def _inner(n: int, seen: list[int]) -> Gen:
    got = []
    for k in range(n):
        (v,) = yield from roll(f"r{k}")
        got.append(v)
        seen.append(v)
    return got


def _outer(items: list[int]) -> Gen:
    total = {"sum": 0}
    seen: list[int] = []
    for it in items:
        values = yield from _inner(it, seen)  # ``seen`` held by two frames: one list
        total["sum"] += sum(values)
    return total["sum"], seen


def _stood(g: Gen, request: Any) -> resume.Frozen:
    """``g``'s chain frozen as a key reads it (the graph freezes only what it wrote)."""
    written = Continuations()
    written.key(g, None, keep=True)
    assert written.frames is not None
    return resume.freeze(g, request, written.frames)


def _started() -> tuple[Gen, Any]:
    return started(_outer)  # the second item's first roll


def test_a_copy_goes_on_as_the_original_and_leaves_it_alone() -> None:
    """Copies sent other answers go their own ways (a list two frames share is one list in
    each copy: both frames see a change); the original then goes on as if none had run."""
    g, request = _started()
    frozen = _stood(g, request)
    first, second = frozen.resume(), frozen.resume()
    assert drive(first, [6, 6, 6]) == (21, [1, 2, 6, 6, 6])
    assert drive(second, [1, 2, 3]) == (9, [1, 2, 1, 2, 3])
    assert drive(g, [4, 5, 6]) == (18, [1, 2, 4, 5, 6])


def _passing(n: int, seen: list[int]) -> Gen:
    return (yield from _inner(n, seen))


def _outer_passing(items: list[int]) -> Gen:
    total = {"sum": 0}
    seen: list[int] = []
    for it in items:
        values = yield from _passing(it, seen)
        total["sum"] += sum(values)
    return total["sum"], seen


def test_a_frame_that_only_passes_on_is_not_copied() -> None:
    """A frame that only returns its inner generator's result (``return (yield from ...)``)
    is left out of the copy: its outer frame stands in the copy of its inner generator, and
    the copy goes on as the original does."""
    g, request = started(_outer_passing)
    assert g.gi_yieldfrom.gi_code is _passing.__code__  # type: ignore[attr-defined]
    frozen = _stood(g, request)
    copy = frozen.resume()
    inner = copy.gi_yieldfrom  # type: ignore[attr-defined]
    assert resume.RESUMERS[id(inner.gi_code)].original is _inner.__code__
    assert drive(copy, [6, 6, 6]) == (21, [1, 2, 6, 6, 6])
    assert drive(frozen.resume(), [1, 2, 3]) == (9, [1, 2, 1, 2, 3])
    assert drive(g, [4, 5, 6]) == (18, [1, 2, 4, 5, 6])


def test_a_copy_asks_again_what_the_original_asked() -> None:
    g, request = _started()
    copy = _stood(g, request).resume()
    # the chain is rebuilt frame by frame, each waiting in its sub-procedure
    assert copy.gi_yieldfrom.gi_yieldfrom.gi_code is not roll.__code__  # type: ignore[attr-defined]
    assert copy.send((3,)) == g.send((3,))


def test_a_copy_is_written_as_the_original() -> None:
    """Its frames run other code objects (a prologue of their own), yet its continuation is the
    original's, byte for byte, before and after a step: their branches meet."""
    g, request = _started()
    copy = _stood(g, request).resume()
    written = Continuations()
    assert written.key(copy, None) == written.key(g, None)
    copy.send((5,)), g.send((5,))
    assert written.key(copy, None) == written.key(g, None)
    copy.send((4,)), g.send((2,))
    assert written.key(copy, None) != written.key(g, None)


def _summing(n: int) -> Gen:  # holds numbers only: steady while it waits in one ``_listing``
    total, k = 0, 0
    while k < n:
        got = yield from _listing(k)
        total += sum(got)
        k += 1
    return total


def _listing(k: int) -> Gen:
    got: list[int] = []
    (a,) = yield from roll(f"r{k}/a")
    got.append(a)
    (b,) = yield from roll(f"r{k}/b")
    got.append(b)
    return got


def _frozen_at(g: Gen, request: Any, written: Continuations) -> resume.Frozen:
    """As the graph freezes at a node: held in place, the last resume's reads beside."""
    written.key(g, None, keep=True)
    assert written.frames is not None
    return resume.freeze(g, request, written.frames, in_place=True, reads=written.reads)


def test_a_steady_frame_not_run_since_it_was_made_is_frozen_as_itself() -> None:
    """An outer frame of a resumed chain that holds only numbers and still waits in the inner
    generator it was made with is frozen at the next node as the frame it was made from (the
    same locals and stack); once it has run on, or when it holds what may change, it is frozen
    anew. Each copy goes on as the original would."""
    g = _summing(2)
    written = Continuations()
    first = _frozen_at(g, g.send(None), written)  # at r0/a
    assert drive(g, [2, 2, 2, 2]) == 8  # held in place: the original first, as the graph does
    assert first.frames[0].steady() and not first.frames[1].steady()  # ``got``: a list
    copy = first.resume(written.reads)
    second = _frozen_at(copy, copy.send((4,)), written)  # at r0/b, the outer not run since
    assert second.frames[0] is first.frames[0]
    assert second.frames[1] is not first.frames[1]
    written.reads.clear()
    again = second.resume(written.reads)
    third = _frozen_at(again, again.send((5,)), written)  # at r1/a: the outer ran on
    assert third.frames[0] is not second.frames[0]
    assert drive(third.resume(), [1, 2]) == 12  # 4 + 5, then 1 + 2
    assert drive(second.resume(), [6, 1, 1]) == 12  # 4 + 6, then 1 + 1
    assert drive(first.resume(), [1, 1, 1, 1]) == 4
    outer, request = _started()  # ``_outer`` holds a dict and a list: never steady
    assert not any(f.steady() for f in _frozen_at(outer, request, Continuations()).frames)


def test_a_copy_of_a_copy() -> None:
    g, request = _started()
    copy = _stood(g, request).resume()
    request = copy.send((3,))
    again = _stood(copy, request).resume()
    assert drive(again, [1, 1]) == drive(copy, [1, 1]) == (8, [1, 2, 3, 1, 1])


def _holding(value: Any) -> Gen:
    kept = value
    (v,) = yield from roll("r")
    return kept, v


def test_a_die_held_is_given_back_as_its_number() -> None:
    """A traced die (``Die``) records what the rules read of it on its own run: the copy, a
    run of its own where that roll is behind its path, holds the plain number."""
    facts: list[Any] = []
    g = _holding(Die(4, ("d", 0, 0), facts))
    request = next(g)
    got = drive(_stood(g, request).resume(), [2])
    assert got == (4, 2) and type(got[0]) is int


def _with_cell(a: int) -> Gen:
    def add(b: int) -> int:  # a cell, and a function holding it
        return a + b

    x = add(1)
    del add
    (v,) = yield from roll("r")
    return a + x + v


def test_a_frame_with_cells_is_copied_with_its_cells() -> None:
    g = _with_cell(10)
    request = next(g)
    assert drive(_stood(g, request).resume(), [3]) == drive(g, [3]) == 24


def _handled(a: int) -> Gen:
    """Yields inside handlers (a try in a try, in a loop): their exception table is
    shifted by the prologue."""
    got = []
    for k in range(2):
        try:
            try:
                (v,) = yield from roll(f"r{k}")
                if v == 6:
                    raise KeyError(v)
                got.append(v)
            finally:
                got.append(10)
        except KeyError:
            got.append(-1)
        try:
            (w,) = yield from roll(f"w{k}")
            if w == 1:
                raise ValueError(w)
            got.append(w)
        except ValueError:
            got.append(0)
    return a, got


def test_a_frame_in_handlers_is_copied_with_its_handlers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy that stands in a try raises and is caught as the original is; its
    resumer, made by hand, is the library's (the exception table shifted byte for byte)."""
    checked_by_the_library(monkeypatch)
    monkeypatch.setattr(resume, "_PLACES", {})
    # each copy made before anything was raised (a frame that has handled an exception holds
    # a stack its continuation does not read whole: not copied, replayed), raising after
    for answers, stop in [
        ([6, 1, 6, 1], 0),
        ([2, 1, 6, 5], 1),
        ([3, 4, 6, 1], 2),
        ([3, 4, 5, 1], 3),
    ]:
        g = _handled(7)
        request = next(g)
        for a in answers[:stop]:
            request = g.send((a,))
        copy = _stood(g, request).resume()
        got = drive(copy, answers[stop:])
        assert got == drive(g, answers[stop:]) and {-1, 0} & set(got[1])
    assert len(resume._PLACES) >= 2


def _closure_held(a: int) -> Gen:
    def add(b: int) -> int:  # its cell shared with the frame
        return a + b

    (v,) = yield from roll("r")
    return add(v)


def _holding_null() -> Gen:
    # a pending call's NULL stands on the stack under the sub-procedure: not read by the
    # garbage collector's referents, so the stack cannot be rebuilt
    return max(0, (yield from roll("r"))[0])


def _nested() -> Any:
    n = 3

    def inner() -> Gen:
        (v,) = yield from roll("r")
        return v + n

    return inner()


@pytest.mark.parametrize(
    "make",
    [
        lambda: _closure_held(1),
        lambda: _holding(threading.Lock()),
        _holding_null,
        _nested,
    ],
    ids=["a function holding a cell", "a lock", "a NULL on the stack", "free variables"],
)
def test_what_is_not_known_is_not_copied(make: Any) -> None:
    g = make()
    request = next(g)
    frames: dict[int, Any] = {}
    written = Continuations()
    try:
        written.key(g, None, keep=True)
        frames = written.frames or {}
    except Exception:
        pass
    with pytest.raises(resume.NotFrozen):
        if not frames:
            raise resume.NotFrozen("not read")
        resume.freeze(g, request, frames)


def test_another_python_is_not_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rebuilt frames are 3.11's (its bytecode, its frames' layout): any other Python
    replays instead."""
    g, request = _started()
    monkeypatch.setattr(resume, "SUPPORTED", False)
    with pytest.raises(resume.NotFrozen):
        _stood(g, request)


def test_without_the_bytecode_library_a_copy_is_made_by_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The resumers are written by hand (the library, pure Python, took 3-5 ms each, paid by a
    process's first call): an interpreter without the library still copies, and the copy goes
    on as the original."""
    import sys

    g, request = _started()
    monkeypatch.setattr(resume, "_PLACES", {})
    monkeypatch.setitem(sys.modules, "bytecode", None)
    frozen = _stood(g, request)
    assert drive(frozen.resume(), [6, 6, 6]) == (21, [1, 2, 6, 6, 6])
    assert drive(g, [1, 2, 3]) == (9, [1, 2, 1, 2, 3])


def test_a_code_not_of_the_usual_shape_is_replayed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the hand's way does not know a code's shape (a line table or a handler across
    where the prologue goes), nothing is copied: the runs replay rather than fail."""
    g, request = _started()
    monkeypatch.setattr(resume, "_PLACES", {})
    monkeypatch.setattr(resume, "_hand_place", lambda *_: None)
    with pytest.raises(resume.NotFrozen):
        _stood(g, request)


# --- in the graph --------------------------------------------------------------------------------


def _tree_margins(cmd: Any, measure: Any) -> Any:
    tree = Explorer(cmd, budget=2500).explore().dist
    outcomes = cast(list[Outcome], list(tree))
    return Margins.of_joint(measure, Weights(outcomes, [tree[o] for o in outcomes], exact=True))


def _plain(m: Margins) -> Any:
    units = dict(zip(m.units.outcomes, m.units.weights, strict=True))
    return {o.units: w for o, w in units.items()}, m.counts, m.happened


def _counting(cmd: Any) -> tuple[Any, list[int]]:
    """``cmd`` with its procedure's starts and its fold's steps counted."""
    counts = [0, 0]
    system = cmd.table.system
    procedure, fold = system.procedure, system.evolve

    def started(state: Any, command: Any, ctx: Any) -> Any:
        counts[0] += 1
        return procedure(state, command, ctx)

    def evolve(state: Any, event: Any) -> Any:
        counts[1] += 1
        return fold(state, event)

    counted = dataclasses.replace(system, procedure=started, evolve=evolve)
    return dataclasses.replace(cmd, table=dataclasses.replace(cmd.table, system=counted)), counts


@pytest.mark.skipif(not resume.SUPPORTED, reason="resuming is written for Python 3.11")
@pytest.mark.parametrize("name", ["necromunda-2023", "asl"])
def test_every_run_after_the_first_resumes_where_its_sibling_stood(name: str) -> None:
    """The graph with resume on takes every run but the first from a copy of where its node
    stood: the procedure starts once (once a run when replaying), fewer steps are folded, and
    the answer is the replay's, in as many runs."""
    from blowbyblow.replay.engine.registry import get_game_system
    from blowbyblow.replay.odds.chance import matcher

    demo = get_game_system(name).demo()
    number = 2
    at, _ = scenario_command(demo, number)
    measure, cmd = prepare(at, Policy(name="scripted", answers=demo.choices))
    group = matcher(measure.rules.order_insensitive)
    answers, counts, sharers = [], [], []
    for on in (True, False):
        counted, count = _counting(cmd)
        sharer = Sharer(counted, measure, budget=5000, group=group, resume=on)
        answers.append(_plain(sharer.margins()))
        counts.append(count)
        sharers.append(sharer)
    resumed, replayed = sharers
    assert answers[0] == answers[1]
    assert resumed.runs == replayed.runs > 1
    assert resumed.resumed == resumed.runs - 1 and replayed.resumed == 0
    assert counts[0][0] == 1 and counts[1][0] == replayed.runs
    assert counts[0][1] < counts[1][1]


def _cannot_be_copied(state: Any, command: Any, ctx: Context) -> Procedure:
    """Two or three dice, a closure held across them: written by value (its code and cell),
    but not copied (a copy would part the function from the frame's cell)."""

    def bonus() -> int:
        return 0 if command is None else 1

    (first,) = yield from roll("first")
    (second,) = yield from roll("second")
    if first + second + bonus() >= 9:
        yield from roll("third")


def test_a_procedure_that_cannot_be_copied_is_replayed() -> None:
    """No run resumes, each replays its path, and the answer is the tree's."""
    at = situation(scenario(WH40K))
    at = dataclasses.replace(at, system=dataclasses.replace(at.system, procedure=_cannot_be_copied))
    measure, cmd = prepare(at, Policy(name="default"))
    sharer = Sharer(cmd, measure, budget=5000)
    assert _plain(sharer.margins()) == _plain(_tree_margins(cmd, measure))
    assert sharer.runs > 1 and sharer.resumed == 0


@pytest.mark.skipif(not resume.SUPPORTED, reason="resuming is written for Python 3.11")
def test_a_resumer_made_by_hand_is_the_librarys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every resumer a demo fight of each system makes, written by hand, is the one the
    library makes (its instructions by value at the same offsets, its exception table byte for
    byte, its stack size, names and the original's lines), and the library's keeps its
    original's handlers and a stack size large enough."""
    from blowbyblow.replay.engine.registry import get_game_system
    from blowbyblow.replay.odds.explore import scenario_odds

    checked_by_the_library(monkeypatch)
    monkeypatch.setattr(resume, "_PLACES", {})
    made = []
    hand = resume._hand_place

    def counted(*args: Any) -> Any:
        made.append(hand(*args))
        return made[-1]

    monkeypatch.setattr(resume, "_hand_place", counted)
    for name, number in [
        ("necromunda-2023", 2),
        ("asl", 2),
        ("gangfight", 1),
        ("necromunda-legacy", 2),
        ("wh40k-2e", 5),
    ]:
        scenario_odds(get_game_system(name).demo(), number)
    assert len(resume._PLACES) > 40 and None not in made
    assert len(made) == len(resume._PLACES)
