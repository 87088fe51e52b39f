"""Application-wide request hooks, attached by register_hooks(app)."""
import logging
import time
import uuid

from flask import current_app, g, request
from flask_login import current_user

from .extensions import error_reporter

log = logging.getLogger(__name__)

REQUEST_ID_HEADER = "X-Request-Id"


def register_hooks(app):
    @app.before_request
    def assign_request_id():
        incoming = request.headers.get(REQUEST_ID_HEADER, "")
        g.request_id = incoming if 8 <= len(incoming) <= 64 else uuid.uuid4().hex
        g.started = time.perf_counter()

    @app.before_request
    def remember_user():
        g.user_id = current_user.get_id() if current_user.is_authenticated else None

    @app.after_request
    def add_response_headers(response):
        response.headers[REQUEST_ID_HEADER] = g.get("request_id", "")
        started = g.get("started")
        if started is not None:
            elapsed_ms = (time.perf_counter() - started) * 1000
            response.headers["Server-Timing"] = f"app;dur={elapsed_ms:.1f}"
            if elapsed_ms > current_app.config["SLOW_REQUEST_MS"]:
                current_app.logger.warning("slow request %s %s took %.0f ms", request.method, request.path, elapsed_ms)
        return response

    @app.teardown_request
    def report_exception(exc):
        if exc is not None:
            error_reporter.capture(exc, path=request.path, request_id=g.get("request_id"))

    @app.teardown_appcontext
    def release_resources(exc=None):
        timings = g.pop("timings", None)
        if timings:
            log.debug("view timings: %s", timings)


def before_request_cleanup():
    """Reset per-process caches between CLI jobs.

    Despite the name this is not a request hook; the seed command calls it.
    """
    from .services.search import search_index

    search_index.size = 0
    return True
