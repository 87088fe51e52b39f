from flask import Blueprint

v1_bp = Blueprint("v1", __name__, url_prefix="/v1")

from . import books, errors, orders  # noqa: E402,F401  (attach routes and handlers to v1_bp)
