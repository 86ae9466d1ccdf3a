"""The HTTP service's probes (``/healthz``, ``/readyz``) and the error responses every route
shares: 401/403 come from the routes, these handlers turn the library's typed errors into
404, 409, 413, 422 and 503 (with ``Retry-After``)."""

from __future__ import annotations

from functools import cache

from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.requests import Request

from digest._log import stdlib_logger
from digest.errors import IdempotencyConflict, InvalidEvent
from digest.redact import driver_line, redact
from digest.service.models import Health, Readiness

log = stdlib_logger("digest.service")

#: the largest request body ``POST /v1/events`` reads: a full batch of the largest events that
#: capture keeps whole fits (trimming happens after the body is read, so a body may be bigger
#: than what is stored, but not without bound)
BODY_MAX_BYTES = 16 * 1024 * 1024
#: seconds a client is asked to wait after a 503
RETRY_AFTER_S = 5
UNAVAILABLE = "the database is unavailable; nothing was stored or read. Retry later."


# --- probes --------------------------------------------------------------------------------


def healthz() -> Health:
    """The process is alive (no I/O)."""
    return Health(status="ok")


@cache
def _head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    from digest.migrate import alembic_config

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def readyz() -> JSONResponse:
    """The database answers and is migrated to this code's schema."""
    from alembic.runtime.migration import MigrationContext

    from digest.db import get_engine

    try:
        with get_engine().connect() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
    except Exception as exc:  # any driver or URL fault: not ready, say why
        return _readiness(False, f"database unreachable: {driver_line(exc)}")
    head = _head_revision()
    if current != head:
        return _readiness(False, f"schema at {current}, code at {head}: run `digest db upgrade`")
    return _readiness(True, None)


def _readiness(ready: bool, reason: str | None) -> JSONResponse:
    body = Readiness(status="ready" if ready else "not ready", reason=reason)
    return JSONResponse(body.model_dump(), status_code=200 if ready else 503)


# --- errors --------------------------------------------------------------------------------


def invalid(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, InvalidEvent)
    if isinstance(exc, IdempotencyConflict):
        return JSONResponse({"detail": exc.message}, status_code=409)
    problems = [{"field": str(e["field"]), "message": str(e["message"])} for e in exc.errors]
    return JSONResponse({"detail": problems}, status_code=422)


def request_invalid(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = [
        {"field": ".".join(str(p) for p in e["loc"]), "message": str(e["msg"])}
        for e in exc.errors()
    ]
    return JSONResponse({"detail": problems}, status_code=422)


def too_large(_request: Request, _exc: Exception) -> JSONResponse:
    detail = f"the body is larger than {BODY_MAX_BYTES} bytes; nothing was stored"
    return JSONResponse({"detail": detail}, status_code=413)


def bad_argument(_request: Request, exc: Exception) -> JSONResponse:
    field, found, message = str(exc).partition(": ")
    problem = {"field": field, "message": message} if found else {"field": "", "message": field}
    return JSONResponse({"detail": [problem]}, status_code=422)


def conflict(_request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=409)


def not_found(_request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=404)


def unavailable(request: Request, exc: Exception) -> JSONResponse:
    log.warning("database_unavailable path=%s error=%s", request.url.path, redact(str(exc)))
    return JSONResponse(
        {"detail": UNAVAILABLE}, status_code=503, headers={"Retry-After": str(RETRY_AFTER_S)}
    )
