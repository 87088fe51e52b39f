from app.models import Order, OrderStatus, Review, User
from app.extensions import db
from tests.conftest import make_user


def login(client, email, password="correct-horse-42"):
    return client.post("/auth/login", data={"email": email, "password": password})


def test_admin_redirects_anonymous_to_login(client):
    resp = client.get("/admin/")
    assert resp.status_code == 302
    assert "/auth/login?next=/admin/" in resp.headers["Location"]


def test_admin_forbids_customers(client, customer):
    login(client, customer.email)
    assert client.get("/admin/").status_code == 403


def test_dashboard_for_staff(client, staff, book):
    login(client, staff.email)
    resp = client.get("/admin/")
    assert resp.status_code == 200
    assert b"Dashboard" in resp.data
    assert b'class="active"' in resp.data


def test_stock_update(client, staff, book):
    login(client, staff.email)
    resp = client.post("/admin/stock", data={"book_id": book.id, "on_hand": 42})
    assert resp.status_code == 302
    assert b"42" in client.get("/admin/stock").data


def test_deactivate_book(client, staff, book):
    login(client, staff.email)
    client.post(f"/admin/books/{book.id}/deactivate")
    assert client.get(f"/books/{book.id}").status_code == 404


def test_ship_order(client, app, staff, book, customer, customer_headers):
    order_id = client.post(
        "/api/v1/orders", json={"items": [{"book_id": book.id}]}, headers=customer_headers
    ).get_json()["id"]
    client.post("/api/v1/webhooks/payments", data=b"{}")  # ignored: bad payload
    from app.services.orders import order_service

    with app.app_context():
        order_service.mark_paid(order_id)
    login(client, staff.email)
    resp = client.post(f"/admin/orders/{order_id}/ship", data={"tracking_number": "1Z999AA1"})
    assert resp.status_code == 302
    with app.app_context():
        assert db.session.get(Order, order_id).status == OrderStatus.SHIPPED


def test_review_moderation_view(client, app, staff, book, customer):
    with app.app_context():
        review = Review(book_id=book.id, author_id=customer.id, rating=4, title="Good", body="x" * 30)
        db.session.add(review)
        db.session.commit()
        review_id = review.id
    login(client, staff.email)
    assert b"Good" in client.get("/admin/reviews").data
    resp = client.post("/admin/reviews", data={"review_id": review_id, "decision": "publish"})
    assert resp.status_code == 302
    with app.app_context():
        assert db.session.get(Review, review_id).published


def test_admin_api_books_need_staff(client, customer_headers):
    resp = client.post("/api/v1/books", json={"isbn": "9780441013593", "title": "Dune", "price_cents": 1}, headers=customer_headers)
    assert resp.status_code == 403


def test_set_role_guard(app):
    from app.services import Forbidden
    from app.services.auth import auth_service

    created = make_user(app, "root@bookshop.test", role="admin")
    with app.app_context():
        admin = db.session.get(User, created.id)
        try:
            auth_service.set_role(admin, admin.id, "customer")
        except Forbidden:
            pass
        else:
            raise AssertionError("admins must not demote themselves")
        assert auth_service.set_role(admin, make_user(app, "new@bookshop.test").id, "staff").is_staff
