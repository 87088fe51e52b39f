from types import SimpleNamespace

import pytest

from app import create_app
from app.events import audit_log, bus
from app.extensions import db
from app.models import Author, Book, Role, User

PASSWORD = "correct-horse-42"


@pytest.fixture
def app():
    # The app context is pushed only around setup and teardown: a context held
    # open for the whole test would be shared by every test-client request,
    # and so would ``g`` (and the user Flask-Login caches on it).
    app = create_app("testing")
    with app.app_context():
        db.create_all()
    yield app
    with app.app_context():
        db.session.remove()
        db.drop_all()
    audit_log.clear()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


def make_user(app, email="reader@example.test", role=Role.CUSTOMER, password=PASSWORD):
    with app.app_context():
        user = User(email=email, name=email.split("@")[0].title(), role=role)
        user.set_password(password)
        db.session.add(user)
        db.session.commit()
        return SimpleNamespace(id=user.id, email=user.email, role=user.role)


def make_book(app, title="A Wizard of Earthsea", isbn="9780547773742", price_cents=1200, stock=5,
              author="Ursula K. Le Guin", **extra):
    with app.app_context():
        author_obj = Author.query.filter_by(name=author).first() or Author(
            name=author, sort_name=Author.sort_name_for(author)
        )
        book = Book(isbn=isbn, title=title, price_cents=price_cents, stock=stock, **extra)
        book.authors.append(author_obj)
        db.session.add(book)
        db.session.commit()
        return SimpleNamespace(id=book.id, title=book.title, isbn=book.isbn, stock=book.stock, author_id=author_obj.id)


def stock_of(app, book_id):
    with app.app_context():
        return db.session.get(Book, book_id).stock


@pytest.fixture
def customer(app):
    return make_user(app)


@pytest.fixture
def staff(app):
    return make_user(app, "staff@bookshop.test", role=Role.STAFF)


@pytest.fixture
def book(app):
    return make_book(app)


def bearer(client, email, password=PASSWORD):
    resp = client.post("/auth/token", json={"email": email, "password": password})
    assert resp.status_code == 200, resp.get_json()
    return {"Authorization": f"Bearer {resp.get_json()['token']}"}


@pytest.fixture
def customer_headers(client, customer):
    return bearer(client, customer.email)


@pytest.fixture
def staff_headers(client, staff):
    return bearer(client, staff.email)


@pytest.fixture(autouse=True)
def _isolate_bus_history():
    yield
    bus.history.clear()
