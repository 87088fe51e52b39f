"""Authentication blueprint. Its routes live in views.py, which adds them to ``bp``."""
from flask import Blueprint

bp = Blueprint("auth", __name__)

from . import views  # noqa: E402,F401  (registers the routes on bp)
