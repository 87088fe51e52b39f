from ..extensions import db
from ..models import Author, Book
from ..utils.pagination import paginate
from . import Conflict, NotFound


class AuthorService:
    def get(self, author_id):
        author = db.session.get(Author, author_id)
        if author is None:
            raise NotFound(f"author {author_id} not found")
        return author

    def list(self, search=None, page=1, per_page=20):
        query = Author.query
        if search:
            query = query.filter(Author.name.ilike(f"%{search}%"))
        return paginate(query.order_by(Author.sort_name.asc()), page, per_page)

    def create(self, data):
        author = Author(
            name=data["name"],
            sort_name=Author.sort_name_for(data["name"]),
            bio=data.get("bio"),
            birth_year=data.get("birth_year"),
        )
        db.session.add(author)
        db.session.commit()
        return author

    def update(self, author_id, data):
        author = self.get(author_id)
        if "name" in data:
            author.name = data["name"]
            author.sort_name = Author.sort_name_for(data["name"])
        for name in ("bio", "birth_year"):
            if name in data:
                setattr(author, name, data[name])
        db.session.commit()
        return author

    def delete(self, author_id):
        author = self.get(author_id)
        if author.books:
            raise Conflict(f"{author.name} still has {len(author.books)} book(s)")
        db.session.delete(author)
        db.session.commit()

    def books_by(self, author_id):
        author = self.get(author_id)
        return [book for book in author.books if book.active]

    def merge(self, keep_id, drop_id):
        keep, drop = self.get(keep_id), self.get(drop_id)
        for book in list(drop.books):
            if keep not in book.authors:
                book.authors.append(keep)
            book.authors.remove(drop)
        db.session.delete(drop)
        db.session.commit()
        return keep

    def without_books(self):
        return Author.query.filter(~Author.books.any(Book.id.isnot(None))).all()


author_service = AuthorService()
