"""The server's Jinja environment: its templates ship in the wheel (``web/templates``) and
neither they nor the names every template sees (Jinja's and Litestar's globals) change while a
server runs, so two things Jinja does at every render are left out (issue 25):

- looking at each template file's time again whenever it is used (``auto_reload``): it did at
  every include (once a log row, before ``_rows.html`` rendered them all); and the loaded
  templates are kept in a plain dict (``cache_size=-1``: every one, a few dozen) rather than
  an LRU cache that takes a lock and moves the entry at each include;
- a ``ChainMap`` of the template's own globals over the environment's, which Jinja makes for
  each template so that a template's globals could differ from its neighbours'. A context is
  made at each render and each include (a table page's parts are 5 renders and an include a
  log row), and each read every key of that ``ChainMap`` in Python: about a sixth of rendering
  a command's parts. No template here has globals of its own, so each is given the
  environment's own dict, and a name registered later is still seen by every template.

And four things are done with less work (the compiled templates' code, through Jinja's
``code_generator_class``; every page and part the same bytes as Jinja's own environment
renders):

- escaping each value a template shows (``escape``), about a third of rendering a command's
  parts, called for every ``{{ }}``, ten a log row;
- a template's output is collected in a list and yielded once, joined, where Jinja yields each
  piece (some 250 a command's parts, twice over through an include);
- ``a.b`` is Python's ``getattr`` with a default, the environment's method asked only when
  ``a`` has no attribute ``b`` (an item, else undefined);
- each unit of a state is rendered once for each value it takes (``unit_html``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.nodes import Block, Extends, Getattr, Include, Node, Template
from litestar.plugins.jinja import JinjaTemplateEngine
from markupsafe import Markup
from markupsafe import escape as markupsafe_escape

from blowbyblow.domain.system import UnitView

TEMPLATES = Path(__file__).parent / "templates"
# Units' HTML kept (``unit_html``): a tournament of 512 tables shows some 3,000 units at once
UNITS_KEPT = 8192


_markup = str.__new__  # a Markup of a str, without Markup's own __new__ (Python) around it


def escape(s: Any, /) -> Markup:
    """MarkupSafe's ``escape``, the same ``Markup`` of the same text: a str or an int (nearly
    every value a template shows) escaped here, the five characters MarkupSafe replaces replaced
    the same way, without the Python wrapper and ``Markup.__new__`` MarkupSafe calls around its
    C replacement (issue 25); anything else (a ``Markup``, an object with ``__html__``, a bool,
    None, an ``Undefined``) through MarkupSafe's own."""
    kind = type(s)
    if kind is str:
        if "&" in s or "<" in s or ">" in s or "'" in s or '"' in s:
            s = (
                s.replace("&", "&amp;")
                .replace(">", "&gt;")
                .replace("<", "&lt;")
                .replace("'", "&#39;")
                .replace('"', "&#34;")
            )
        return _markup(Markup, s)
    if kind is int:
        return _markup(Markup, str(s))
    return markupsafe_escape(s)


def _writes_only_through_its_buffer(node: Node) -> bool:
    """Whether all a template's (or a block's) output goes through its frame's writes: Jinja
    yields a block's output (``{% block %}``), a parent's (``{% extends %}``) and an include's
    without context straight from the render function, buffer or not."""
    return (
        node.find(Extends) is None
        and node.find(Block) is None
        and all(include.with_context for include in node.find_all(Include))
    )


class _EscapedHere(CodeGenerator):
    """Jinja's code generator (``Environment.code_generator_class``), each compiled template's
    ``escape`` being ``escape`` above: the name is bound last in the template's module, which
    its render functions look up when called.

    And a template's (or a block's) render function collects its output in a list, as Jinja
    does for a macro's or a filter block's, and yields it once, joined (issue 25): Jinja's own
    yields each piece, text and value alike (some 250 a command's parts, each a generator
    resumed, twice over through an include), while the writes of one output tag go into the
    list as one tuple. Only where every piece goes through the frame's writes (no block, no
    parent, no include without context inside): anything else is compiled as Jinja does."""

    _buffered: Frame | None = None

    @optimizeconst
    def visit_Getattr(self, node: Getattr, frame: Frame) -> None:
        """``a.b``: Python's ``getattr`` with a default, and the environment's own lookup (an
        item, else undefined) only when ``a`` has no attribute ``b``, where Jinja calls the
        environment's ``getattr`` method each time (issue 25: some 200 a command's parts, a
        Python call each). An environment with a ``getattr`` of its own (a sandbox) is asked
        each time, as in Jinja."""
        if self.environment.is_async or type(self.environment).getattr is not Environment.getattr:
            super().visit_Getattr(node, frame)
            return
        # ``_o`` and ``_a`` are set and read within this one expression, inner lookups first
        self.write("(_a if (_a := getattr((_o := ")
        self.visit(node.node, frame)
        self.write(f"), {node.attr!r}, missing)) is not missing else environment.getattr(_o, ")
        self.write(f"{node.attr!r}))")

    def visit_Template(self, node: Template, frame: Frame | None = None) -> None:
        self._buffer_root = not self.environment.is_async and _writes_only_through_its_buffer(node)
        super().visit_Template(node, frame)
        self.writeline("from blowbyblow.web.templating import escape")

    def enter_frame(self, frame: Frame) -> None:
        super().enter_frame(frame)
        if frame.buffer is not None or self.environment.is_async:
            return
        if frame.rootlevel:
            buffered = self._buffer_root
        elif frame.block_frame and frame.block is not None and not frame.soft_frame:
            buffered = _writes_only_through_its_buffer(self.blocks[frame.block])
        else:
            return
        if buffered:
            self.buffer(frame)  # ``t_N = []``: every write of the frame is appended to it
            self._buffered = frame

    def leave_frame(self, frame: Frame, with_python_scope: bool = False) -> None:
        super().leave_frame(frame, with_python_scope)
        if frame is self._buffered:
            self.writeline(f"yield concat({frame.buffer})")
            self._buffered = None


class FixedTemplates(Environment):
    """Jinja's environment for templates and globals that do not change while it runs."""

    code_generator_class = _EscapedHere

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        # Jinja's own: ChainMap(d, self.globals). A template given globals of its own (none
        # here) gets a copy with them, so the environment's are never changed through it.
        return self.globals if not d else {**self.globals, **d}


def unit_html(environment: Environment, kept: int = UNITS_KEPT) -> Callable[[Any], Markup]:
    """``unit_html(u)``, the global ``_units.html`` shows each unit with: ``_unit.html``
    rendered for ``u``. A ``UnitView`` is frozen: its HTML is kept by its value, the ``kept``
    most recently shown (issue 25: most of a battle's units do not change in a command, and
    their stats were most of the state's rendering, on the table page and in the answer to each
    of its commands); any other value is rendered each time."""

    def render(unit: Any) -> Markup:
        return Markup(environment.get_template("_unit.html").render(u=unit))

    shown = functools.lru_cache(maxsize=kept)(render)  # thread-safe: the worker threads'

    def unit(u: Any) -> Markup:
        return shown(u) if type(u) is UnitView else render(u)

    return unit


def template_engine() -> JinjaTemplateEngine:
    """Litestar's Jinja engine over the package's templates, HTML escaped."""
    environment = FixedTemplates(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        auto_reload=False,
        cache_size=-1,  # a plain dict of every template: no LRU bookkeeping at each include
    )
    environment.globals["unit_html"] = unit_html(environment)
    return JinjaTemplateEngine.from_environment(environment)


__all__ = ["UNITS_KEPT", "FixedTemplates", "escape", "template_engine", "unit_html"]
