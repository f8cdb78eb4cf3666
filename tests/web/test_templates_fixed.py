"""The server's pages are rendered from templates that ship in the wheel and do not change while
it runs (issue 25): once a template is loaded, rendering a page does not look at the template
files again (Jinja's reload check did it at every include, once a log row)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from uuid import UUID

import jinja2.runtime
import markupsafe
import msgspec
import pytest
from jinja2 import Environment, Undefined
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.testing import TestClient
from markupsafe import Markup
from web_helpers import Site, bearer, grow, make_site

from blowbyblow.domain.system import Stat, StateView, UnitView
from blowbyblow.web import app as web_app
from blowbyblow.web import templating
from blowbyblow.web.schemas import EventRow, ModifierRow, PlayCommand, StartBattle, VoidRequest
from blowbyblow.web.service import Service
from blowbyblow.web.table_parts import table_parts
from blowbyblow.web.templating import template_engine

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"


def _grown(tmp_path: Path, seed: str, events: int) -> tuple[Site, UUID]:
    """A site with a Gangfight battle at spring's table 1 of at least ``events`` events."""
    site = make_site(tmp_path)
    service = Service(store=site.store, tournaments=site.tournaments)
    battle = UUID(service.start("spring", 1, StartBattle(ruleset="gangfight", seed=seed)).battle)
    grow(site.store, battle, events)
    return site, battle


def test_a_page_rendered_again_does_not_look_at_its_template_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, battle = _grown(tmp_path, "t", 60)  # a log of more than one row on the page
    looked: list[str] = []
    getmtime = os.path.getmtime

    def counted(path: Any) -> float:
        if Path(path).resolve().is_relative_to(TEMPLATES.resolve()):
            looked.append(str(path))
        return getmtime(path)

    with TestClient(site.app()) as client:
        first = client.get(f"/battles/{battle}")  # the templates loaded
        assert first.status_code == 200
        monkeypatch.setattr(os.path, "getmtime", counted)
        again = client.get(f"/battles/{battle}")
        assert again.status_code == 200
        assert again.text.count('class="ev ') > 1  # rows rendered through _rows.html
    assert looked == []


def _stock_engine() -> JinjaTemplateEngine:
    """Litestar's Jinja engine as it comes: Jinja's own environment, ChainMap globals and all;
    with the templates' one global of ours, each unit rendered afresh (none kept)."""
    engine = JinjaTemplateEngine(directory=TEMPLATES)
    engine.engine.globals["unit_html"] = templating.unit_html(engine.engine, kept=0)
    return engine


def test_a_template_sees_the_environments_globals_even_those_registered_after_it_loaded() -> None:
    engine = template_engine()
    row = engine.engine.get_template("_rows.html")
    # no ChainMap of the template's globals over the environment's, made at every render
    assert row.globals is engine.engine.globals
    engine.register_template_callable("later", lambda ctx: "registered after the load")
    shown = engine.engine.from_string("{{ later() }}").render()
    assert shown == "registered after the load"
    assert "later" in row.globals
    # a template given globals of its own keeps them to itself
    own = engine.engine.get_template("_units.html", globals={"mine": 1})
    assert own.globals["mine"] == 1
    assert "mine" not in engine.engine.globals


@pytest.mark.parametrize("ruleset", ["gangfight", "necromunda-2023"])
def test_the_table_pages_parts_are_what_jinjas_own_environment_renders(
    tmp_path: Path, ruleset: str
) -> None:
    """Each part of the table page, command by command (a void among them), byte for byte the
    same as Litestar's stock engine renders it from the same answer and state."""
    site = make_site(tmp_path)
    service = Service(store=site.store, tournaments=site.tournaments, key=site.key)
    battle = UUID(service.start("spring", 1, StartBattle(ruleset=ruleset, seed="p")).battle)
    ours, stock = template_engine(), _stock_engine()
    compared = 0
    for n in range(12):
        if n == 2:
            last = service.summary(battle).last_command
            service.void(battle, VoidRequest(command=last, reason="a <wrong> fighter"), "table 1")
        options = service.legal(battle).options
        if not options:  # the battle is over
            break
        result = service.play(battle, PlayCommand(option=n % len(options), page=True))
        assert result.status == "played"
        view = service.view(battle, result.version)
        assert table_parts(ours, result, view) == table_parts(stock, result, view)
        compared += 1
    assert compared >= 3


