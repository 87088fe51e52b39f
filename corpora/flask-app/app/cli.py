"""Command-line tools: ``flask seed``, ``flask catalog reindex`` and friends."""
import click
from flask.cli import with_appcontext

from .extensions import db
from .hooks import before_request_cleanup

SAMPLE_BOOKS = [
    ("9780441013593", "Dune", "Frank Herbert", 1099),
    ("9780547928227", "The Hobbit", "J. R. R. Tolkien", 1499),
    ("9780553283686", "Hyperion", "Dan Simmons", 999),
    ("9780765326355", "The Way of Kings", "Brandon Sanderson", 1899),
    ("9780441569595", "Neuromancer", "William Gibson", 1199),
    ("9780345391803", "The Hitchhiker's Guide to the Galaxy", "Douglas Adams", 899),
]


def register_cli(app):
    @app.cli.command("seed")
    @click.option("--with-admin/--no-admin", default=True, help="Also create admin@bookshop.test.")
    def seed(with_admin):
        """Create tables and load a handful of sample books."""
        from .models import Author, Book
        from .services.auth import auth_service

        before_request_cleanup()
        db.create_all()
        created = 0
        for isbn, title, author_name, price in SAMPLE_BOOKS:
            if Book.query.filter_by(isbn=isbn).first() is not None:
                continue
            author = Author.query.filter_by(name=author_name).first()
            if author is None:
                author = Author(name=author_name, sort_name=Author.sort_name_for(author_name))
            book = Book(isbn=isbn, title=title, price_cents=price, stock=5)
            book.authors.append(author)
            db.session.add(book)
            created += 1
        db.session.commit()
        if with_admin:
            from .models import User

            if User.query.filter_by(email="admin@bookshop.test").first() is None:
                auth_service.create_admin("admin@bookshop.test", "Admin", "change-me-please")
        click.echo(f"seeded {created} books")

    app.cli.add_command(catalog)


@click.group()
def catalog():
    """Catalogue maintenance commands."""


@catalog.command("reindex")
@with_appcontext
def reindex():
    """Rebuild the in-memory search index."""
    from .services.search import search_index

    click.echo(f"indexed {search_index.rebuild()} books")


@catalog.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--content-type", default=None, help="Defaults to the file extension.")
@with_appcontext
def import_file(path, content_type):
    """Import books from a CSV or JSON file."""
    from .services.catalog_import import import_catalog

    if content_type is None:
        content_type = "application/json" if path.endswith(".json") else "text/csv"
    with open(path, encoding="utf-8") as handle:
        report = import_catalog(content_type, handle.read(), actor="cli")
    click.echo(f"created {report.created}, updated {report.updated}, skipped {len(report.skipped)}")
