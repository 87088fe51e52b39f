"""Versioned JSON API, mounted at /api. Each version is a nested blueprint."""
import logging

from flask import Blueprint, current_app, g, jsonify, url_for

from ..extensions import error_reporter
from .v1 import v1_bp

log = logging.getLogger(__name__)

api_bp = Blueprint("api", __name__, url_prefix="/api")
api_bp.register_blueprint(v1_bp)


@api_bp.get("/")
def api_root():
    return jsonify(versions={"v1": url_for("api.v1.index")}, current="v1")


@api_bp.after_request
def no_store(response):
    response.headers.setdefault("Cache-Control", "no-store")
    response.headers["X-API-Version"] = current_app.config["APP_VERSION"]
    return response


@api_bp.app_errorhandler(500)
def internal_error(error):
    original = getattr(error, "original_exception", None) or error
    error_reporter.capture(original, request_id=g.get("request_id"))
    log.exception("unhandled error", exc_info=original)
    return jsonify(error="internal_error", request_id=g.get("request_id")), 500
