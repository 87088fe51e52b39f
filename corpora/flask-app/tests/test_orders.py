from app.events import audit_log
from app.models import OrderStatus
from app.tasks.worker import app as worker
from tests.conftest import make_book, stock_of


def test_cart_lives_in_the_session(client, book):
    resp = client.post("/orders/cart/items", json={"book_id": book.id, "quantity": 2})
    assert resp.status_code == 201
    cart = client.get("/orders/cart").get_json()
    assert cart["subtotal_cents"] == 2400
    assert client.delete(f"/orders/cart/items/{book.id}").status_code == 204
    assert client.get("/orders/cart").get_json()["lines"] == []


def test_cart_refuses_more_than_stock(client, book):
    resp = client.post("/orders/cart/items", json={"book_id": book.id, "quantity": 9})
    assert resp.status_code == 409
    assert resp.get_json()["error"] == "conflict"


def test_checkout_places_order_and_queues_mail(client, app, book, customer, customer_headers):
    client.post("/orders/cart/items", json={"book_id": book.id, "quantity": 2})
    resp = client.post("/orders/checkout", headers=customer_headers)
    assert resp.status_code == 201
    order = resp.get_json()
    assert order["status"] == OrderStatus.PENDING
    assert order["subtotal_cents"] == 2400
    assert order["shipping_cents"] == 499
    assert order["tax_cents"] == 174
    assert worker.sent[-1][0] == "orders.send_confirmation"
    assert any(entry.get("order_id") == order["id"] for entry in audit_log)
    assert client.get("/orders/cart").get_json()["lines"] == []
    assert stock_of(app, book.id) == 3


def test_checkout_requires_login(client, book):
    client.post("/orders/cart/items", json={"book_id": book.id})
    resp = client.post("/orders/checkout")
    assert resp.status_code == 302
    assert "/auth/login?next=/orders/checkout" in resp.headers["Location"]
    assert client.post("/orders/checkout", headers={"Accept": "application/json"}).status_code == 401


def test_api_order_flow_and_cancel_restocks(client, app, book, customer_headers):
    resp = client.post("/api/v1/orders", json={"items": [{"book_id": book.id, "quantity": 3}]}, headers=customer_headers)
    assert resp.status_code == 201
    order_id = resp.get_json()["id"]
    assert client.get("/api/v1/orders", headers=customer_headers).get_json()[0]["id"] == order_id
    resp = client.post(f"/api/v1/orders/{order_id}/cancel", json={"reason": "changed my mind"}, headers=customer_headers)
    assert resp.get_json()["status"] == OrderStatus.CANCELLED
    assert stock_of(app, book.id) == 5


def test_other_customers_cannot_see_an_order(client, app, book, customer_headers):
    from tests.conftest import bearer, make_user

    order_id = client.post(
        "/api/v1/orders", json={"items": [{"book_id": book.id}]}, headers=customer_headers
    ).get_json()["id"]
    make_user(app, "stranger@example.test")
    stranger = bearer(client, "stranger@example.test")
    assert client.get(f"/api/v1/orders/{order_id}", headers=stranger).status_code == 404


def test_low_stock_emits_bus_event(client, customer_headers, app):
    low = make_book(app, title="Last Copies", isbn="9780441013593", stock=4)
    client.post("/api/v1/orders", json={"items": [{"book_id": low.id, "quantity": 2}]}, headers=customer_headers)
    assert any(entry.get("event") == "low_stock" and entry["book_id"] == low.id for entry in audit_log)


def test_free_shipping_above_threshold(client, app, customer_headers):
    pricey = make_book(app, title="Collector's Edition", isbn="9780441013593", price_cents=6000)
    order = client.post(
        "/api/v1/orders", json={"items": [{"book_id": pricey.id}]}, headers=customer_headers
    ).get_json()
    assert order["shipping_cents"] == 0
