"""Catalogue import parsers, selected by the upload's content type.

``bp`` is the book-parser registry; it is not a Flask blueprint.
"""
import csv
import io
import json


class ImporterRegistry:
    def __init__(self):
        self.parsers = {}

    def route(self, content_type):
        def decorator(func):
            self.parsers[content_type] = func
            return func

        return decorator

    def parse(self, content_type, text):
        base = (content_type or "").split(";", 1)[0].strip().lower()
        try:
            parser = self.parsers[base]
        except KeyError:
            raise ValueError(f"unsupported content type {base!r}") from None
        return list(parser(text))


bp = ImporterRegistry()


@bp.route("text/csv")
def parse_csv(text):
    for row in csv.DictReader(io.StringIO(text)):
        yield {
            "isbn": row["isbn"].strip(),
            "title": row["title"].strip(),
            "price_cents": int(row["price_cents"]),
            "stock": int(row.get("stock") or 0),
            "authors": [a.strip() for a in (row.get("authors") or "").split(";") if a.strip()],
        }


@bp.route("application/json")
def parse_json(text):
    data = json.loads(text)
    for item in data if isinstance(data, list) else data.get("books", []):
        yield {
            "isbn": str(item["isbn"]),
            "title": item["title"],
            "price_cents": int(item["price_cents"]),
            "stock": int(item.get("stock", 0)),
            "authors": list(item.get("authors", [])),
        }
