"""``bxb odds --plot`` and ``bxb luck --plot``: images drawn by matplotlib. The plots in
docs/odds.md are drawn here (docs/images/odds-asl.png, docs/images/luck.png)."""

from __future__ import annotations

from pathlib import Path

from screenshots import IMAGES
from test_odds_cli import SCENARIOS, bxb

PNG = b"\x89PNG\r\n\x1a\n"


def test_the_odds_as_bars(tmp_path: Path) -> None:
    image = IMAGES / "odds-asl.png"
    code, out = bxb(
        tmp_path / "b.sqlite", "odds", str(SCENARIOS / "asl.toml"), "--command", "2",
        "--plot", str(image),
    )  # fmt: skip
    assert code == 0, out
    assert image.read_bytes().startswith(PNG) and image.stat().st_size > 10_000


def test_luck_over_time(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    for name in ("necromunda-2023.toml", "asl.toml"):
        assert bxb(db, "record", str(SCENARIOS / name))[0] == 0
    image = IMAGES / "luck.png"
    code, out = bxb(db, "luck", "--all", "--plot", str(image))
    assert code == 0, out
    assert image.read_bytes().startswith(PNG) and image.stat().st_size > 10_000


def test_a_plot_file_of_another_kind_is_refused_in_one_line(tmp_path: Path) -> None:
    target = tmp_path / "luck.txt"
    code, out = bxb(
        tmp_path / "b.sqlite", "odds", str(SCENARIOS / "asl.toml"), "--plot", str(target)
    )
    assert code != 0
    assert out.strip().count("\n") == 0 and "must end in .png, .svg, .pdf" in out, out
    assert not target.exists()
