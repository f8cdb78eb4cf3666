"""What a suspended procedure's continuation is made of (replay/odds/continuation.py): two
branches share what lies below only when their continuations are written alike, and that must
mean they go on alike. Checked on small generators: a loop's place, a local still to be read, a
local never read again, a sub-procedure's own place, a value not known by value, a die, a label
and the roll waited on."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Generator
from typing import Any

import msgspec
import pytest

from blowbyblow.domain.core import Procedure, numbered, roll
from blowbyblow.replay.odds.continuation import (
    Continuations,
    Unshared,
    _frame_values,
    _layout,
    is_value,
    live_after,
)
from blowbyblow.replay.odds.liveness import bound_yields
from blowbyblow.replay.odds.traced import Die

Gen = Generator[int, Any, Any]


def _walk(items: list[int]) -> Gen:
    for item in items:
        yield item + 0  # the loop's iterator stays on the generator's stack


def _key(g: Gen | Procedure) -> bytes:
    return Continuations().key(g, None)


def test_a_continuation_holds_where_a_loop_stands() -> None:
    """Two generators with the same locals, one loop step apart: the iterator on the stack
    tells them apart (a key of the locals alone would merge them, wrongly)."""
    a, b = _walk([7, 7, 7]), _walk([7, 7, 7])
    next(a), next(b), next(b)
    assert _key(a) != _key(b)
    next(a)
    assert _key(a) == _key(b)


def test_a_loop_is_written_as_what_it_has_still_to_give() -> None:
    """A loop at the last of three items and one at its only item go on alike (they meet); a
    loop with other items still to come does not meet them, nor does a tuple's loop."""
    three, one = _walk([5, 6, 7]), _walk([7])
    next(three), next(three), next(three), next(one)
    assert _key(three) == _key(one)
    other = _walk([7, 7])
    next(other)
    assert _key(other) != _key(one)
    pairs = [_walk_tuple((5, 7)), _walk_tuple((7,))]
    next(pairs[0]), next(pairs[0]), next(pairs[1])
    assert _key(pairs[0]) == _key(pairs[1])
    assert _key(pairs[1]) != _key(one)


def _walk_tuple(items: tuple[int, ...]) -> Gen:
    for item in items:
        yield item + 0


def _spent(first: int) -> Gen:
    """``first`` is read once, before the yield: dead after it."""
    total = first * 2
    seen = yield total
    return seen


def _kept(first: int) -> Gen:
    """``first`` is read after the yield: live."""
    seen = yield 0
    return first + seen


def test_a_local_never_read_again_is_left_out() -> None:
    """Two branches that differ only in a value already spent go on alike and meet; two that
    differ in a value still to be read do not."""
    a, b = _spent(3), _spent(5)
    next(a), next(b)
    assert _key(a) == _key(b)
    c, d = _kept(3), _kept(5)
    next(c), next(d)
    assert _key(c) != _key(d)
    frame = c.gi_frame  # type: ignore[attr-defined]
    assert live_after(_kept.__code__, frame.f_lasti) == frozenset({"first"})


def _closed_over(x: int) -> Gen:
    """``x`` is a cell (a function made here reads it): read before the yield, dead after."""

    def plus(i: int) -> int:
        return i + x

    seen = yield plus(1)
    return seen


def _closed_over_kept(x: int) -> Gen:
    """``x`` is a cell read again after the yield: live."""

    def plus(i: int) -> int:
        return i + x

    seen = yield plus(1)
    return seen + x


def _closure_kept(x: int) -> Gen:
    """``x`` is a cell the frame never reads again, but the function holding it is called
    after the yield: written with the function (its code and its cell)."""

    def plus(i: int) -> int:
        return i + x

    seen = yield 0
    return plus(seen)


def test_a_cell_never_read_again_is_left_out() -> None:
    """A cell is a local as any other: one the frame will not read again, by itself or by a
    function it still holds, is left out (a state kept in a cell because a comprehension or
    a lambda read it kept branches apart by a state they had left behind); one it will read
    keeps them apart."""
    a, b = _closed_over(3), _closed_over(5)
    next(a), next(b)
    assert _key(a) == _key(b)
    c, d = _closed_over_kept(3), _closed_over_kept(5)
    next(c), next(d)
    assert _key(c) != _key(d)
    e, f = _closure_kept(3), _closure_kept(5)
    next(e), next(f)
    assert _key(e) != _key(f)
    frame = a.gi_frame  # type: ignore[attr-defined]
    assert live_after(_closed_over.__code__, frame.f_lasti) == frozenset()


