"""WSGI entry point: ``gunicorn wsgi:app`` or ``flask --app wsgi run``."""
import os

from app import create_app
from app.extensions import db

app = create_app(os.environ.get("FLASK_CONFIG"))


@app.shell_context_processor
def make_shell_context():
    from app.services.books import book_service
    from app.services.orders import order_service

    return {"db": db, "book_service": book_service, "order_service": order_service}


if __name__ == "__main__":
    app.run(host=os.environ.get("HOST", "127.0.0.1"), port=int(os.environ.get("PORT", "5000")))
