"""Bookshop: catalogue, orders and an admin site, built with an app factory."""
import logging
from datetime import datetime, timezone

from flask import Flask, current_app, jsonify, redirect, request, url_for

from .cli import register_cli
from .config import get_config
from .errors import register_error_handlers
from .extensions import (
    cache,
    cors,
    db,
    error_reporter,
    feature_flags,
    limiter,
    login_manager,
    mail,
    migrate,
)
from .hooks import register_hooks

__version__ = "2.3.0"


def create_app(config_name=None):
    """Build and configure a new application instance."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_object(get_config(config_name))
    app.config.from_prefixed_env("BOOKSHOP")
    app.config.setdefault("APP_VERSION", __version__)

    if not app.debug and not app.testing:
        logging.basicConfig(level=logging.INFO)

    _init_extensions(app)
    _register_blueprints(app)
    register_hooks(app)
    register_error_handlers(app)
    register_cli(app)

    app.add_url_rule("/", "index", index)
    app.before_request(enforce_maintenance_mode)

    @app.context_processor
    def inject_globals():
        return {
            "shop_name": app.config["APP_NAME"],
            "app_version": app.config["APP_VERSION"],
            "current_year": datetime.now(timezone.utc).year,
        }

    @app.shell_context_processor
    def shell_context():
        from . import models

        return {"db": db, "models": models, "Book": models.Book, "User": models.User}

    return app


def _init_extensions(app):
    db.init_app(app)
    migrate.init_app(app, db)
    login_manager.init_app(app)
    login_manager.login_view = "auth.login_page"
    cache.init_app(app)
    limiter.init_app(app)
    mail.init_app(app)
    cors.init_app(app, resources={r"/api/*": {"origins": app.config["CORS_ORIGINS"]}})
    feature_flags.init_app(app)
    if app.config.get("ERROR_REPORTER_DSN"):
        error_reporter.init_app(app)


def _register_blueprints(app):
    from .admin.views import admin
    from .api import api_bp
    from .auth import bp as auth_bp
    from .authors.routes import authors_bp
    from .books.views import bp as books_bp
    from .health.views import bp as health_bp
    from .orders.routes import bp as orders_blueprint

    app.register_blueprint(auth_bp, url_prefix="/auth")
    app.register_blueprint(books_bp, url_prefix="/books")
    app.register_blueprint(authors_bp, url_prefix="/authors")
    app.register_blueprint(orders_blueprint, url_prefix="/orders")
    app.register_blueprint(admin, url_prefix="/admin")
    app.register_blueprint(api_bp)
    app.register_blueprint(health_bp)


def index():
    if request.accept_mimetypes.best == "application/json":
        return jsonify(name=current_app.config["APP_NAME"], api=url_for("api.api_root"))
    return redirect(url_for("books.list_books"))


def enforce_maintenance_mode():
    if not current_app.config.get("MAINTENANCE_MODE"):
        return None
    if request.path.startswith(("/healthz", "/readyz", "/admin")):
        return None
    response = jsonify(error="maintenance", message="The shop is down for maintenance.")
    response.status_code = 503
    response.headers["Retry-After"] = "300"
    return response