def _class_closed_over(x: int) -> Gen:
    """``x`` is a cell the frame never reads again, but a class made here reads it in a
    method called after the yield: a class is written by its name, not its methods' cells."""

    class Bonus:
        def of(self, i: int) -> int:
            return i + x

    seen = yield 0
    return Bonus().of(seen)


@dataclasses.dataclass
class _Held:
    items: list[Any]


def _instance_closed_over(x: int) -> Gen:
    """The same with an instance of the class held in a list: written by its fields only."""

    @dataclasses.dataclass
    class Bonus:
        n: int

        def of(self, i: int) -> int:
            return i + x + self.n

    held = _Held([Bonus(1)])
    seen = yield 0
    return held.items[0].of(seen)


@pytest.mark.parametrize("made", [_class_closed_over, _instance_closed_over])
def test_a_cell_a_class_made_in_the_frame_reads_keeps_branches_apart(made: Any) -> None:
    """A frame that makes a class keeps every local (a method may read a cell the frame itself
    never reads again): two branches that differ in the cell go on to different ends, so
    their keys differ."""
    a, b = made(3), made(5)
    next(a), next(b)
    ends = []
    for g in (a, b):
        with pytest.raises(StopIteration) as stopped:
            g.send(1)
        ends.append(stopped.value.value)
    assert ends[0] != ends[1]  # they do not go on alike
    a, b = made(3), made(5)
    next(a), next(b)
    assert _key(a) != _key(b)


def _maybe(flag: bool, x: int) -> Gen:
    """``y`` is bound at the yield only when ``flag``: one place, two sets of bound locals."""
    if flag:
        y = x * 2
    seen = yield 0
    if flag:
        return y + seen
    return x + seen


def test_a_frame_is_matched_once_per_place_and_bound_locals() -> None:
    """Reading a frame's values from its referents is planned once for each place it stands at
    and each set of locals bound there (``_Layout.plans``), and the plan gives what matching
    every slot again gives: a frame with ``y`` bound and one without it at the same yield take
    two plans, and neither is read by the other's."""
    layout = _layout(_maybe.__code__)
    layout.plans.clear()
    made = [_maybe(True, 3), _maybe(False, 3), _maybe(True, 4), _maybe(True, 3), _maybe(False, 3)]
    for g in made:
        next(g)
    planned = [_key(g) for g in made]
    assert len(layout.plans) == 2
    matched = []
    for g in made:
        layout.plans.clear()
        matched.append(_key(g))
    assert planned == matched
    assert planned[0] == planned[3] != planned[2]
    assert planned[1] == planned[4] != planned[0]


def _outer(n: int) -> Gen:
    x = yield from _kept(n)
    return x


def test_a_sub_procedure_is_written_with_its_own_place_and_locals() -> None:
    a, b, c = _outer(1), _outer(1), _outer(2)
    next(a), next(b), next(c)
    assert _key(a) == _key(b) != _key(c)


def _asked(n: int) -> Gen:
    got = yield n
    return got + n


def _passes(n: int) -> Gen:
    return (yield from _asked(n))


def _passes_bound(n: int) -> Gen:
    got = yield from _asked(n)
    return got


def _adds(n: int) -> Gen:
    got = yield from _asked(n)
    return got + 1


def _catches(n: int) -> Gen:
    try:
        return (yield from _asked(n))
    except ValueError:
        return 0


def _calling(wrap: Any) -> Gen:
    made = _asked(3) if wrap is None else wrap(3)
    got = yield from made
    return got * 2


