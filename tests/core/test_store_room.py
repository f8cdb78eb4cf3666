"""The store room's rule and the folds' (docs/architecture.md), checked over the source: every
module the store (``replay/store/``) reaches through its imports, at any depth and inside
functions too, is none of the rule-running machinery (the driver, the script runner), nor the
battles, evidence or odds rooms; the folds (``projections/``) reach only the domain, msgspec and
the standard library; the rosters room (``replay/rosters/``) only the domain, engine and store."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2]  # the repository's top level is the package

FORBIDDEN_TO_THE_STORE = (
    "blowbyblow.replay.engine.driver",
    "blowbyblow.replay.engine.script",
    "blowbyblow.replay.battles",
    "blowbyblow.replay.evidence",
    "blowbyblow.replay.odds",
    "blowbyblow.cli",
    "blowbyblow.web",
)


def _source(module: str) -> Path | None:
    """The file of a ``blowbyblow`` module (None: not one of ours, or a name inside a module)."""
    if module != "blowbyblow" and not module.startswith("blowbyblow."):
        return None
    where = PACKAGE.joinpath(*module.split(".")[1:])
    for path in (where / "__init__.py", where.with_suffix(".py")):
        if path.is_file():
            return path
    return None


def _imports(module: str, path: Path) -> set[str]:
    """Every module ``module`` names in an import statement, anywhere in its source."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            # ``from package import module`` imports that module
            found.update(f"{base}.{a.name}" for a in node.names if _source(f"{base}.{a.name}"))
    return found


def _reached(*roots: str) -> dict[str, set[str]]:
    """Each ``blowbyblow`` module reached from ``roots`` through imports, with what it imports."""
    reached: dict[str, set[str]] = {}
    todo = list(roots)
    while todo:
        module = todo.pop()
        path = _source(module)
        if module in reached or path is None:
            continue
        reached[module] = _imports(module, path)
        # importing a.b.c runs a/__init__.py and a/b/__init__.py first
        parents = [".".join(module.split(".")[:n]) for n in range(2, module.count(".") + 1)]
        todo.extend([*reached[module], *parents])
    return reached


def _room(folder: str) -> list[str]:
    dotted = "blowbyblow." + folder.replace("/", ".")
    files = sorted((PACKAGE / folder).glob("*.py"))
    return [dotted if p.stem == "__init__" else f"{dotted}.{p.stem}" for p in files]


def test_the_store_never_reaches_the_rules_machinery_nor_the_other_rooms() -> None:
    store = _room("replay/store")
    assert {"blowbyblow.replay.store.log", "blowbyblow.replay.store.readmodels"} <= set(store)
    reached = _reached(*store)
    bad = sorted(
        f"{module} imports {name}"
        for module, names in reached.items()
        for name in names
        if name.startswith(FORBIDDEN_TO_THE_STORE)
    )
    assert not bad, "the store room reaches what it must not:\n" + "\n".join(bad)


def test_the_folds_reach_only_the_domain_msgspec_and_the_standard_library() -> None:
    folds = _room("projections")
    assert "blowbyblow.projections.battle" in folds
    reached = _reached(*folds)
    ours = ("blowbyblow.domain", "blowbyblow.projections")
    allowed_outside = {"msgspec", "__future__", *sys.stdlib_module_names}

    def allowed(name: str) -> bool:
        if name == "blowbyblow" or name.startswith("blowbyblow."):
            return name == "blowbyblow" or name.startswith(ours)
        return name.partition(".")[0] in allowed_outside

    bad = sorted(
        f"{module} imports {name}"
        for module, names in reached.items()
        for name in names
        if not allowed(name)
    )
    assert not bad, "projections/ reaches beyond the domain:\n" + "\n".join(bad)
    assert all(m.startswith(ours) for m in reached), sorted(reached)


def test_the_rosters_room_reaches_only_the_domain_the_engine_and_the_store() -> None:
    """replay/rosters (an event's rosters, used by `bxb roster` and the server) adjudicates
    nothing and writes no battle: it reaches the domain, the engine's registry and scenario
    bounds, and the store's settings, never the battles, evidence or odds rooms nor a front end."""
    rosters = _room("replay/rosters")
    assert "blowbyblow.replay.rosters.register" in rosters
    reached = _reached(*rosters)
    ours = (
        "blowbyblow.domain",
        "blowbyblow.replay.engine",
        "blowbyblow.replay.store",
        "blowbyblow.replay.rosters",
    )
    bad = sorted(  # what the room itself imports; the store's own reach is the store's rule
        f"{module} imports {name}"
        for module, names in reached.items()
        if module.startswith("blowbyblow.replay.rosters")
        for name in names
        if name.startswith("blowbyblow.") and not name.startswith(ours)
    )
    assert not bad, "replay/rosters reaches beyond its room:\n" + "\n".join(bad)
    for forbidden in ("blowbyblow.replay.engine.driver", "blowbyblow.replay.engine.script"):
        assert forbidden not in reached, forbidden
