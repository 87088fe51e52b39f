"""A tiny in-memory inverted index over titles and author names."""
import re
from collections import defaultdict

from ..models import Book

_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text):
    return _TOKEN.findall((text or "").lower())


class SearchIndex:
    def __init__(self):
        self._postings = defaultdict(set)
        self.size = 0

    def rebuild(self):
        self._postings.clear()
        books = Book.query.filter(Book.active.is_(True)).all()
        for book in books:
            self.add(book)
        self.size = len(books)
        return self.size

    def add(self, book):
        words = tokenize(book.title)
        for author in book.authors:
            words += tokenize(author.name)
        for word in words:
            self._postings[word].add(book.id)

    def query(self, text, limit=20):
        words = tokenize(text)
        if not words:
            return []
        ids = set.intersection(*(self._postings.get(w, set()) for w in words))
        return sorted(ids)[:limit]

    def suggest(self, prefix, limit=8):
        prefix = prefix.lower()
        return sorted(w for w in self._postings if w.startswith(prefix))[:limit]


search_index = SearchIndex()
