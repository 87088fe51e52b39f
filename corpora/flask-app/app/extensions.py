"""Extension objects, created unbound and attached to the app in create_app()."""
import logging
import time

from flask import g
from flask_caching import Cache
from flask_cors import CORS
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_mail import Mail
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy

log = logging.getLogger(__name__)

db = SQLAlchemy()
migrate = Migrate()
login_manager = LoginManager()
cache = Cache()
limiter = Limiter(key_func=get_remote_address)
mail = Mail()
cors = CORS()


class FeatureFlags:
    """Tiny in-house extension: per-request feature switches.

    Flags come from ``FEATURE_FLAGS`` in the config and can be overridden per
    request with an ``X-Feature-Flags: name=on,other=off`` header (staff tools
    use this to preview features).
    """

    header_name = "X-Feature-Flags"

    def __init__(self, app=None):
        self._defaults = {}
        if app is not None:
            self.init_app(app)

    def init_app(self, app):
        self._defaults = dict(app.config.get("FEATURE_FLAGS", {}))
        app.extensions["feature_flags"] = self
        app.before_request(self._load_flags)
        app.context_processor(self._template_flags)

    def _load_flags(self):
        from flask import request

        flags = dict(self._defaults)
        raw = request.headers.get(self.header_name, "")
        for item in filter(None, (part.strip() for part in raw.split(","))):
            name, _, value = item.partition("=")
            if name in flags:
                flags[name] = value.lower() in {"on", "1", "true"}
        g.feature_flags = flags

    def _template_flags(self):
        return {"feature_enabled": self.is_enabled}

    def is_enabled(self, name):
        flags = g.get("feature_flags") or self._defaults
        return bool(flags.get(name, False))


class ErrorReporter:
    """Forwards unhandled exceptions to an external tracker when a DSN is set."""

    def __init__(self):
        self.dsn = None
        self.sent = []

    def init_app(self, app):
        self.dsn = app.config.get("ERROR_REPORTER_DSN")
        app.extensions["error_reporter"] = self

    def capture(self, exc, **context):
        event = {"type": type(exc).__name__, "message": str(exc), "at": time.time(), **context}
        self.sent.append(event)
        log.error("captured %s: %s", event["type"], event["message"])
        return event


feature_flags = FeatureFlags()
error_reporter = ErrorReporter()
