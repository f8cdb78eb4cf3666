"""Issue 9, item 6: the secrets a table keeps. The fair-seed folder is 0700 and each seed file
0600 whatever the umask, each seed file and its folder flushed to disk (fsync) before the battle
goes on; a store's password never shows, whatever it holds (tests/core/test_errors.py, and
tests/core/test_errors_postgres.py for BXB_DB, a password file and PGPASSFILE)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from blowbyblow.replay.store.log import store_label
from blowbyblow.replay.store.vault import SeedVault


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_the_seed_folder_and_files_are_private_whatever_the_umask(
    tmp_path: Path, umask: int
) -> None:
    vault = SeedVault(tmp_path / "store.seeds")
    old = os.umask(umask)
    try:
        vault.put("battle-1", "ab" * 32)
    finally:
        os.umask(old)
    assert mode(tmp_path / "store.seeds") == 0o700
    assert mode(tmp_path / "store.seeds" / "battle-1") == 0o600
    assert vault.get("battle-1") == "ab" * 32


def test_a_seed_folder_left_open_by_an_older_bxb_is_closed(tmp_path: Path) -> None:
    folder = tmp_path / "store.seeds"
    folder.mkdir()
    folder.chmod(0o777)
    SeedVault(folder).put("battle-1", "cd" * 32)
    assert mode(folder) == 0o700


def test_a_seed_file_and_its_folder_are_flushed_to_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seed lost in a power cut after its battle's first die was shown would leave a battle
    nobody on this machine can resume: the file, and the folder entry naming it, are fsynced."""
    flushed: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        flushed.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    folder = tmp_path / "store.seeds"
    SeedVault(folder).put("battle-1", "ef" * 32)
    assert str(folder / "battle-1") in flushed
    assert str(folder) in flushed
    assert flushed.index(str(folder / "battle-1")) < flushed.index(str(folder))


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://judge:p@ss@db/t", "postgresql://judge:***@db/t"),
        ("postgresql://judge:a@b@c@db:5433/t", "postgresql://judge:***@db:5433/t"),
        ("postgres://judge:@db/t", "postgres://judge:***@db/t"),
        (
            "postgresql://judge:p%40ss@db/t?sslmode=require",
            "postgresql://judge:***@db/t?sslmode=require",
        ),
    ],
)
def test_no_part_of_a_password_is_shown(url: str, shown: str) -> None:
    assert store_label(url) == shown