def test_the_pages_are_what_jinjas_own_environment_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, battle = _grown(tmp_path, "q", 40)
    paths = [
        f"/battles/{battle}",
        f"/battles/{battle}/at/20",
        f"/battles/{battle}/at/20/state",
        "/tournaments/spring/tables/1",  # (the dashboard says how long ago: not compared)
    ]
    with TestClient(site.app()) as client:
        ours = [client.get(p, headers=bearer(site.tables[1])) for p in paths]
    monkeypatch.setattr(web_app, "template_engine", _stock_engine)
    with TestClient(site.app()) as client:
        assert type(client.app.template_engine.engine) is Environment  # the stock one
        theirs = [client.get(p, headers=bearer(site.tables[1])) for p in paths]
    for path, a, b in zip(paths, ours, theirs, strict=True):
        assert a.status_code == b.status_code == 200, path
        assert a.text == b.text, path


HOSTILE = [
    "",
    "plain words, a hit roll of 4",
    "<script>alert('x')</script>",
    'a "quoted" & <b>bold</b> fighter',
    "&amp; already &#39; escaped &lt;",
    "Krüg the ürk — 4+ «»\u2028\x00",
    "'",
]


class _Html:
    def __html__(self) -> str:
        return "<i>its own</i>"


@pytest.mark.parametrize(
    "value",
    [*HOSTILE, 0, 7, -3, 10**30, True, None, 2.5, Markup("<b>kept</b>"), _Html(), Undefined()],
)
def test_escape_is_markupsafes(value: Any) -> None:
    ours = templating.escape(value)
    assert type(ours) is Markup
    assert ours == markupsafe.escape(value)


def test_the_log_rows_with_hostile_text_are_what_jinjas_own_environment_renders() -> None:
    rows = [
        EventRow(
            position=i + 1,
            type="HitRoll" if i else "CommandIssued",
            text=text,
            rule=HOSTILE[(i + 1) % len(HOSTILE)],
            citation=HOSTILE[(i + 2) % len(HOSTILE)],
            modifiers=[ModifierRow(value=-1, cause=text, rule=text, citation=text)],
            numbers={"natural_roll": i, "needs": 3},
            command=1,
            voided_at=9 if i % 2 else 0,
            void_reason=text,
        )
        for i, text in enumerate(HOSTILE)
    ]
    for context in ({}, {"current_at": 3, "odds_buttons": True}):
        ours = template_engine().get_template("_rows.html").render(log=rows, **context)
        stock = _stock_engine().get_template("_rows.html").render(log=rows, **context)
        assert ours == stock
        assert "<script>" not in ours


