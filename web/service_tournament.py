"""The server's work on a whole tournament (the judge's dashboard, verify and seal every battle,
a round's exports): ``Service``'s, kept apart from its work on one battle (``web/service.py``)."""

from __future__ import annotations

import io
import zipfile
from typing import TYPE_CHECKING

from blowbyblow.web.errors import ApiError
from blowbyblow.web.schemas import BulkResult, Dashboard, TableRow
from blowbyblow.web.tournament import TournamentError

if TYPE_CHECKING:
    from uuid import UUID

    from blowbyblow.web.schemas import BattleSummary, SealResult, VerifyResult
    from blowbyblow.web.tournament import TournamentStore


class TournamentWide:
    """What ``Service`` does over a tournament's battles, through its work on each one."""

    if TYPE_CHECKING:  # Service's own, which it inherits this from
        tournaments: TournamentStore

        def summary(self, battle: UUID) -> BattleSummary: ...
        def verify(self, battle: UUID) -> VerifyResult: ...
        def seal(self, battle: UUID) -> SealResult: ...
        def export(self, battle: UUID) -> bytes: ...

    def dashboard(self, slug: str) -> Dashboard:
        try:
            tournament = self.tournaments.tournament(slug)
        except TournamentError as e:
            raise ApiError(404, "tournament", "a tournament of this server", str(e)) from None
        played = self.tournaments.battles(slug)
        rows: list[TableRow] = []
        for number in tournament.tables:
            at_table = [p for p in played if p.table == number]
            if not at_table:
                rows.append(TableRow(table=number, status="waiting"))
                continue
            latest = self.summary(at_table[-1].battle)
            rows.append(
                TableRow(table=number, status=latest.status, battle=latest, battles=len(at_table))
            )
        return Dashboard(
            tournament=slug,
            name=tournament.name,
            tables=rows,
            rounds=sorted({p.round for p in played}),
        )

    def verify_all(self, slug: str) -> BulkResult:
        results = [self.verify(p.battle) for p in self.tournaments.battles(slug)]
        return BulkResult(
            done=[r.battle for r in results if r.ok],
            failed={r.battle: r.text for r in results if not r.ok},
            verified=results,
        )

    def seal_finished(self, slug: str) -> BulkResult:
        done: list[str] = []
        failed: dict[str, str] = {}
        for placed in self.tournaments.battles(slug):
            if self.summary(placed.battle).status != "finished":
                continue
            try:
                done.append(self.seal(placed.battle).battle)
            except ApiError as e:
                failed[str(placed.battle)] = e.message
        return BulkResult(done=done, failed=failed)

    def export_round(self, slug: str, round_: int) -> bytes:
        """Every battle of a round, one export each, in a zip."""
        placed = [p for p in self.tournaments.battles(slug) if p.round == round_]
        if not placed:
            raise ApiError(
                404, "round", "a round with battles", f"{slug} has no battle in round {round_}"
            )
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for p in placed:
                z.writestr(
                    f"{slug}-round{round_}-table{p.table}-{p.battle}.jsonl", self.export(p.battle)
                )
        return out.getvalue()
