"""Package discovery. The repository's top-level folders (domain, projections, replay, cli) are
the subpackages of the one import package ``blowbyblow``; every package under them is found
here, so adding a module or a game system edits no list."""

from setuptools import find_namespace_packages, setup

TOP = ("domain", "projections", "replay", "cli", "web")

setup(
    package_dir={f"blowbyblow.{top}": top for top in TOP},
    packages=[
        f"blowbyblow.{name}"
        for name in find_namespace_packages(include=[f"{top}*" for top in TOP])
        if "__pycache__" not in name
    ],
)
