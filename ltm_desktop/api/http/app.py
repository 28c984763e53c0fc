"""The Starlette application: guard, optional CORS for allowed origins, token, routes."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import Executor

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from ltm_desktop.api.dispatch import Dispatcher
from ltm_desktop.api.http.answers import HttpError, error_response, from_http_error
from ltm_desktop.api.http.guard import BearerAuth, LoopbackGuard
from ltm_desktop.api.http.routes import MemoryRoutes

log = logging.getLogger(__name__)
HTTP_ERRORS = {404: "not_found", 405: "method_not_allowed"}


async def on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HttpError)
    return from_http_error(exc)


async def on_starlette_error(request: Request, exc: Exception) -> Response:
    """404 and 405 from the router, as JSON (405 keeps its ``Allow`` header)."""
    assert isinstance(exc, HTTPException)
    error = HTTP_ERRORS.get(exc.status_code, "http_error")
    detail = f"{request.method} {request.url.path[:200]}: {exc.detail}"
    return error_response(exc.status_code, error, detail, **dict(exc.headers or {}))


async def on_disconnect(request: Request, exc: Exception) -> Response:
    """The peer left (or was dropped) before sending its whole body: no one to answer."""
    path = request.url.path[:200]
    log.info("HTTP: %s %s: the client left before sending its body", request.method, path)
    return error_response(400, "incomplete_body", "the connection closed before the body")


async def on_bug(request: Request, exc: Exception) -> Response:
    """A bug: logged with its traceback, answered without it."""
    log.error("bug while answering %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal_error", "internal error; the server log has details")


def build_app(
    dispatcher: Dispatcher,
    pool: Executor,
    token: str,
    hosts: Sequence[str],
    origins: Sequence[str] = (),
) -> Starlette:
    """The HTTP API for ``dispatcher``'s service, called on ``pool``'s threads;
    ``origins``: browser origins allowed."""
    middleware = [Middleware(LoopbackGuard, hosts=hosts, origins=origins)]
    if origins:  # answers the preflight, which carries no token, for allowed origins only
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(origins),
                allow_methods=["GET", "POST"],
                allow_headers=["Authorization", "Content-Type"],
            )
        )
    middleware.append(Middleware(BearerAuth, token=token))
    return Starlette(
        routes=MemoryRoutes(dispatcher, pool).routes(),
        middleware=middleware,
        exception_handlers={
            HttpError: on_http_error,
            HTTPException: on_starlette_error,
            ClientDisconnect: on_disconnect,
            Exception: on_bug,
        },
    )
