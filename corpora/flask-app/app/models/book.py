import re

from sqlalchemy import event

from ..extensions import db
from .author import book_authors
from .base import SerializerMixin, TimestampMixin

_SLUG_STRIP = re.compile(r"[^a-z0-9]+")


class Book(TimestampMixin, SerializerMixin, db.Model):
    __tablename__ = "books"
    __serialize__ = ("id", "isbn", "title", "slug", "price_cents", "stock", "active")

    id = db.Column(db.Integer, primary_key=True)
    isbn = db.Column(db.String(13), unique=True, nullable=False)
    title = db.Column(db.String(300), nullable=False)
    slug = db.Column(db.String(320), nullable=False, index=True)
    description = db.Column(db.Text)
    price_cents = db.Column(db.Integer, nullable=False)
    stock = db.Column(db.Integer, nullable=False, default=0)
    active = db.Column(db.Boolean, nullable=False, default=True)
    format = db.Column(db.String(16), nullable=False, default="paperback")

    authors = db.relationship("Author", secondary=book_authors, back_populates="books")
    reviews = db.relationship("Review", back_populates="book", lazy="dynamic")

    @property
    def is_digital(self):
        return self.format == "ebook"

    @property
    def in_stock(self):
        return self.is_digital or self.stock > 0

    def to_dict(self, *, include=(), exclude=()):
        data = super().to_dict(include=include, exclude=exclude)
        data["authors"] = [{"id": a.id, "name": a.name} for a in self.authors]
        return data

    def __repr__(self):
        return f"<Book {self.isbn} {self.title!r}>"


def slugify(text):
    return _SLUG_STRIP.sub("-", text.lower()).strip("-")[:320]


def stamp_slug(mapper, connection, target):
    """SQLAlchemy mapper event: keep the slug in step with the title."""
    target.slug = slugify(target.title or "")


event.listen(Book, "before_insert", stamp_slug)
event.listen(Book, "before_update", stamp_slug)
