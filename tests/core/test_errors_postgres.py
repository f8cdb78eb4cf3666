"""PostgreSQL as a tournament's judges meet it: a server that asks for a password (given in the
URL, in a password file, in libpq's PGPASSFILE or PGPASSWORD, never shown), a wrong password
refused at once with the server's reason, and stores opened at the same moment making the tables
once, without racing ("tuple concurrently updated")."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from uuid import uuid4

import psycopg
import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.store.log import BattleStore

from pgserver import postgres_server

PASSWORD = "p@ss:w/rd"  # a raw @, a colon and a slash: what URLs mangle


@dataclass(frozen=True)
class Server:
    admin: str  # postgresql://bxb@127.0.0.1:PORT/postgres: the superuser, trusted
    port: int

    def database(self) -> str:
        """A fresh database owned by the judge, who must give a password."""
        name = f"bxb_{uuid4().hex[:12]}"
        with psycopg.connect(self.admin, autocommit=True) as con:
            con.execute(f"create database {name} owner judge")
        return name

    def url(self, database: str, password: str | None = PASSWORD) -> str:
        login = "judge" if password is None else f"judge:{password}"
        return f"postgresql://{login}@127.0.0.1:{self.port}/{database}"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with postgres_server() as admin:
        with psycopg.connect(admin, autocommit=True) as con:
            con.execute(f"create role judge login password '{PASSWORD}'")
            (hba,) = con.execute("show hba_file").fetchone() or ("",)
            # the superuser stays trusted (the fixtures use it); everyone else gives a password
            con.execute(
                "copy (select unnest(array["
                "'local all all trust', "
                "'host all bxb 127.0.0.1/32 trust', "
                "'host all all 127.0.0.1/32 scram-sha-256'])) "
                f"to '{hba}'"
            )
            con.execute("select pg_reload_conf()")
        yield Server(admin=admin, port=int(admin.rsplit(":", 1)[1].split("/")[0]))


def bxb(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--log-level", "error", *args], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout + result.stderr


def test_a_wrong_password_is_refused_with_the_servers_reason(server: Server) -> None:
    url = server.url(server.database(), password="not-it")
    code, said = bxb("--db", url, "battles")
    assert code == 1 and "Traceback" not in said
    assert 'password authentication failed for user "judge"' in said
    assert "not-it" not in said and "judge:***@" in said


def test_a_password_with_a_raw_at_sign_in_the_url(server: Server) -> None:
    url = server.url(server.database())
    code, said = bxb("--db", url, "demo")
    assert code == 0, said
    assert PASSWORD not in said and "judge:***@127.0.0.1" in said


def test_the_password_from_a_file_keeps_it_out_of_ps(server: Server, tmp_path: Path) -> None:
    """`ps` shows a process's arguments, not its environment: BXB_DB holds the URL, and the
    password file or libpq's password file the password."""
    url = server.url(server.database(), password=None)
    secret = tmp_path / "db-password"
    secret.write_text(PASSWORD + "\n")
    assert bxb("battles", env={"BXB_DB": url, "BXB_DB_PASSWORD_FILE": str(secret)})[0] == 0
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"127.0.0.1:{server.port}:*:judge:{PASSWORD.replace(':', chr(92) + ':')}\n")
    pgpass.chmod(0o600)
    assert bxb("battles", env={"BXB_DB": url, "PGPASSFILE": str(pgpass)})[0] == 0
    assert bxb("battles", env={"BXB_DB": url, "PGPASSWORD": PASSWORD})[0] == 0
    # and without any of them, the server's refusal
    code, said = bxb("battles", env={"BXB_DB": url, "PGPASSFILE": str(tmp_path / "none")})
    assert code == 1 and "password" in said


def test_an_unreadable_password_file_is_named(server: Server, tmp_path: Path) -> None:
    url = server.url(server.database(), password=None)
    code, said = bxb("battles", env={"BXB_DB": url, "BXB_DB_PASSWORD_FILE": str(tmp_path)})
    assert code == 1 and "BXB_DB_PASSWORD_FILE" in said and "cannot read" in said


def test_stores_opened_at_the_same_moment_make_the_tables_once(server: Server) -> None:
    url = server.url(server.database())
    opened: list[str] = []
    barrier = threading.Barrier(8)

    def open_one() -> None:
        barrier.wait()
        try:
            BattleStore(url).battles()
            opened.append("ok")
        except Exception as e:  # what a racing CREATE TABLE raises, to be counted
            opened.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=open_one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert opened == ["ok"] * 8
