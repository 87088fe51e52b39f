from flask import session

from app.extensions import db
from app.models import User


def test_register_returns_token_and_location(client):
    resp = client.post(
        "/auth/register",
        json={"email": "New.Reader@Example.test", "name": "New Reader", "password": "long-enough-1"},
    )
    assert resp.status_code == 201
    body = resp.get_json()
    assert body["user"]["email"] == "new.reader@example.test"
    assert "password_hash" not in body["user"]
    assert resp.headers["Location"].endswith("/auth/me")
    assert len(body["token"]) == 48


def test_register_rejects_weak_password(client):
    resp = client.post("/auth/register", json={"email": "weak@example.test", "name": "Weak", "password": "aaaaaaaaaaaa"})
    assert resp.status_code == 422
    assert resp.get_json()["error"] == "weak_password"


def test_register_rejects_unknown_fields(client):
    resp = client.post("/auth/register", json={"email": "x@example.test", "name": "X", "password": "p" * 12, "admin": True})
    assert resp.status_code == 422
    assert resp.get_json()["fields"] == {"admin": "unknown field"}


def test_duplicate_email_is_a_conflict(client, customer):
    resp = client.post("/auth/register", json={"email": customer.email, "name": "Dup", "password": "long-enough-1"})
    assert resp.status_code == 409
    assert resp.get_json()["error"] == "conflict"


def test_token_login_and_me(client, customer, customer_headers):
    resp = client.get("/auth/me", headers=customer_headers)
    assert resp.status_code == 200
    assert resp.get_json()["email"] == customer.email
    assert "Authorization" in resp.headers.get("Vary", "")


def test_wrong_password_is_401(client, customer):
    resp = client.post("/auth/token", json={"email": customer.email, "password": "nope-nope-nope"})
    assert resp.status_code == 401
    assert resp.get_json()["error"] == "invalid_credentials"


def test_revoke_token(client, customer_headers):
    assert client.delete("/auth/token", headers=customer_headers).status_code == 204
    assert client.get("/auth/me", headers=customer_headers).status_code == 401


def test_form_login_sets_session(client, customer):
    with client:
        resp = client.post("/auth/login", data={"email": customer.email, "password": "correct-horse-42", "next": "/books/"})
        assert resp.status_code == 302
        assert resp.headers["Location"].endswith("/books/")
        assert session["login_email"] == customer.email
        assert session.permanent


def test_form_login_failure_renders_form(client, customer):
    resp = client.post("/auth/login", data={"email": customer.email, "password": "wrong"})
    assert resp.status_code == 401
    assert b"Sign in" in resp.data


def test_login_page_renders(client):
    resp = client.get("/auth/login?next=/admin/")
    assert resp.status_code == 200
    assert b'value="/admin/"' in resp.data


def test_change_password(client, app, customer, customer_headers):
    resp = client.put(
        "/auth/me/password",
        json={"current_password": "correct-horse-42", "new_password": "even-better-horse-7"},
        headers=customer_headers,
    )
    assert resp.status_code == 204
    with app.app_context():
        assert db.session.get(User, customer.id).check_password("even-better-horse-7")


def test_logout_clears_session(client, customer):
    with client:
        client.post("/auth/login", data={"email": customer.email, "password": "correct-horse-42"})
        client.get("/auth/logout")
        assert "login_email" not in session
