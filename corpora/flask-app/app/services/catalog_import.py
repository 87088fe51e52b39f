"""Bulk catalogue import from CSV/JSON uploads."""
import logging
from dataclasses import dataclass, field

from ..extensions import db
from ..importers import bp as parsers
from ..models import Author, Book
from ..utils.validation import isbn13_is_valid

log = logging.getLogger(__name__)


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    skipped: list = field(default_factory=list)

    def to_dict(self):
        return {"created": self.created, "updated": self.updated, "skipped": self.skipped}


class AuditTrail:
    """Collects who imported what. ``before_request`` is just a method name here."""

    def __init__(self):
        self.entries = []

    def before_request(self, actor, content_type):
        self.entries.append({"actor": actor, "content_type": content_type})

    def last(self):
        return self.entries[-1] if self.entries else None


audit_trail = AuditTrail()


def _author_named(session, name):
    author = Author.query.filter_by(name=name).first()
    if author is None:
        author = Author(name=name, sort_name=Author.sort_name_for(name))
        session.add(author)
    return author


def import_catalog(content_type, text, *, actor="system"):
    audit_trail.before_request(actor, content_type)
    session = db.session
    report = ImportReport()
    for row in parsers.parse(content_type, text):
        isbn = row["isbn"]
        if not isbn13_is_valid(isbn):
            report.skipped.append({"isbn": isbn, "reason": "invalid ISBN"})
            continue
        book = Book.query.filter_by(isbn=isbn).first()
        if book is None:
            book = Book(isbn=isbn, title=row["title"], price_cents=row["price_cents"], stock=row["stock"])
            session.add(book)
            report.created += 1
        else:
            book.title = row["title"]
            book.price_cents = row["price_cents"]
            book.stock = row["stock"]
            report.updated += 1
        for name in row["authors"]:
            author = _author_named(session, name)
            if author not in book.authors:
                book.authors.append(author)
    session.commit()
    log.info("catalog import by %s: %s", actor, report.to_dict())
    return report
