"""Error handlers: JSON for API clients, HTML pages for the browser site."""
from flask import jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from .services import ServiceError
from .utils.validation import ValidationError


def wants_json():
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "application/json"


def handle_not_found(description):
    """Builds the 404 body. A helper for not_found() below, not a registered handler."""
    if wants_json():
        return jsonify(error="not_found", message=description), 404
    return render_template("errors/404.html", description=description), 404


def register_error_handlers(app):
    @app.errorhandler(404)
    def not_found(error):
        return handle_not_found(error.description)

    @app.errorhandler(ServiceError)
    def service_error(error):
        return jsonify(error.to_dict()), error.status_code

    @app.errorhandler(ValidationError)
    def invalid_body(error):
        return jsonify(error.to_dict()), 422

    app.register_error_handler(409, handle_conflict)
    app.register_error_handler(405, method_not_allowed)


def handle_conflict(error):
    message = error.description if isinstance(error, HTTPException) else str(error)
    return jsonify(error="conflict", message=message), 409


def method_not_allowed(error):
    response = jsonify(error="method_not_allowed", message=f"{request.method} is not allowed here")
    response.status_code = 405
    if getattr(error, "valid_methods", None):
        response.headers["Allow"] = ", ".join(error.valid_methods)
    return response
