"""Settings classes, selected by name in the application factory.

Values that differ between deployments come from the environment; everything
else is a plain class attribute so it can be read without an app context.
"""
import os
from datetime import timedelta

BASE_DIR = os.path.abspath(os.path.dirname(os.path.dirname(__file__)))


def _env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_int(name, default):
    try:
        return int(os.environ.get(name, default))
    except (TypeError, ValueError):
        return default


class Config:
    """Defaults shared by every environment."""

    APP_NAME = "Bookshop"
    SECRET_KEY = os.environ.get("SECRET_KEY", "dev-not-secret")
    JSON_SORT_KEYS = False

    SQLALCHEMY_DATABASE_URI = os.environ.get(
        "DATABASE_URL", "sqlite:///" + os.path.join(BASE_DIR, "bookshop.db")
    )
    SQLALCHEMY_TRACK_MODIFICATIONS = False
    SQLALCHEMY_ENGINE_OPTIONS = {"pool_pre_ping": True}

    CACHE_TYPE = "SimpleCache"
    CACHE_DEFAULT_TIMEOUT = 300

    RATELIMIT_DEFAULT = "200 per hour"
    RATELIMIT_STORAGE_URI = "memory://"
    RATELIMIT_HEADERS_ENABLED = True

    MAIL_SERVER = os.environ.get("MAIL_SERVER", "localhost")
    MAIL_PORT = _env_int("MAIL_PORT", 25)
    MAIL_DEFAULT_SENDER = os.environ.get("MAIL_DEFAULT_SENDER", "orders@bookshop.test")
    MAIL_SUPPRESS_SEND = False

    CORS_ORIGINS = os.environ.get("CORS_ORIGINS", "*")

    PERMANENT_SESSION_LIFETIME = timedelta(days=14)
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"

    BOOKS_PER_PAGE = 20
    MAX_PAGE_SIZE = 100
    RECENTLY_VIEWED_LIMIT = 8
    LOW_STOCK_THRESHOLD = 3
    FREE_SHIPPING_CENTS = 5000
    SHIPPING_FLAT_CENTS = 499
    TAX_RATE_BASIS_POINTS = 725

    MAINTENANCE_MODE = _env_bool("MAINTENANCE_MODE")
    SLOW_REQUEST_MS = _env_int("SLOW_REQUEST_MS", 750)
    COVER_SERVICE_URL = os.environ.get("COVER_SERVICE_URL", "https://covers.example.invalid")
    WEBHOOK_SECRET = os.environ.get("WEBHOOK_SECRET", "whsec-dev")
    FEATURE_FLAGS = {"reviews": True, "gift_wrap": False, "recommendations": True}

    @classmethod
    def summary(cls):
        return {
            "name": cls.__name__,
            "database": cls.SQLALCHEMY_DATABASE_URI.split(":", 1)[0],
            "cache": cls.CACHE_TYPE,
        }


class DevelopmentConfig(Config):
    DEBUG = True
    SQLALCHEMY_ECHO = _env_bool("SQLALCHEMY_ECHO")
    MAIL_SUPPRESS_SEND = True


class TestingConfig(Config):
    TESTING = True
    SECRET_KEY = "testing-secret"
    SQLALCHEMY_DATABASE_URI = "sqlite://"
    SQLALCHEMY_ENGINE_OPTIONS = {}
    CACHE_TYPE = "NullCache"
    RATELIMIT_ENABLED = False
    MAIL_SUPPRESS_SEND = True
    WTF_CSRF_ENABLED = False


class ProductionConfig(Config):
    SESSION_COOKIE_SECURE = True
    PREFERRED_URL_SCHEME = "https"
    CACHE_TYPE = os.environ.get("CACHE_TYPE", "SimpleCache")

    @classmethod
    def validate(cls):
        if cls.SECRET_KEY == "dev-not-secret":
            raise RuntimeError("SECRET_KEY must be set in production")


config_by_name = {
    "development": DevelopmentConfig,
    "testing": TestingConfig,
    "production": ProductionConfig,
    "default": DevelopmentConfig,
}


def get_config(name=None):
    name = name or os.environ.get("FLASK_CONFIG") or "default"
    try:
        return config_by_name[name]
    except KeyError:
        raise ValueError(f"unknown configuration {name!r}") from None
