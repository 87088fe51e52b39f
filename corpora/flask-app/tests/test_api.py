import hashlib
import hmac
import json

from app.models import OrderStatus
from tests.conftest import make_book


def test_api_root_lists_versions(client):
    body = client.get("/api/").get_json()
    assert body == {"versions": {"v1": "/api/v1/"}, "current": "v1"}


def test_v1_index_links(client):
    body = client.get("/api/v1/").get_json()
    assert body["books"] == "/api/v1/books"
    assert body["orders"] == "/api/v1/orders"


def test_book_collection_paginates(client, app):
    for n, isbn in enumerate(["9780441013593", "9780547928227", "9780553283686"]):
        make_book(app, title=f"Book {n}", isbn=isbn)
    resp = client.get("/api/v1/books?per_page=2")
    body = resp.get_json()
    assert resp.headers["Cache-Control"] == "no-store"
    assert [b["title"] for b in body["items"]] == ["Book 0", "Book 1"]
    assert body["meta"] == {"page": 1, "per_page": 2, "total": 3, "pages": 2, "has_next": True}


def test_create_book_validates_with_blueprint_handler(client, staff_headers):
    resp = client.post("/api/v1/books", json={"title": "", "price_cents": -1}, headers=staff_headers)
    assert resp.status_code == 422
    body = resp.get_json()
    assert body["path"] == "/api/v1/books"
    assert set(body["fields"]) == {"isbn", "title", "price_cents"}


def test_create_and_update_book(client, staff_headers):
    resp = client.post(
        "/api/v1/books",
        json={"isbn": "978-0-441-01359-3", "title": "Dune", "price_cents": 1099, "stock": 4},
        headers=staff_headers,
    )
    assert resp.status_code == 201
    location = resp.headers["Location"]
    assert client.get(location).get_json()["title"] == "Dune"
    resp = client.patch(location, json={"price_cents": 999}, headers=staff_headers)
    assert resp.get_json()["price_cents"] == 999
    assert client.delete(location, headers=staff_headers).status_code == 204
    assert client.get("/api/v1/books/isbn/9780441013593").status_code == 404


def test_invalid_isbn_checksum(client, staff_headers):
    resp = client.post(
        "/api/v1/books", json={"isbn": "9780441013590", "title": "Dune", "price_cents": 1099}, headers=staff_headers
    )
    assert resp.status_code == 422
    assert resp.get_json()["error"] == "invalid_isbn"


def test_search(client, app):
    make_book(app, title="The Left Hand of Darkness", isbn="9780441478125")
    body = client.get("/api/v1/search?q=left hand").get_json()
    assert [b["title"] for b in body["results"]] == ["The Left Hand of Darkness"]
    assert client.get("/api/v1/search").get_json() == {"results": [], "suggestions": []}


def test_reviews(client, book, customer_headers):
    resp = client.post(
        f"/api/v1/books/{book.id}/reviews",
        json={"rating": 5, "title": "Classic", "body": "A wonderful book about names and power."},
        headers=customer_headers,
    )
    assert resp.status_code == 201
    body = client.get(f"/api/v1/books/{book.id}/reviews").get_json()
    assert body["reviews"] == []
    assert body["summary"]["count"] == 0


def _sign(payload, secret="whsec-dev"):
    raw = json.dumps(payload).encode()
    return raw, hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()


def test_payment_webhook_marks_order_paid(client, book, customer_headers):
    order_id = client.post(
        "/api/v1/orders", json={"items": [{"book_id": book.id}]}, headers=customer_headers
    ).get_json()["id"]
    raw, signature = _sign({"type": "payment.succeeded", "data": {"order_id": order_id}})
    resp = client.post("/api/v1/webhooks/payments", data=raw, headers={"X-Signature": signature})
    assert resp.status_code == 202
    assert resp.get_json()["result"] == {"order_id": order_id, "status": OrderStatus.PAID}


def test_payment_webhook_rejects_bad_signature(client):
    raw, _ = _sign({"type": "payment.succeeded", "data": {"order_id": 1}})
    resp = client.post("/api/v1/webhooks/payments", data=raw, headers={"X-Signature": "0" * 64})
    assert resp.status_code == 401
    assert resp.get_json()["error"] == "webhook_rejected"


def test_catalog_import(client, staff_headers):
    csv_text = "isbn,title,price_cents,stock,authors\n9780441013593,Dune,1099,3,Frank Herbert\n123,Bad,1,1,\n"
    resp = client.post("/api/v1/imports", data=csv_text, content_type="text/csv", headers=staff_headers)
    assert resp.status_code == 201
    assert resp.get_json() == {"created": 1, "updated": 0, "skipped": [{"isbn": "123", "reason": "invalid ISBN"}]}


def test_unknown_api_route_is_json_404(client):
    resp = client.get("/api/v1/nope")
    assert resp.status_code == 404
    assert resp.get_json()["error"] == "not_found"


def test_method_not_allowed_lists_allow_header(client):
    resp = client.delete("/api/v1/search")
    assert resp.status_code == 405
    assert "GET" in resp.headers["Allow"]
