"""Browser-facing catalogue pages."""
from flask import Blueprint, abort, current_app, g, redirect, render_template, request, session, url_for

from ..extensions import cache
from ..services import NotFound
from ..services.books import book_service
from ..services.reviews import review_service
from ..utils.http import cover_url
from ..utils.pagination import page_args

bp = Blueprint("books", __name__)


@bp.context_processor
def cover_helpers():
    base = current_app.config["COVER_SERVICE_URL"]
    return {"cover_url": lambda isbn, size="M": cover_url(base, isbn, size)}


@bp.errorhandler(NotFound)
def book_not_found(error):
    return render_template("errors/404.html", description=error.message), 404


def _remember_viewed(book_id):
    viewed = [i for i in session.get("recently_viewed", []) if i != book_id]
    viewed.insert(0, book_id)
    session["recently_viewed"] = viewed[: current_app.config["RECENTLY_VIEWED_LIMIT"]]


@bp.route("/")
@cache.cached(timeout=60, query_string=True)
def list_books():
    page, per_page = page_args()
    text = request.args.get("q") or None
    result = book_service.search(text, page=page, per_page=per_page)
    return render_template("books/list.html", page=result, query=text or "")


@bp.route("/<int:book_id>")
def detail(book_id):
    book = book_service.get(book_id)
    _remember_viewed(book.id)
    g.page_title = book.title
    reviews = review_service.published_for(book.id)
    summary = review_service.summary(book.id)
    return render_template("books/detail.html", book=book, reviews=reviews, summary=summary)


@bp.get("/isbn/<isbn>")
def by_isbn(isbn):
    book = book_service.get_by_isbn(isbn)
    return redirect(url_for(".detail", book_id=book.id), code=301)


@bp.get("/recent")
def recently_viewed():
    ids = session.get("recently_viewed", [])
    books = []
    for book_id in ids:
        try:
            books.append(book_service.get(book_id))
        except NotFound:
            continue
    return render_template("books/list.html", page=None, books=books, query="")


@bp.get("/tags")
def tags():
    raw = request.args.get("genres", "")
    if len(raw) > 500:
        abort(400)
    # ``g`` in the comprehension is the loop variable, not flask.g
    genres = sorted({g.strip().lower() for g in raw.split(",") if g.strip()})
    return {"genres": genres}