def test_a_templates_values_are_escaped_without_markupsafes_wrapper(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each value a template shows is escaped by ``web/templating.py``'s ``escape`` (issue 25:
    MarkupSafe's Python wrapper and ``Markup.__new__`` around its C replacement, ten a log row,
    were about a third of rendering a command's parts): MarkupSafe's own is asked only for what
    is not a str or an int."""
    asked: list[Any] = []

    def counted(value: Any) -> Markup:
        asked.append(value)
        return markupsafe.escape(value)

    monkeypatch.setattr(jinja2.runtime, "escape", counted)  # what compiled templates import
    monkeypatch.setattr(templating, "markupsafe_escape", counted, raising=False)
    row = EventRow(position=4, type="HitRoll", text="<a> 4", rule="GF 5", citation="GF p.5")
    shown = template_engine().get_template("_rows.html").render(log=[row])
    assert "&lt;a&gt; 4" in shown
    assert asked == []


def test_a_templates_render_yields_its_output_once() -> None:
    """A part's template collects its output and yields it once, joined (issue 25: Jinja's own
    yields each piece, text and value alike, some 250 a command's parts), the same text; a
    template with blocks, a parent or an include without context is compiled as Jinja does."""
    rows = [
        EventRow(position=i, type="HitRoll", text=f"<roll> {i}", numbers={"needs": i})
        for i in range(1, 6)
    ]
    ours, stock = template_engine().engine, _stock_engine().engine
    pieces: dict[str, list[str]] = {}
    for name, env in (("ours", ours), ("stock", stock)):
        template = env.get_template("_table_last.html")
        context = template.new_context({"last": rows, "last_row": rows[-1]})
        pieces[name] = list(template.root_render_func(context))
    assert len(pieces["ours"]) == 1
    assert len(pieces["stock"]) > 50
    assert pieces["ours"] == ["".join(pieces["stock"])]
    source = '{% extends "_luck.html" %}{% block x %}{{ a }}{% endblock %}'
    for text in (
        "{% block a %}<{{ a }}>{% block b %}[{{ a }}]{% endblock %}{% endblock %}!",
        '{% include "_luck.html" without context %}{{ a }}',
        source,
    ):
        template = ours.from_string(text)
        assert template.render(a="<x>") == stock.from_string(text).render(a="<x>")


class _Looked:
    """An attribute, an item only, and a property that raises AttributeError."""

    shown = "<attr>"

    def __getitem__(self, key: str) -> str:
        if key == "lost":
            raise KeyError(key)
        return f"<item {key}>"

    @property
    def broken(self) -> str:
        raise AttributeError("broken")

    def called(self) -> str:
        return "<called>"


def test_a_templates_lookups_are_jinjas_without_the_environments_method_for_an_attribute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``a.b`` is Python's getattr, and the environment's own lookup (an item, else undefined)
    only when ``a`` has no attribute ``b`` (issue 25: a Python call for each, some 200 a
    command's parts): the same text as Jinja's stock environment."""
    text = (
        "{{ o.shown }} {{ o.only_item }} {{ o.broken }} {{ o.lost }}|{{ o.called() }}"
        " {{ d.k.shown }} {{ d.missing }} {{ (o.shown ~ o.shown).upper() }}"
        "{% for r in rows %}{{ r.text }}{% endfor %}"
    )
    context: dict[str, Any] = {
        "o": _Looked(),
        "d": {"k": _Looked()},
        "rows": [EventRow(position=1, type="A", text="<t>")],
    }
    ours = template_engine().engine
    assert ours.from_string(text).render(**context) == (
        _stock_engine().engine.from_string(text).render(**context)
    )
    asked: list[str] = []
    lookup = ours.getattr

    def counted(obj: Any, attribute: str) -> Any:
        asked.append(attribute)
        return lookup(obj, attribute)

    monkeypatch.setattr(ours, "getattr", counted)
    ours.from_string(text).render(**context)
    assert sorted(asked) == ["broken", "k", "lost", "missing", "only_item"]  # no attribute


def test_a_units_html_is_kept_by_its_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """The state's units: each value a unit takes rendered once (issue 25: most units do not
    change in a command), a changed unit rendered anew, anything but a UnitView each time;
    the text is the stock environment's each time."""
    hurt = Stat(name="wounds", value="<1>/2")
    krug = UnitView(id="krug", name="Krug <the> ürk", side="a", status="ok", stats=(hurt,))
    vex = UnitView(id="vex", name="Vex", side="b", status="down", flags=("prone",))
    ours, stock = template_engine(), _stock_engine()
    rendered: list[str] = []
    environment = ours.engine
    template = environment.get_template("_unit.html")
    render = template.render

    def counted(**context: Any) -> str:
        rendered.append(context["u"].id if isinstance(context["u"], UnitView) else "plain")
        return render(**context)

    monkeypatch.setattr(template, "render", counted)
    moved = msgspec.structs.replace(krug, status="<moved>")
    views = [
        StateView(sides=("a", "b"), units=(krug, vex)),
        StateView(sides=("a", "b"), units=(krug, vex), phase="turn 2"),
        StateView(sides=("a", "b"), units=(moved, vex)),
    ]
    for view in views:
        shown = ours.get_template("_table_state.html").render(view=view)
        assert shown == stock.get_template("_table_state.html").render(view=view)
        assert "&lt;the&gt;" in shown
    assert rendered == ["krug", "vex", "krug"]
    plain = {"sides": ["a"], "units": [msgspec.to_builtins(krug)]}
    for _ in range(2):
        shown = ours.get_template("_table_state.html").render(view=plain)
        assert shown == stock.get_template("_table_state.html").render(view=plain)
    assert rendered[3:] == ["plain", "plain"]
