"""Secrets kept on disk beside a store: the table's own copy of its fair battles' seeds
(``SeedVault``), and the private folders and files they (and the judges' keys) are written in:
mode 0700 and 0600 whatever the umask, flushed to disk, never overwritten."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from blowbyblow.domain.judging import JudgingError


def private_folder(directory: Path, *, ours: bool = False) -> Path:
    """``directory``, created with mode 0700 whatever the umask (and any missing parent too).
    An existing folder others may open is closed to them when it is ``ours`` (blowbyblow's own:
    the default key folder, a seed vault), refused otherwise: a secret goes nowhere else."""
    missing = [d for d in (directory, *directory.parents) if not d.exists()]
    try:
        for d in reversed(missing):
            d.mkdir(mode=0o700)
            os.chmod(d, 0o700)  # mkdir's mode is masked by the umask; chmod is not
        mode = stat.S_IMODE(directory.stat().st_mode)
    except OSError as e:
        raise JudgingError(
            f"{directory}: cannot make this folder ({e.strerror or e}"
            + (f": {e.filename}" if e.filename and str(e.filename) != str(directory) else "")
            + "); expected a folder you may create and write in"
        ) from None
    if not directory.is_dir():
        raise JudgingError(f"{directory} is a file; expected a folder for the keys")
    if mode & 0o077 and ours:
        os.chmod(directory, 0o700)
    elif mode & 0o077:
        raise JudgingError(
            f"{directory} may be opened by others (mode {mode:04o}); keys go in a folder only "
            f"you can open: `chmod 700 {directory}`, or choose another folder"
        )
    return directory


def write_private(path: Path, data: bytes) -> None:
    """A new file readable and writable by its owner alone (0600 whatever the umask), written
    and flushed to disk; never overwrites."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    _fsync_folder(path.parent)


def _fsync_folder(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class SeedVault:
    """The table's own copy of its fair battles' seeds, so that a battle played live can be
    resumed on the same machine: one file per battle (mode 0600, fsynced) in a folder (mode 0700)
    beside the store, or memory for an in-memory store. The judge does not need it: the seal
    opens the escrow in the store. Battles recorded before escrow existed have only this copy."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._memory: dict[str, str] = {}

    def put(self, battle: str, seed: str) -> None:
        if self.directory is None:
            self._memory[battle] = seed
            return
        private_folder(self.directory, ours=True)
        path = self.directory / battle
        if path.exists():
            raise JudgingError(f"a seed for battle {battle} is kept already; not overwriting it")
        write_private(path, seed.encode("ascii"))

    def get(self, battle: str) -> str | None:
        if self.directory is None:
            return self._memory.get(battle)
        p = self.directory / battle
        return p.read_text(encoding="ascii").strip() if p.exists() else None


__all__ = ["SeedVault", "private_folder", "write_private"]
