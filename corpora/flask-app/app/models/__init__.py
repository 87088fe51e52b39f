from .author import Author, book_authors
from .base import get_or_404, utcnow
from .book import Book, slugify
from .order import Order, OrderItem, OrderStatus
from .review import Review
from .user import Role, User

__all__ = [
    "Author",
    "Book",
    "Order",
    "OrderItem",
    "OrderStatus",
    "Review",
    "Role",
    "User",
    "book_authors",
    "get_or_404",
    "slugify",
    "utcnow",
]
