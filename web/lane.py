"""The hot requests served below Litestar's request machinery (issue 25): a table's command, each
typed die of it (the same route), and the options read before it.

Litestar's way with a request (the request's hooks, the signature model that turns the path's
parameters and the body into the handler's arguments, the response built from the handler's
return) was most of what a typed command costs the server beyond a seeded one. ``lane`` puts a
middleware of its own on such a route (Litestar's extension point for a route's ASGI app, as its
own response cache serves an answer without the handler): the common case (no body, or a JSON
body that decodes strictly to the handler's ``data`` type) calls the route's own handler
function with the path's parameters and the decoded body, and sends what it returns. Anything
else goes Litestar's way unchanged, what was read of the body handed on: another media type
(its 415), a body that does not decode as that type (the 400 that names the field, or a value
Litestar's lax conversion accepts), a body over the route's limit (its 413) or sent in parts.
So the route stays one typed function, the OpenAPI document is still made from it, and a refusal
the handler raises is answered by the app's own exception handlers, through the route's other
middleware (the page policy's headers): the same bytes."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from inspect import getmro
from typing import Any, cast, get_type_hints

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException
from litestar.handlers import HTTPRouteHandler
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send

from blowbyblow.web.guard import content_headers

AnyRequest = Request[Any, Any, Any]
_PARAM = re.compile(r"{(\w+)(?::\w+)?}")


def lane(handler: HTTPRouteHandler) -> HTTPRouteHandler:
    """``handler``'s route served by a lane (see the module). Its function takes the request
    (``request``), the path's parameters and at most a body (``data``): nothing Litestar would
    have to work out (a query parameter, a dependency, a header) that the lane could not."""
    names = set(inspect.signature(handler.fn).parameters)
    path_params = {name for path in handler.paths for name in _PARAM.findall(path)}
    extra = names - path_params - {"request", "data"}
    if "request" not in names or extra:
        raise TypeError(f"{handler.fn.__name__}: a lane passes the request, the path and data only")
    body = get_type_hints(handler.fn)["data"] if "data" in names else None
    fn: Callable[..., Any] = handler.fn
    handler.middleware = [*(handler.middleware or ()), _served(fn, body)]
    return handler


def _served(fn: Callable[..., Any], body: type[Any] | None) -> Callable[[ASGIApp], ASGIApp]:
    def middleware(app: ASGIApp) -> ASGIApp:
        litestar_way = app  # the route as Litestar serves it

        async def served(scope: Scope, receive: Receive, send: Send) -> None:
            taken: list[ReceiveMessage] = []  # what the lane read of the request, handed on

            async def given() -> ReceiveMessage:
                return taken.pop() if taken else await receive()

            request: AnyRequest = scope["litestar_app"].request_class(scope, given, send)
            try:
                kwargs: dict[str, Any] = dict(scope["path_params"])
                if body is not None:
                    kind, length = content_headers(scope["headers"])
                    if kind != "application/json":
                        await litestar_way(scope, given, send)  # the hook's 415, or no body
                        return
                    route = cast("HTTPRouteHandler", scope["route_handler"])
                    limit = route.resolve_request_max_body_size()
                    if not _announced(length, limit):  # before a byte is asked for: its 413
                        await litestar_way(scope, given, send)  # at once, no 100 Continue
                        return
                    taken.append(await receive())
                    whole = _whole(taken[0], limit)
                    if whole is None:  # Litestar's way reads it: its 413, its 400, the rest
                        await litestar_way(scope, given, send)
                        return
                    try:
                        kwargs["data"] = msgspec.json.decode(whole, type=body)
                    except (
                        msgspec.DecodeError,
                        msgspec.ValidationError,
                        RecursionError,
                        UnicodeDecodeError,
                    ):
                        # its reading, the body kept: its 400 names the field, or the body as
                        # nested too deeply or not UTF-8 (web/guard.py), each a 500 here before
                        await litestar_way(scope, given, send)
                        return
                answer = await fn(request, **kwargs)
                if not isinstance(answer, Response):  # a value: the route's own answer of it
                    route = cast("HTTPRouteHandler", scope["route_handler"])
                    answer = route.resolve_response_class()(answer, status_code=route.status_code)
            except Exception as exc:
                answer = _refusal(request, scope, exc)
            await answer.to_asgi_response(app=None, request=request)(scope, receive, send)

        return served

    return middleware


def _announced(length: str, limit: int | None) -> bool:
    """A body whose length the request announces within the route's limit (Litestar's
    ``request_max_body_size``): the lane reads it. Anything else goes Litestar's way before the
    lane asks for a byte of it, as Litestar's own reading bails out: a body announced too large
    is refused 413 at once, where the lane's first ``receive`` had uvicorn answer an
    ``Expect: 100-continue`` with 100 Continue and wait for a body it would refuse."""
    # ASCII digits only: str.isdigit() takes '²', which int() refuses (uvicorn's parser refuses
    # such a length first; another ASGI server might not)
    return length.isascii() and length.isdigit() and (limit is None or int(length) <= limit)


def _whole(message: ReceiveMessage, limit: int | None) -> bytes | None:
    """The request's body when its first message holds all of it, within the route's limit as
    sent (``_announced`` checked it as announced); None for Litestar's way. Read from the
    message itself: Litestar's reading (its stream, the limit found again) was about 20 K
    instructions a command (issue 25)."""
    if message["type"] != "http.request" or message.get("more_body", False):
        return None
    whole: bytes = message.get("body", b"")
    return None if limit is not None and len(whole) > limit else whole


def _refusal(request: AnyRequest, scope: Scope, exc: Exception) -> Any:
    """``exc`` answered by the handler the app's exception handlers name for it, found as
    Litestar finds it (its own finder is not public): an HTTP exception by its status first,
    then the exception's classes, nearest first, then the 500 handler for any other."""
    handlers = scope["route_handler"].resolve_exception_handlers()
    found = handlers.get(exc.status_code) if isinstance(exc, HTTPException) else None
    found = found or next((handlers[c] for c in getmro(type(exc)) if c in handlers), None)
    if found is None and not isinstance(exc, HTTPException):
        found = handlers.get(500)
    if found is None:
        raise exc
    return found(request, exc)


__all__ = ["lane"]
