from ..extensions import db
from .base import SerializerMixin, TimestampMixin


class Review(TimestampMixin, SerializerMixin, db.Model):
    __tablename__ = "reviews"
    __serialize__ = ("id", "book_id", "rating", "title", "body", "published", "created_at")

    id = db.Column(db.Integer, primary_key=True)
    book_id = db.Column(db.Integer, db.ForeignKey("books.id"), nullable=False, index=True)
    author_id = db.Column(db.Integer, db.ForeignKey("users.id"), nullable=False)
    rating = db.Column(db.Integer, nullable=False)
    title = db.Column(db.String(120), nullable=False)
    body = db.Column(db.Text, nullable=False)
    published = db.Column(db.Boolean, nullable=False, default=False)

    book = db.relationship("Book", back_populates="reviews")
    author = db.relationship("User", back_populates="reviews")
