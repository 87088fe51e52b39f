from ..extensions import db
from .base import SerializerMixin, TimestampMixin

book_authors = db.Table(
    "book_authors",
    db.Column("book_id", db.Integer, db.ForeignKey("books.id"), primary_key=True),
    db.Column("author_id", db.Integer, db.ForeignKey("authors.id"), primary_key=True),
)


class Author(TimestampMixin, SerializerMixin, db.Model):
    __tablename__ = "authors"
    __serialize__ = ("id", "name", "bio", "birth_year")

    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.String(200), nullable=False)
    sort_name = db.Column(db.String(200), nullable=False, index=True)
    bio = db.Column(db.Text)
    birth_year = db.Column(db.Integer)

    books = db.relationship("Book", secondary=book_authors, back_populates="authors")

    @staticmethod
    def sort_name_for(name):
        parts = name.strip().split()
        if len(parts) < 2:
            return name.strip()
        return f"{parts[-1]}, {' '.join(parts[:-1])}"

    def __repr__(self):
        return f"<Author {self.name}>"
