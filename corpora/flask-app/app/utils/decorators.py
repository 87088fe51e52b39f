"""In-house decorators. None of these register anything with Flask."""
import functools
import logging
import time

from flask import abort, g, request
from flask_login import current_user

log = logging.getLogger(__name__)


def retry(times=3, delay=0.05, exceptions=(ConnectionError, TimeoutError)):
    """Retry a flaky call (mail relay, cover service) a few times."""

    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for attempt in range(1, times + 1):
                try:
                    return func(*args, **kwargs)
                except exceptions as exc:
                    if attempt == times:
                        raise
                    log.warning("%s failed (%s), retry %d/%d", func.__name__, exc, attempt, times)
                    time.sleep(delay * attempt)
            return None

        return wrapper

    return decorator


def staff_required(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if not current_user.is_authenticated:
            abort(401)
        if not current_user.is_staff:
            abort(403)
        return func(*args, **kwargs)

    return wrapper


def admin_required(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if not current_user.is_authenticated or not current_user.is_admin:
            abort(403)
        return func(*args, **kwargs)

    return wrapper


def json_body(schema, *, partial=False):
    """Validate the JSON body and pass the cleaned dict as ``data=``."""

    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            payload = request.get_json(silent=True)
            if payload is None:
                abort(400, description="expected a JSON body")
            kwargs["data"] = schema.load(payload, partial=partial)
            return func(*args, **kwargs)

        return wrapper

    return decorator


def timed(label):
    """Record how long a view took in ``g.timings`` (shown in the debug header)."""

    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                g.setdefault("timings", {})[label] = round((time.perf_counter() - started) * 1000, 2)

        return wrapper

    return decorator
