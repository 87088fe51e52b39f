"""Shared column helpers and mixins for the declarative models."""
from datetime import datetime, timezone

from ..extensions import db


def utcnow():
    return datetime.now(timezone.utc).replace(tzinfo=None)


class TimestampMixin:
    created_at = db.Column(db.DateTime, nullable=False, default=utcnow)
    updated_at = db.Column(db.DateTime, nullable=False, default=utcnow, onupdate=utcnow)


class SerializerMixin:
    """``to_dict`` driven by a ``__serialize__`` tuple of attribute names."""

    __serialize__ = ()

    def to_dict(self, *, include=(), exclude=()):
        names = [n for n in (*self.__serialize__, *include) if n not in exclude]
        out = {}
        for name in names:
            value = getattr(self, name)
            if isinstance(value, datetime):
                value = value.isoformat() + "Z"
            out[name] = value
        return out


def get_or_404(model, ident, description=None):
    """Like ``db.get_or_404`` but with a resource-specific message."""
    from flask import abort

    obj = db.session.get(model, ident)
    if obj is None:
        abort(404, description=description or f"{model.__name__} {ident} not found")
    return obj