@pytest.mark.parametrize("flat", [True, False])
def test_a_frame_that_only_passes_on_its_inner_result_is_left_out(flat: bool) -> None:
    """A frame standing in a ``yield from`` whose result it only returns goes on as its inner
    generator does: a key leaves it out, so a call through it meets the direct call. A frame
    that does more with the result, or catches what its inner generator raises, is kept."""
    direct, through, bound, adds, catches = (
        _calling(w) for w in (None, _passes, _passes_bound, _adds, _catches)
    )
    for g in (direct, through, bound, adds, catches):
        next(g)

    def key(g: Gen) -> bytes:
        return Continuations(flat=flat).key(g, None)

    assert key(direct) == key(through) == key(bound)
    assert len({key(direct), key(adds), key(catches)}) == 3
    for g in (direct, through, bound):  # and they do go on alike
        with pytest.raises(StopIteration) as ended:
            g.send(4)
        assert ended.value.value == 14


def _holding(x: Any) -> Gen:
    yield 0
    yield x  # x is read after the first yield


def test_a_value_not_known_by_value_is_never_shared() -> None:
    g = _holding(threading.Lock())
    next(g)
    with pytest.raises(Unshared):
        _key(g)


def test_a_tuple_and_a_list_of_the_same_items_are_told_apart() -> None:
    """msgspec writes both as an array: each value goes with its type."""
    a, b = _holding((1, 2)), _holding([1, 2])
    next(a), next(b)
    assert _key(a) != _key(b)


def test_a_die_held_is_a_fact_of_its_run() -> None:
    """A continuation holding a die value is written with its number, and the run learns it:
    another face joins this one only if it gives the same number."""
    facts: list[Any] = []
    g = _holding(Die(4, ("d", 2, 0), facts))
    next(g)
    other = _holding(4)
    next(other)
    assert _key(g) == _key(other)
    assert facts == [(("==", ("d", 2, 0), ("c", 4)), True)]


class Point(msgspec.Struct, frozen=True):
    x: int
    tags: tuple[str, ...]


class Bag(msgspec.Struct, frozen=True):
    items: list[int]


def test_values_written_once_are_frozen_structs_of_values() -> None:
    """A frozen struct of numbers, strings and tuples never changes: it is written once per
    exploration, kept by identity. One holding a list could change under the rules' hands,
    and is written each time."""
    assert is_value(Point) and not is_value(Bag)
    written = Continuations()
    p = Point(x=1, tags=("a",))
    assert written.value(p) == written.value(Point(x=1, tags=("a",)))
    bag = Bag(items=[1])
    a = _holding(bag)
    next(a)
    before = written.key(a, None)
    bag.items.append(2)
    assert written.key(a, None) != before


def _hits(first: int, count: int) -> Procedure:
    for hit in numbered(count, first):
        yield from roll(f"hit/{hit}/wound")  # the hit is still read: its key names it


def test_labels_are_written_alike_and_numbers_are_not() -> None:
    """Hit 5 of 6 and hit 3 of 4 go on alike when their numbers are labels (``Label``): the
    loop's labels still to come, the hit held and the roll's key are written alike. Written by
    their numbers (``labels=False``) they are told apart, as plain numbers always are."""
    a, b = _hits(5, 2), _hits(3, 2)
    next(a), next(b)
    assert _key(a) == _key(b)
    assert Continuations(labels=False).key(a, None) != Continuations(labels=False).key(b, None)
    c = _hits(3, 3)  # one more hit to come: not the same
    next(c)
    assert _key(c) != _key(b)
    d, e = _holding(5), _holding(3)
    next(d), next(e)
    assert _key(d) != _key(e)


def _rolled(n: int) -> Procedure:
    yield from roll(f"hit/{n}/wound", purpose=f"hit {n}")  # n is not read after the roll


def test_the_roll_waited_on_is_written_without_its_name() -> None:
    """A procedure waiting on a roll is written without the roll's key and purpose (the odds
    write its dice, how many and how read, beside it): two rolls named apart, with nothing else
    apart, meet."""
    a, b = _rolled(5), _rolled(3)
    next(a), next(b)
    assert _key(a) == _key(b)


def _aliased(shared: bool) -> Gen:
    """Two lists, one object or two equal ones: a change to the first shows in the second
    only when they are one object."""
    mine = [1]
    theirs = mine if shared else [1]
    added = yield 0
    mine.append(added)
    return len(theirs)


def _sub_holding(held: list[int]) -> Gen:
    seen = yield 0
    held.append(seen)
    return held


