"""Shopping cart (kept in the session) and the customer's orders."""
from flask import Blueprint, abort, g, jsonify, request, session, url_for
from flask_login import current_user, login_required

from ..services import ServiceError
from ..services.books import book_service
from ..services.orders import PurchaseRequest, order_service
from ..tasks.worker import send_order_confirmation

bp = Blueprint("orders", __name__)

CART_KEY = "cart"


def _cart():
    return {int(k): v for k, v in session.get(CART_KEY, {}).items()}


def _save_cart(cart):
    session[CART_KEY] = {str(k): v for k, v in cart.items() if v > 0}
    session.modified = True


@bp.app_context_processor
def inject_cart_size():
    return {"cart_size": sum(session.get(CART_KEY, {}).values())}


@bp.teardown_request
def release_checkout_lock(exc):
    lock = g.pop("checkout_lock", None)
    if lock is not None and exc is not None:
        lock.clear()


@bp.get("/cart")
def view_cart():
    cart = _cart()
    lines = []
    for book_id, quantity in sorted(cart.items()):
        book = book_service.get(book_id)
        lines.append({"book": book.to_dict(), "quantity": quantity, "line_total_cents": book.price_cents * quantity})
    return jsonify(lines=lines, subtotal_cents=sum(line["line_total_cents"] for line in lines))


@bp.post("/cart/items")
def add_to_cart():
    payload = request.get_json(silent=True) or {}
    try:
        book_id = int(payload["book_id"])
        quantity = int(payload.get("quantity", 1))
    except (KeyError, TypeError, ValueError):
        abort(400, description="book_id and quantity must be integers")
    book = book_service.get(book_id)
    cart = _cart()
    cart[book.id] = cart.get(book.id, 0) + quantity
    if not book.is_digital and cart[book.id] > book.stock:
        abort(409, description=f"only {book.stock} copies of {book.title!r} in stock")
    _save_cart(cart)
    return jsonify(cart={str(k): v for k, v in cart.items()}), 201


@bp.delete("/cart/items/<int:book_id>")
def remove_from_cart(book_id):
    cart = _cart()
    cart.pop(book_id, None)
    _save_cart(cart)
    return "", 204


@bp.post("/checkout")
@login_required
def checkout():
    cart = _cart()
    if not cart:
        abort(400, description="your cart is empty")
    g.checkout_lock = {"user": current_user.id}
    purchase = PurchaseRequest(items=sorted(cart.items()), gift_wrap=bool(request.form.get("gift_wrap")))
    try:
        order = order_service.place_order(current_user, purchase)
    except ServiceError:
        raise
    session.pop(CART_KEY, None)
    send_order_confirmation.delay(order.id, current_user.email)
    return jsonify(order.to_dict()), 201, {"Location": url_for("orders.order_detail", order_id=order.id)}


@bp.get("/")
@login_required
def my_orders():
    return jsonify([order.to_dict() for order in order_service.list_for(current_user)])


@bp.get("/<int:order_id>")
@login_required
def order_detail(order_id):
    return jsonify(order_service.get_for(current_user, order_id).to_dict())


@bp.post("/<int:order_id>/cancel")
@login_required
def cancel_order(order_id):
    order = order_service.cancel(order_id, reason=request.form.get("reason", ""), actor=current_user)
    return jsonify(order.to_dict())
