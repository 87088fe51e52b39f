from flask import current_app
from sqlalchemy import or_

from ..extensions import cache, db
from ..models import Author, Book
from ..utils.pagination import paginate
from ..utils.validation import isbn13_is_valid
from . import Conflict, NotFound, ServiceError


class BookService:
    def get(self, book_id, *, include_inactive=False):
        book = db.session.get(Book, book_id)
        if book is None or (not book.active and not include_inactive):
            raise NotFound(f"book {book_id} not found")
        return book

    def get_by_isbn(self, isbn):
        book = Book.query.filter_by(isbn=self.normalize_isbn(isbn)).first()
        if book is None:
            raise NotFound(f"no book with ISBN {isbn}")
        return book

    @staticmethod
    def normalize_isbn(isbn):
        return "".join(ch for ch in str(isbn) if ch.isdigit())

    def search(self, text=None, *, author_id=None, min_price=None, max_price=None,
               page=1, per_page=20, include_inactive=False):
        query = Book.query
        if not include_inactive:
            query = query.filter(Book.active.is_(True))
        if text:
            like = f"%{text.strip()}%"
            query = query.filter(or_(Book.title.ilike(like), Book.description.ilike(like)))
        if author_id is not None:
            query = query.filter(Book.authors.any(Author.id == author_id))
        if min_price is not None:
            query = query.filter(Book.price_cents >= min_price)
        if max_price is not None:
            query = query.filter(Book.price_cents <= max_price)
        return paginate(query.order_by(Book.title.asc(), Book.id.asc()), page, per_page)

    def create(self, data):
        isbn = self.normalize_isbn(data["isbn"])
        if not isbn13_is_valid(isbn):
            raise ServiceError("ISBN checksum is not valid", code="invalid_isbn", status_code=422)
        if Book.query.filter_by(isbn=isbn).first() is not None:
            raise Conflict(f"a book with ISBN {isbn} already exists")
        book = Book(
            isbn=isbn,
            title=data["title"],
            description=data.get("description"),
            price_cents=data["price_cents"],
            stock=data.get("stock", 0),
            format=data.get("format", "paperback"),
        )
        for author_id in data.get("author_ids", []):
            author = db.session.get(Author, author_id)
            if author is None:
                raise NotFound(f"author {author_id} not found")
            book.authors.append(author)
        db.session.add(book)
        db.session.commit()
        self.invalidate()
        return book

    def update(self, book_id, data):
        book = self.get(book_id, include_inactive=True)
        for name in ("title", "description", "price_cents", "stock", "format", "active"):
            if name in data:
                setattr(book, name, data[name])
        db.session.commit()
        self.invalidate()
        return book

    def deactivate(self, book_id):
        return self.update(book_id, {"active": False})

    def adjust_stock(self, book_id, delta):
        book = self.get(book_id, include_inactive=True)
        if book.stock + delta < 0:
            raise Conflict(f"only {book.stock} copies of {book.title!r} left")
        book.stock += delta
        return book

    def low_stock(self):
        threshold = current_app.config["LOW_STOCK_THRESHOLD"]
        return (
            Book.query.filter(Book.active.is_(True), Book.format != "ebook", Book.stock <= threshold)
            .order_by(Book.stock.asc())
            .all()
        )

    @cache.memoize(timeout=120)
    def bestseller_ids(self, limit=10):
        from ..models import OrderItem

        rows = (
            db.session.query(OrderItem.book_id, db.func.sum(OrderItem.quantity).label("units"))
            .group_by(OrderItem.book_id)
            .order_by(db.text("units DESC"))
            .limit(limit)
            .all()
        )
        return [row.book_id for row in rows]

    def invalidate(self):
        cache.delete_memoized(self.bestseller_ids)


book_service = BookService()
