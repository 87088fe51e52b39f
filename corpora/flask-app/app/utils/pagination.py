from dataclasses import dataclass

from flask import current_app, request


@dataclass
class Page:
    items: list
    page: int
    per_page: int
    total: int

    @property
    def pages(self):
        return max(1, -(-self.total // self.per_page))

    @property
    def has_next(self):
        return self.page < self.pages

    def to_dict(self, serialize):
        return {
            "items": [serialize(item) for item in self.items],
            "meta": {
                "page": self.page,
                "per_page": self.per_page,
                "total": self.total,
                "pages": self.pages,
                "has_next": self.has_next,
            },
        }


def page_args():
    """Read ``page``/``per_page`` from the query string, clamped to sane bounds."""
    default = current_app.config["BOOKS_PER_PAGE"]
    limit = current_app.config["MAX_PAGE_SIZE"]
    page = request.args.get("page", 1, type=int) or 1
    per_page = request.args.get("per_page", default, type=int) or default
    return max(page, 1), min(max(per_page, 1), limit)


def paginate(query, page, per_page):
    total = query.order_by(None).count()
    items = query.limit(per_page).offset((page - 1) * per_page).all()
    return Page(items=items, page=page, per_page=per_page, total=total)
