from flask import abort, jsonify, request, url_for
from flask.views import MethodView
from flask_login import current_user, login_required

from ...extensions import cache, limiter
from ...services.books import book_service
from ...services.reviews import review_service
from ...services.search import search_index
from ...utils.decorators import json_body, staff_required, timed
from ...utils.pagination import page_args
from ...utils.validation import ISBN_PATTERN, Field, Schema
from . import v1_bp

book_schema = Schema(
    isbn=Field(str, pattern=r"[0-9-]{10,17}"),
    title=Field(str, min_length=1, max_length=300),
    description=Field(str, required=False, max_length=5000),
    price_cents=Field(int, min_value=0, max_value=1_000_000),
    stock=Field(int, required=False, min_value=0),
    format=Field(str, required=False, choices=("paperback", "hardcover", "ebook")),
    author_ids=Field(list, required=False),
)

update_schema = Schema(
    title=Field(str, required=False, min_length=1, max_length=300),
    description=Field(str, required=False, max_length=5000),
    price_cents=Field(int, required=False, min_value=0, max_value=1_000_000),
    stock=Field(int, required=False, min_value=0),
    active=Field(bool, required=False),
)

review_schema = Schema(
    rating=Field(int, min_value=1, max_value=5),
    title=Field(str, min_length=3, max_length=120),
    body=Field(str, min_length=20, max_length=5000),
)


@v1_bp.get("/")
def index():
    return jsonify(
        books=url_for(".books"),
        search=url_for(".search_books"),
        orders=url_for(".orders"),
    )


class BookCollection(MethodView):
    decorators = [timed("books.collection")]

    def get(self):
        page, per_page = page_args()
        result = book_service.search(
            request.args.get("q"),
            author_id=request.args.get("author", type=int),
            min_price=request.args.get("min_price", type=int),
            max_price=request.args.get("max_price", type=int),
            page=page,
            per_page=per_page,
        )
        return jsonify(result.to_dict(lambda b: b.to_dict()))

    @login_required
    @staff_required
    def post(self):
        data = book_schema.load(request.get_json(silent=True))
        book = book_service.create(data)
        return jsonify(book.to_dict()), 201, {"Location": url_for(".book", book_id=book.id)}


class BookResource(MethodView):
    def get(self, book_id):
        return jsonify(book_service.get(book_id).to_dict(include=("description", "format")))

    @login_required
    @staff_required
    def patch(self, book_id):
        data = update_schema.load(request.get_json(silent=True), partial=True)
        return jsonify(book_service.update(book_id, data).to_dict())

    put = patch

    @login_required
    @staff_required
    def delete(self, book_id):
        book_service.deactivate(book_id)
        return "", 204


v1_bp.add_url_rule("/books", view_func=BookCollection.as_view("books"))
book_view = BookResource.as_view("book")
v1_bp.add_url_rule("/books/<int:book_id>", view_func=book_view, methods=["GET", "PUT", "PATCH", "DELETE"])


@v1_bp.get("/books/isbn/<isbn>")
def book_by_isbn(isbn):
    book = book_service.get_by_isbn(isbn)
    if not book.active:
        abort(404)
    return jsonify(book.to_dict())


@v1_bp.get("/search")
@cache.cached(timeout=30, query_string=True)
@limiter.limit("60 per minute")
def search_books():
    text = request.args.get("q", "").strip()
    if not text:
        return jsonify(results=[], suggestions=[])
    if not search_index.size:
        search_index.rebuild()
    ids = search_index.query(text)
    books = [book_service.get(i).to_dict() for i in ids]
    return jsonify(results=books, suggestions=search_index.suggest(text.split()[-1]))


@v1_bp.get("/books/<int:book_id>/reviews")
def list_reviews(book_id):
    book_service.get(book_id)
    reviews = review_service.published_for(book_id)
    return jsonify(reviews=[r.to_dict() for r in reviews], summary=review_service.summary(book_id))


@v1_bp.post("/books/<int:book_id>/reviews")
@login_required
@json_body(review_schema)
def create_review(book_id, data):
    review = review_service.submit(current_user, book_id, data)
    return jsonify(review.to_dict()), 201


def isbn_pattern():
    """Exposed for the admin UI's client-side validation."""
    return ISBN_PATTERN
