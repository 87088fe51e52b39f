from app.cli import catalog
from app.models import Book, User


def test_seed_command(runner, app):
    result = runner.invoke(args=["seed"])
    assert result.exit_code == 0, result.output
    assert "seeded 6 books" in result.output
    with app.app_context():
        assert Book.query.count() == 6
        assert User.query.filter_by(email="admin@bookshop.test").one().is_admin
    result = runner.invoke(args=["seed", "--no-admin"])
    assert "seeded 0 books" in result.output


def test_catalog_group_is_registered(app):
    assert app.cli.get_command(None, "catalog") is catalog


def test_catalog_reindex(runner, app):
    runner.invoke(args=["seed", "--no-admin"])
    result = runner.invoke(args=["catalog", "reindex"])
    assert result.exit_code == 0, result.output
    assert "indexed 6 books" in result.output


def test_catalog_import(runner, app, tmp_path):
    path = tmp_path / "books.json"
    path.write_text('[{"isbn": "9780441013593", "title": "Dune", "price_cents": 1099, "authors": ["Frank Herbert"]}]')
    result = runner.invoke(args=["catalog", "import", str(path)])
    assert result.exit_code == 0, result.output
    assert "created 1, updated 0, skipped 0" in result.output


def test_blueprint_cli_create_admin(runner, app):
    result = runner.invoke(args=["admin", "create-admin", "boss@bookshop.test", "--password", "a-long-password"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        assert User.query.filter_by(email="boss@bookshop.test").one().is_admin


def test_blueprint_cli_low_stock(runner, app):
    from tests.conftest import make_book

    make_book(app, stock=1)
    result = runner.invoke(args=["admin", "low-stock"])
    assert "A Wizard of Earthsea" in result.output
