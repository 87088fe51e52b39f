"""Liveness/readiness probes for the load balancer. No authentication."""
import platform

from flask import Blueprint, current_app, jsonify
from sqlalchemy import text

from ..extensions import db, limiter

bp = Blueprint("health", __name__)


def healthz():
    return jsonify(status="ok")


def readyz():
    try:
        db.session.execute(text("SELECT 1"))
    except Exception as exc:  # pragma: no cover - depends on the database being down
        current_app.logger.error("readiness check failed: %s", exc)
        return jsonify(status="unavailable", database="down"), 503
    return jsonify(status="ready", database="up")


def version():
    return jsonify(
        version=current_app.config["APP_VERSION"],
        python=platform.python_version(),
        config=current_app.config.get("ENV_NAME", "default"),
    )


bp.add_url_rule("/healthz", view_func=healthz)
bp.add_url_rule("/readyz", "readyz", readyz)
bp.add_url_rule("/version", view_func=version, methods=["GET"])
limiter.exempt(bp)
