from flask import session

from tests.conftest import make_book


def test_list_page_shows_active_books(client, app):
    make_book(app, title="Kindred", isbn="9780807083697", author="Octavia E. Butler")
    make_book(app, title="Hidden", isbn="9780441013593", active=False)
    resp = client.get("/books/")
    assert resp.status_code == 200
    assert b"Kindred" in resp.data
    assert b"Hidden" not in resp.data


def test_search_filters_by_title(client, app, book):
    make_book(app, title="Dune", isbn="9780441013593", author="Frank Herbert")
    resp = client.get("/books/?q=dune")
    assert b"Dune" in resp.data
    assert book.title.encode() not in resp.data


def test_detail_records_recently_viewed(client, book):
    with client:
        resp = client.get(f"/books/{book.id}")
        assert resp.status_code == 200
        assert session["recently_viewed"] == [book.id]
    resp = client.get("/books/recent")
    assert book.title.encode() in resp.data


def test_detail_of_missing_book_uses_blueprint_handler(client, app):
    resp = client.get("/books/999")
    assert resp.status_code == 404
    assert b"book 999 not found" in resp.data


def test_isbn_redirects_to_detail(client, book):
    resp = client.get(f"/books/isbn/{book.isbn}")
    assert resp.status_code == 301
    assert resp.headers["Location"].endswith(f"/books/{book.id}")


def test_tags_are_normalised(client, app):
    resp = client.get("/books/tags?genres=Fantasy, sci-fi ,fantasy,,")
    assert resp.get_json() == {"genres": ["fantasy", "sci-fi"]}


def test_feature_flag_header_toggles_template_output(client, book):
    assert b"gift wrap available" not in client.get("/books/").data
    resp = client.get("/books/", headers={"X-Feature-Flags": "gift_wrap=on"})
    assert b"gift wrap available" in resp.data


def test_authors_crud(client, staff_headers):
    resp = client.post("/authors/", json={"name": "Ursula K. Le Guin", "birth_year": 1929}, headers=staff_headers)
    assert resp.status_code == 201
    author_id = resp.get_json()["id"]
    assert client.get(f"/authors/{author_id}").get_json()["name"] == "Ursula K. Le Guin"
    resp = client.patch(f"/authors/{author_id}", json={"bio": "Earthsea"}, headers=staff_headers)
    assert resp.get_json()["bio"] == "Earthsea"
    assert client.get("/authors/?q=guin").get_json()["meta"]["total"] == 1
    assert client.delete(f"/authors/{author_id}", headers=staff_headers).status_code == 204


def test_authors_writes_need_staff(client, customer_headers):
    resp = client.post("/authors/", json={"name": "Nobody"}, headers=customer_headers)
    assert resp.status_code == 403
    assert client.put("/authors/1", json={"name": "X"}).status_code == 401


def test_author_with_books_cannot_be_deleted(client, book, staff_headers):
    author_id = book.author_id
    resp = client.delete(f"/authors/{author_id}", headers=staff_headers)
    assert resp.status_code == 409
    assert client.get(f"/authors/{author_id}/books").get_json()[0]["id"] == book.id
