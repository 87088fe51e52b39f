"""JSON endpoints for authors (used by the admin UI and partners)."""
from flask import Blueprint, abort, jsonify, request, url_for
from flask_login import login_required

from ..services.authors import author_service
from ..utils.decorators import staff_required
from ..utils.pagination import page_args
from ..utils.validation import Field, Schema

authors_bp = Blueprint("authors", __name__)

author_schema = Schema(
    name=Field(str, min_length=1, max_length=200),
    bio=Field(str, required=False, max_length=10000),
    birth_year=Field(int, required=False, min_value=-3000, max_value=2100),
)


@authors_bp.get("/")
def list_authors():
    page, per_page = page_args()
    result = author_service.list(request.args.get("q"), page=page, per_page=per_page)
    return jsonify(result.to_dict(lambda a: a.to_dict()))


@authors_bp.post("/")
@login_required
@staff_required
def create_author():
    data = author_schema.load(request.get_json(silent=True))
    author = author_service.create(data)
    return jsonify(author.to_dict()), 201, {"Location": url_for("authors.author", author_id=author.id)}


@authors_bp.route("/<int:author_id>", methods=["GET", "PUT", "PATCH"])
def author(author_id):
    if request.method == "GET":
        return jsonify(author_service.get(author_id).to_dict())
    _require_staff()
    data = author_schema.load(request.get_json(silent=True), partial=request.method == "PATCH")
    return jsonify(author_service.update(author_id, data).to_dict())


@authors_bp.delete("/<int:author_id>")
@login_required
@staff_required
def delete_author(author_id):
    author_service.delete(author_id)
    return "", 204


@authors_bp.get("/<int:author_id>/books")
def author_books(author_id):
    return jsonify([b.to_dict() for b in author_service.books_by(author_id)])


@authors_bp.patch("/<int:keep_id>/merge/<int:drop_id>")
@login_required
@staff_required
def merge_authors(keep_id, drop_id):
    if keep_id == drop_id:
        abort(400, description="cannot merge an author into itself")
    return jsonify(author_service.merge(keep_id, drop_id).to_dict())


def _require_staff():
    from flask_login import current_user

    if not current_user.is_authenticated:
        abort(401)
    if not current_user.is_staff:
        abort(403)
