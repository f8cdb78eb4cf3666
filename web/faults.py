"""Whatever a handler raises that no refusal names (a bug, a store failing in a way nobody
foresaw): answered as every refusal is, in the server's own shape (the API's ``ErrorBody``, a
page's refusal page), with status 500 and nothing of the error's own words; its traceback is
logged once, with structlog, naming the request. A refusal (``web/errors.py``) raised where only
an unforeseen error was expected is still answered as a refusal."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.response import Template

from blowbyblow.replay.engine import logs
from blowbyblow.web.answers import Answer
from blowbyblow.web.errors import ApiError, sent_error
from blowbyblow.web.schemas import ErrorBody

AnyRequest = Request[Any, Any, Any]

FAULT = ApiError(
    500,
    "server",
    "a server without faults",
    "the server failed on this request, in a way it did not foresee; nothing is said of why "
    "here (the server's log holds it, with the time of this request); whether a command was "
    "written is not known: read the battle again before sending it again",
)
# Paths not of a page: answered in the API's shape (the schema's document, the static files).
NOT_PAGES = ("/api/", "/schema", "/static/")


def fault(request: AnyRequest, exc: BaseException) -> ApiError:
    """``exc`` as a refusal says it, or, when it is none, logged (once, with its traceback) and
    said as ``FAULT``."""
    error = sent_error(request.scope, exc)
    if error is None:
        logs.logger("blowbyblow.web").error(
            "unforeseen error", method=request.method, path=request.url.path, exc_info=exc
        )
        error = FAULT
    return error


def unforeseen(request: AnyRequest, exc: Exception) -> Response[Any]:
    """What no other handler took, on any route: a page's refusal page or the API's error."""
    error = fault(request, exc)
    if request.url.path.startswith(NOT_PAGES):
        return answer(error)
    return refusal_page(request, error)


def answer(error: ApiError) -> Response[ErrorBody]:
    """``error`` in the API's shape."""
    body = ErrorBody(status=error.status, field=error.field, rule=error.rule, message=error.message)
    return Answer(body, status_code=error.status)


def refusal_page(
    request: AnyRequest, error: ApiError, who: dict[str, Any] | None = None
) -> Template:
    """The refusal page for ``error``: ``who`` is signed in (none known: nobody)."""
    who = who or {"role": "", "tournament": "", "table": None}
    return Template(
        template_name="refused.html",
        context={"who": who, "error": error},
        status_code=error.status,
    )


__all__ = ["FAULT", "answer", "fault", "refusal_page", "unforeseen"]
