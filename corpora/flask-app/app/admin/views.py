"""Staff back office: dashboard, stock, order shipping and review moderation."""
import click
from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask.views import MethodView
from flask_login import current_user

from ..extensions import db
from ..models import Book, Order, OrderStatus, User
from ..services import ServiceError
from ..services.auth import auth_service
from ..services.books import book_service
from ..services.inventory import inventory_service
from ..services.orders import order_service
from ..services.reviews import review_service

admin = Blueprint("admin", __name__, cli_group="admin")

SECTIONS = [("admin.dashboard", "Dashboard"), ("admin.stock", "Stock"), ("admin.reviews", "Reviews")]


@admin.before_request
def require_staff():
    if not current_user.is_authenticated:
        return redirect(url_for("auth.login_page", next=request.path))
    if not current_user.is_staff:
        abort(403)
    g.admin_user = current_user
    return None


@admin.context_processor
def admin_navigation():
    return {"admin_sections": SECTIONS, "active_endpoint": request.endpoint}


@admin.route("/")
def dashboard():
    stats = {
        "books": Book.query.count(),
        "customers": User.query.filter_by(role="customer").count(),
        "open_orders": Order.query.filter(Order.status.in_(OrderStatus.OPEN)).count(),
        "revenue_cents": order_service.revenue_cents(),
    }
    return render_template("admin/dashboard.html", stats=stats, low_stock=book_service.low_stock())


@admin.route("/stock", methods=["GET", "POST"])
def stock():
    if request.method == "POST":
        try:
            inventory_service.set_stock(int(request.form["book_id"]), int(request.form["on_hand"]))
            flash("Stock updated.", "success")
        except (KeyError, ValueError):
            flash("Book and quantity are required.", "error")
        except ServiceError as exc:
            flash(exc.message, "error")
        return redirect(url_for(".stock"))
    return render_template("admin/stock.html", rows=inventory_service.report())


@admin.post("/books/<int:book_id>/deactivate")
def deactivate_book(book_id):
    book = book_service.deactivate(book_id)
    flash(f"{book.title} is no longer listed.", "success")
    return redirect(url_for(".stock"))


@admin.route("/orders/<int:order_id>/ship", methods=["POST"])
def ship_order(order_id):
    tracking = request.form.get("tracking_number", "").strip()
    if not tracking:
        abort(400, description="tracking number required")
    order_service.ship(order_id, tracking)
    flash(f"Order #{order_id} marked as shipped.", "success")
    return redirect(url_for(".dashboard"))


class ReviewModeration(MethodView):
    """GET lists the moderation queue; POST publishes or rejects one review."""

    init_every_request = False

    def get(self):
        return render_template("admin/reviews.html", reviews=review_service.pending())

    def post(self):
        review_id = request.form.get("review_id", type=int)
        if review_id is None:
            abort(400)
        review_service.moderate(review_id, request.form.get("decision") == "publish")
        return redirect(url_for(".reviews"))


admin.add_url_rule("/reviews", view_func=ReviewModeration.as_view("reviews"))


@admin.cli.command("create-admin")
@click.argument("email")
@click.option("--name", default="Administrator")
@click.password_option()
def create_admin(email, name, password):
    """Create an administrator account."""
    user = auth_service.create_admin(email, name, password)
    click.echo(f"created admin {user.email} (id {user.id})")


@admin.cli.command("low-stock")
@click.option("--notify", is_flag=True, help="Also emit low-stock events.")
def low_stock_report(notify):
    """Print titles at or below the low-stock threshold."""
    books = inventory_service.notify_low_stock(actor="cli") if notify else book_service.low_stock()
    for book in books:
        click.echo(f"{book.isbn}  {book.stock:>3}  {book.title}")
    db.session.remove()