def _outer_holding(shared: bool) -> Gen:
    """A list held by a frame and by the sub-procedure it waits in."""
    held = [2]
    passed = held if shared else [2]
    got = yield from _sub_holding(passed)
    return len(held) + len(got)


def _run_to_end(g: Gen, answer: int) -> Any:
    try:
        g.send(answer)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the generator asked again")


def test_one_object_held_twice_is_not_two_equal_copies() -> None:
    """Where two frames' values (or two locals of one frame) are one list, a change in place
    through one shows through the other; two equal copies go on otherwise, so they must not
    meet. Each continuation is run to its end to show that they differ."""
    for make in (_aliased, _outer_holding):
        shared, apart = make(True), make(False)
        next(shared), next(apart)
        key_shared, key_apart = _key(shared), _key(apart)
        assert key_shared != key_apart
        assert _run_to_end(shared, 9) != _run_to_end(apart, 9)
    # the same sharing, the same key
    one, other = _aliased(True), _aliased(True)
    next(one), next(other)
    assert _key(one) == _key(other)


def _holds_a_generator(n: int) -> Gen:
    """A generator held in a local, off the ``yield from`` chain: written within its frame."""
    spare = _walk([n, n])
    next(spare)
    yield n
    yield next(spare)


def test_a_generator_off_the_chain_is_written_within_its_frame() -> None:
    """A chain is written frame after frame; a generator held elsewhere (a local) makes the
    whole key written nested, as its frames' values are numbered in the order it is met."""
    a, b, c = _holds_a_generator(3), _holds_a_generator(3), _holds_a_generator(4)
    next(a), next(b), next(c)
    flat, nested = Continuations(), Continuations(flat=False)
    assert flat.key(a, None) == flat.key(b, None) == nested.key(a, None)
    assert flat.key(a, None) != flat.key(c, None)


