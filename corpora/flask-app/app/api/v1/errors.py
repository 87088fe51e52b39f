"""Error handlers that apply only to /api/v1 endpoints."""
from flask import jsonify, request

from ...utils.validation import ValidationError
from ...webhooks.router import WebhookError
from . import v1_bp


@v1_bp.errorhandler(ValidationError)
def validation_failed(error):
    body = error.to_dict()
    body["path"] = request.path
    return jsonify(body), 422


@v1_bp.errorhandler(WebhookError)
def webhook_rejected(error):
    return jsonify(error="webhook_rejected", message=str(error)), error.status


def rate_limited(error):
    return jsonify(error="rate_limited", message=str(error.description)), 429


v1_bp.register_error_handler(429, rate_limited)
