from dataclasses import dataclass, field

from flask import current_app, g, has_request_context

from ..events import EventContext, bus
from ..extensions import db
from ..models import Book, Order, OrderItem, OrderStatus
from . import Conflict, Forbidden, NotFound, ServiceError
from .books import book_service


@dataclass
class PurchaseRequest:
    """What the customer asked for; built by the views from the JSON body."""

    items: list = field(default_factory=list)  # [(book_id, quantity), ...]
    gift_wrap: bool = False
    note: str = ""


@dataclass
class Quote:
    subtotal_cents: int
    shipping_cents: int
    tax_cents: int

    @property
    def total_cents(self):
        return self.subtotal_cents + self.shipping_cents + self.tax_cents


class OrderService:
    MAX_LINES = 50
    MAX_QUANTITY = 20

    def _event_context(self):
        if has_request_context():
            return EventContext(actor=str(g.get("user_id") or "anonymous"), request_id=g.get("request_id", ""))
        return EventContext()

    def quote(self, lines):
        cfg = current_app.config
        subtotal = sum(book.price_cents * quantity for book, quantity in lines)
        physical = any(not book.is_digital for book, _ in lines)
        shipping = 0 if (not physical or subtotal >= cfg["FREE_SHIPPING_CENTS"]) else cfg["SHIPPING_FLAT_CENTS"]
        tax = (subtotal * cfg["TAX_RATE_BASIS_POINTS"] + 5000) // 10000
        return Quote(subtotal_cents=subtotal, shipping_cents=shipping, tax_cents=tax)

    def _resolve_lines(self, request):
        if not request.items:
            raise ServiceError("an order needs at least one item", code="empty_order")
        if len(request.items) > self.MAX_LINES:
            raise ServiceError(f"at most {self.MAX_LINES} different titles per order", code="too_many_lines")
        merged = {}
        for book_id, quantity in request.items:
            if not 1 <= quantity <= self.MAX_QUANTITY:
                raise ServiceError(f"quantity must be between 1 and {self.MAX_QUANTITY}", code="bad_quantity")
            merged[book_id] = merged.get(book_id, 0) + quantity
        lines = []
        for book_id, quantity in merged.items():
            book = book_service.get(book_id)
            if not book.is_digital and book.stock < quantity:
                raise Conflict(f"only {book.stock} copies of {book.title!r} in stock")
            lines.append((book, quantity))
        return lines

    def place_order(self, customer, request):
        lines = self._resolve_lines(request)
        quote = self.quote(lines)
        order = Order(
            customer_id=customer.id,
            status=OrderStatus.PENDING,
            subtotal_cents=quote.subtotal_cents,
            shipping_cents=quote.shipping_cents,
            tax_cents=quote.tax_cents,
            total_cents=quote.total_cents,
        )
        for book, quantity in lines:
            order.items.append(OrderItem(book_id=book.id, quantity=quantity, unit_price_cents=book.price_cents))
            if not book.is_digital:
                book.stock -= quantity
        db.session.add(order)
        db.session.commit()
        bus.emit("order.placed", request=order, g=self._event_context())
        self._check_stock(book for book, _ in lines)
        return order

    def _check_stock(self, books):
        threshold = current_app.config["LOW_STOCK_THRESHOLD"]
        for book in books:
            if not book.is_digital and book.stock <= threshold:
                bus.emit("book.low_stock", request=book, g=self._event_context())

    def get_for(self, user, order_id):
        order = db.session.get(Order, order_id)
        if order is None or (order.customer_id != user.id and not user.is_staff):
            raise NotFound(f"order {order_id} not found")
        return order

    def list_for(self, user):
        return Order.query.filter_by(customer_id=user.id).order_by(Order.created_at.desc(), Order.id.desc()).all()

    def _transition(self, order, status):
        if not order.can_transition_to(status):
            raise Conflict(f"cannot move an order from {order.status} to {status}")
        order.status = status

    def mark_paid(self, order_id):
        order = db.session.get(Order, order_id)
        if order is None:
            raise NotFound(f"order {order_id} not found")
        self._transition(order, OrderStatus.PAID)
        db.session.commit()
        return order

    def ship(self, order_id, tracking_number):
        order = db.session.get(Order, order_id)
        if order is None:
            raise NotFound(f"order {order_id} not found")
        self._transition(order, OrderStatus.SHIPPED)
        order.tracking_number = tracking_number
        db.session.commit()
        return order

    def cancel(self, order_id, *, reason="", actor=None):
        order = db.session.get(Order, order_id)
        if order is None:
            raise NotFound(f"order {order_id} not found")
        if actor is not None and order.customer_id != actor.id and not actor.is_staff:
            raise Forbidden("you can only cancel your own orders")
        self._transition(order, OrderStatus.CANCELLED)
        for item in order.items:
            book = db.session.get(Book, item.book_id)
            if book is not None and not book.is_digital:
                book.stock += item.quantity
        db.session.commit()
        bus.emit("order.cancelled", request=order, g=self._event_context())
        return order

    def revenue_cents(self):
        total = (
            db.session.query(db.func.coalesce(db.func.sum(Order.total_cents), 0))
            .filter(Order.status.in_([OrderStatus.PAID, OrderStatus.SHIPPED]))
            .scalar()
        )
        return int(total or 0)


order_service = OrderService()
