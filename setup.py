"""Package discovery. The repository's top-level folders (domain, projections, replay, cli, web)
are the subpackages of the one import package ``blowbyblow``; every package under them is found
here, so adding a module or a game system edits no list.

``blowbyblow`` itself stays a namespace package (no ``__init__``); its one module of its own,
``blowbyblow.__main__`` (``python -m blowbyblow``), comes from ``cli/_top/``, a folder mapped to
the package's top and therefore not installed as ``blowbyblow.cli._top`` too."""

from setuptools import find_namespace_packages, setup

TOP = ("domain", "projections", "replay", "cli", "web")
PACKAGE_TOP = "cli/_top"

setup(
    package_dir={"blowbyblow": PACKAGE_TOP, **{f"blowbyblow.{top}": top for top in TOP}},
    packages=[
        "blowbyblow",
        *(
            f"blowbyblow.{name}"
            for name in find_namespace_packages(include=[f"{top}*" for top in TOP])
            if "__pycache__" not in name and name != PACKAGE_TOP.replace("/", ".")
        ),
    ],
)
