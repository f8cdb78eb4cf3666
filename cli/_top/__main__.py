"""``python -m blowbyblow`` and ``python -m blowbyblow.cli``: the same as ``bxb``."""

from blowbyblow.cli.main import main

main()
