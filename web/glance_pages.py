"""The dashboard's rows as a fragment (``templates/_glance.html``): what the dashboard fetches
when any table writes, to redraw its rows in place rather than reload (``static/dashboard.js``)."""

from __future__ import annotations

from litestar import get
from litestar.params import FromPath
from litestar.response import Template

from blowbyblow.web.api import AnyRequest, server, work
from blowbyblow.web.glance import ago, glance
from blowbyblow.web.pages import REFUSALS, _page, _refused


@get("/tournaments/{slug:str}/glance", include_in_schema=False)
async def glance_rows(request: AnyRequest, slug: FromPath[str]) -> Template:
    srv = server(request)
    try:
        srv.access(request).read()
        rows = await work(glance, srv.service, slug)
    except REFUSALS as e:
        return _refused(request, e)
    return _page(request, "_glance.html", rows=rows, ago=ago, slug=slug)


GLANCE_ROUTES = [glance_rows]
