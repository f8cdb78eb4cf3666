"""The ASGI application: ``create_app(store, tournaments, ...)`` gives the Litestar app that
``bxb serve`` runs with uvicorn and the tests drive with Litestar's test client.

Templates and static files are read from this package (``web/templates``, ``web/static``), so
everything a page needs ships in the wheel; nothing is loaded from another site."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from litestar import Litestar
from litestar.datastructures import State
from litestar.openapi.config import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.static_files import create_static_files_router
from litestar.template.config import TemplateConfig

from blowbyblow.replay.odds.desk import DeskLimits
from blowbyblow.replay.store.log import BattleStore, is_postgres
from blowbyblow.replay.store.replica import Replica
from blowbyblow.web.access import Reading
from blowbyblow.web.answers import Answer
from blowbyblow.web.api import EXCEPTION_HANDLERS, ROUTES, Server
from blowbyblow.web.disputes_api import DISPUTE_ROUTES
from blowbyblow.web.freshness import fresh_reads
from blowbyblow.web.glance_pages import GLANCE_ROUTES
from blowbyblow.web.guard import BodyRequest, json_only, security_headers, static_name
from blowbyblow.web.live import Hub
from blowbyblow.web.odds_desk import ServerOdds
from blowbyblow.web.pages import PAGES
from blowbyblow.web.plots import PLOT_ROUTES
from blowbyblow.web.quick_odds import QUICK_ROUTES
from blowbyblow.web.roots import ROOT_ROUTES, RootDesk, RootTerms
from blowbyblow.web.roster_api import ROSTER_ROUTES
from blowbyblow.web.service import Service
from blowbyblow.web.setup_api import SETUP_ROUTES
from blowbyblow.web.templating import template_engine
from blowbyblow.web.tokens_api import TOKEN_ROUTES
from blowbyblow.web.tournament import TournamentStore

HERE = Path(__file__).parent
VERSION = "0.1.0"


def create_app(  # noqa: PLR0913 - each a part of how the server is set up
    store: BattleStore,
    tournaments: TournamentStore,
    *,
    key: Ed25519PrivateKey | None = None,
    reading: Reading = "open",
    judge_keys: tuple[str, ...] = (),
    witnesses: RootTerms | None = None,
    read_store: BattleStore | None = None,
    odds: DeskLimits | None = None,
) -> Litestar:
    """The tournament server over ``store``; ``key`` (the judges' signing key) seals, signs the
    receipts handed to the tables and opens fair seeds' escrows; ``judge_keys``: the escrow
    public keys fair seeds are encrypted to (default: ``key``'s own); ``witnesses``: the log's
    name and the witness policy each published root must meet (web/roots.py); ``read_store``: a
    streaming replica of ``store`` that pages and reads go to (``replay/store/replica.py``);
    ``odds``: the odds desk's limits (replay/odds/desk.py: its workers, its time limit, how
    many at once), its defaults when None."""
    replica = None if read_store is None else Replica(store, read_store)
    service = Service(
        store=store,
        tournaments=tournaments,
        key=key,
        judge_keys=judge_keys,
        replica=replica,
        odds_desk=ServerOdds(odds or DeskLimits()),
    )
    srv = Server(service=service, hub=Hub(), reading=reading)
    roots = RootDesk(terms=witnesses, key=key, store=store, tournaments=tournaments)
    db = store.spec or os.environ.get("BXB_DB") or ""
    if is_postgres(db):  # several server processes may share the database: relay the notes
        srv.hub.attach(db, tournaments.origin, srv.heard, tournaments.heard)
        assert srv.hub.relay is not None
        tournaments.listening = srv.hub.relay.listening
    return Litestar(
        route_handlers=[
            *ROUTES,
            *PAGES,
            *SETUP_ROUTES,
            *ROSTER_ROUTES,
            *TOKEN_ROUTES,
            *GLANCE_ROUTES,
            *DISPUTE_ROUTES,
            *PLOT_ROUTES,
            *QUICK_ROUTES,
            *ROOT_ROUTES,
            create_static_files_router(
                path="/static",
                directories=[HERE / "static"],
                include_in_schema=False,
                before_request=static_name,
            ),
        ],
        state=State({"server": srv, "roots": roots}),
        exception_handlers=EXCEPTION_HANDLERS,
        template_config=TemplateConfig(instance=template_engine()),  # web/templating.py
        openapi_config=OpenAPIConfig(
            title="blowbyblow tournament server",
            version=VERSION,
            description="Tables play from a phone, judges time-travel and seal, organisers see "
            "every table. Writes need a token (Authorization: Bearer TOKEN).",
            path="/schema",
            render_plugins=[JsonRenderPlugin()],  # the JSON document only: no pages from a CDN
        ),
        before_request=json_only,
        request_class=BodyRequest,  # a body that is not UTF-8 or too deep: 400 (web/guard.py)
        response_class=Answer,  # plain JSON answers with less work each (web/answers.py)
        middleware=[security_headers, *([fresh_reads] if replica else [])],
        on_shutdown=[lambda: srv.hub.close(), service.odds_desk.close],
    )


__all__ = ["create_app"]
