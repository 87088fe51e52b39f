"""Error handling, exercised through extra routes registered on a fresh app."""
import pytest
from flask import abort, current_app, g, request

from app import create_app
from app.extensions import db, error_reporter


def test_unhandled_exception_uses_api_500_handler():
    app = create_app("testing")
    app.config["PROPAGATE_EXCEPTIONS"] = False

    @app.route("/_boom")
    def boom():
        raise RuntimeError("kaboom")

    with app.app_context():
        db.create_all()
        resp = app.test_client().get("/_boom", headers={"X-Request-Id": "req-boom-0001"})
    assert resp.status_code == 500
    assert resp.get_json() == {"error": "internal_error", "request_id": "req-boom-0001"}
    assert error_reporter.sent[-1]["message"] == "kaboom"


class TestConflictHandler:
    def setup_method(self):
        self.app = create_app("testing")

        @self.app.get("/_conflict")
        def conflict():
            abort(409, description="already exists")

    def test_register_error_handler_409(self):
        resp = self.app.test_client().get("/_conflict")
        assert resp.status_code == 409
        assert resp.get_json() == {"error": "conflict", "message": "already exists"}


def test_html_404_for_browsers(client):
    resp = client.get("/no/such/page", headers={"Accept": "text/html"})
    assert resp.status_code == 404
    assert b"Not found" in resp.data


def test_request_context_globals(app):
    with app.test_request_context("/books/?q=dune", headers={"X-Request-Id": "req-ctx-000001"}):
        app.preprocess_request()
        assert request.args["q"] == "dune"
        assert g.request_id == "req-ctx-000001"
        assert current_app.config["TESTING"] is True


@pytest.mark.parametrize("path", ["/api/v1/books/999", "/api/v1/orders/abc"])
def test_api_404s_are_json(client, path):
    resp = client.get(path)
    assert resp.status_code in (401, 404)
    assert resp.is_json