def _explored_with(
    written: type[Continuations], name: str, number: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A demo command's odds explored as a graph whose keys ``written`` writes."""
    from blowbyblow.replay.engine.registry import get_game_system
    from blowbyblow.replay.odds import sharing
    from blowbyblow.replay.odds.explore import scenario_odds

    monkeypatch.setattr(sharing, "Continuations", written)
    scenario_odds(get_game_system(name).demo(), number)


@pytest.mark.parametrize(
    ("name", "number"),
    [("necromunda-2023", 1), ("wh40k-2e", 5), ("asl", 2), ("gangfight", 1)],
)
def test_a_chain_written_flat_meets_where_written_nested(
    name: str, number: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chain's frames written one after another (each inner generator a mark, its frame
    next) meet exactly where the frames written each within the one it stands in meet: at
    every key of a demo command's graph, two keys are equal one way if and only if they are
    the other."""
    pairs: list[tuple[bytes, bytes]] = []

    class Both(Continuations):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.nested = Continuations(*args, **kwargs, flat=False)
            # What is done (``OddsRules.done``) is read only off a chain written flat (nested:
            # nothing known done, so fewer meet): the layouts compared here, each without it.
            self.done = self.nested.done = None

        def key(self, generator: Any, state: Any, *, keep: bool = False) -> bytes:
            written = super().key(generator, state, keep=keep)
            pairs.append((written, self.nested.key(generator, state)))
            return written

    _explored_with(Both, name, number, monkeypatch)
    assert len(pairs) > 10
    flat = {a for a, _ in pairs}
    assert len(flat) == len({b for _, b in pairs}) == len(set(pairs))
    assert len(flat) < len(pairs)  # some keys met again
    assert all(a != b for a, b in pairs)  # written two ways


@pytest.mark.parametrize(
    ("name", "number"),
    [("necromunda-2023", 1), ("gangfight", 1), ("asl", 2), ("necromunda-legacy", 2)],
)
def test_a_resumed_frame_not_run_since_is_read_as_it_was_made(
    name: str, number: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An outer frame of a resumed chain that still stands in the ``yield from`` it was made
    in is read from what its prologue restored (``Frozen.resume``'s reads), not from the
    frame: at every key of a demo command's graph, each such reading is the frame's own, name
    for name and value for value (the same objects), its stack too. (The 40K fights' outer
    frames all only pass on their inner generator's result: never copied, never so read.)"""
    from blowbyblow.replay.odds.continuation import _frame_values

    checked = [0]

    class Checked(Continuations):
        def key(self, generator: Any, state: Any, *, keep: bool = False) -> bytes:
            g = generator
            while g is not None and g.gi_frame is not None:
                read = self.reads.get(id(g))
                if read is not None and read[0] is g and read[1] is g.gi_yieldfrom:
                    names, _, values, stack = _frame_values(g)
                    made = read[2]
                    assert names == made.names
                    assert len(values) == len(made.values)
                    assert all(a is b for a, b in zip(values, made.values, strict=True))
                    assert len(stack) == len(made.stack) and stack[-1] is g.gi_yieldfrom
                    assert all(a is b for a, b in zip(stack[:-1], made.stack[:-1], strict=True))
                    checked[0] += 1
                g = g.gi_yieldfrom
            return super().key(generator, state, keep=keep)

    _explored_with(Checked, name, number, monkeypatch)
    assert checked[0] > 10


def _after_loop(items: list[int]) -> Gen:
    total = 0
    for item in items:
        total += yield item
    try:
        done = total * 2
        yield done
    except ValueError as e:
        yield len(str(e))
    yield total


def test_the_locals_bound_at_a_yield_are_known_from_the_code_where_every_way_agrees() -> None:
    """``bound_yields``: where every way to a yield binds the same locals, they are known from
    the code alone; where one way binds a local another does not (``y`` only when ``flag``;
    ``item`` after a loop that may not have run), it is not known there."""
    at_maybe = bound_yields(_maybe.__code__)
    assert list(at_maybe.values()) == [None]
    found = bound_yields(_after_loop.__code__)
    first, *later = found.values()
    assert first == frozenset({"items", "total", "item"})
    assert set(later) == {None}  # ``item`` after the loop, maybe unbound


@pytest.mark.parametrize(
    ("name", "number"),
    [("necromunda-2023", 1), ("wh40k-2e", 5), ("asl", 2), ("necromunda-legacy", 1)],
)
def test_a_frame_read_by_its_place_alone_is_read_as_by_its_locals(
    name: str, number: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the code alone says which locals a frame has bound at its yield (``fixed_plan``),
    its values are read from its referents with no ``f_locals``: at every frame of every key
    of a demo command's graph, resumed frames (``replay/odds/resume.py``) among them, that
    reading is the one by its locals, name for name, value for value and its stack too."""
    from blowbyblow.replay.odds import continuation

    checked: dict[bool, int] = {False: 0, True: 0}
    read = continuation._frame_values

    def both(g: Any, layout: Any = None, frame: Any = None) -> Any:
        fast = read(g, layout, frame)
        of = _layout(g.gi_code)
        lasti = g.gi_frame.f_lasti
        kept = of.fixed.get(lasti)
        of.fixed[lasti] = None
        try:
            slow = read(g, layout, frame)
        finally:
            of.fixed[lasti] = kept
        assert fast[:2] == slow[:2]
        for a, b in ((fast[2], slow[2]), (fast[3], slow[3])):
            assert len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))
        checked[kept is not None] += 1
        return fast

    monkeypatch.setattr(continuation, "_frame_values", both)
    _explored_with(Continuations, name, number, monkeypatch)
    assert checked[True] > 10


def test_a_wrong_plan_by_place_is_told_from_the_locals() -> None:
    """The check above can fail: a plan that takes ``y`` for bound where ``x`` is (as many
    slots: the count of referents cannot tell) reads ``x``'s value as ``y``'s."""
    g: Any = _maybe(False, 3)
    next(g)
    layout = _layout(_maybe.__code__)
    frame = g.gi_frame
    assert frame is not None
    slow = _frame_values(g)
    layout._bound = {frame.f_lasti: frozenset({"flag", "y"})}
    layout.fixed.clear()
    try:
        fast = _frame_values(g)
    finally:
        layout._bound = None
        layout.fixed.clear()
    assert fast[0] == ("flag", "y") != slow[0] == ("flag", "x")
    assert fast[2] == slow[2] == [False, 3]
