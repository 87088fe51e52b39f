from ..events import EventContext, bus
from ..extensions import db
from ..models import Book
from . import ServiceError
from .books import book_service


class InventoryService:
    def restock(self, book_id, quantity):
        if quantity <= 0:
            raise ServiceError("restock quantity must be positive", code="bad_quantity")
        book = book_service.adjust_stock(book_id, quantity)
        db.session.commit()
        return book

    def set_stock(self, book_id, on_hand):
        if on_hand < 0:
            raise ServiceError("stock cannot be negative", code="bad_quantity")
        book = book_service.get(book_id, include_inactive=True)
        book.stock = on_hand
        db.session.commit()
        return book

    def report(self):
        books = Book.query.filter(Book.format != "ebook").order_by(Book.title.asc()).all()
        return [
            {"id": b.id, "isbn": b.isbn, "title": b.title, "stock": b.stock, "value_cents": b.stock * b.price_cents}
            for b in books
        ]

    def notify_low_stock(self, actor="system"):
        low = book_service.low_stock()
        for book in low:
            bus.emit("book.low_stock", request=book, g=EventContext(actor=actor))
        return low


inventory_service = InventoryService()
