from ..extensions import db
from .base import SerializerMixin, TimestampMixin


class OrderStatus:
    PENDING = "pending"
    PAID = "paid"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"

    OPEN = (PENDING, PAID)
    TRANSITIONS = {
        PENDING: {PAID, CANCELLED},
        PAID: {SHIPPED, CANCELLED},
        SHIPPED: set(),
        CANCELLED: set(),
    }


class Order(TimestampMixin, SerializerMixin, db.Model):
    __tablename__ = "orders"
    __serialize__ = (
        "id",
        "status",
        "subtotal_cents",
        "shipping_cents",
        "tax_cents",
        "total_cents",
        "tracking_number",
        "created_at",
    )

    id = db.Column(db.Integer, primary_key=True)
    customer_id = db.Column(db.Integer, db.ForeignKey("users.id"), nullable=False, index=True)
    status = db.Column(db.String(16), nullable=False, default=OrderStatus.PENDING)
    subtotal_cents = db.Column(db.Integer, nullable=False, default=0)
    shipping_cents = db.Column(db.Integer, nullable=False, default=0)
    tax_cents = db.Column(db.Integer, nullable=False, default=0)
    total_cents = db.Column(db.Integer, nullable=False, default=0)
    tracking_number = db.Column(db.String(64))

    customer = db.relationship("User", back_populates="orders")
    items = db.relationship("OrderItem", back_populates="order", cascade="all, delete-orphan")

    def can_transition_to(self, status):
        return status in OrderStatus.TRANSITIONS.get(self.status, set())

    def to_dict(self, *, include=(), exclude=()):
        data = super().to_dict(include=include, exclude=exclude)
        data["items"] = [item.to_dict() for item in self.items]
        return data


class OrderItem(SerializerMixin, db.Model):
    __tablename__ = "order_items"
    __serialize__ = ("book_id", "quantity", "unit_price_cents")

    id = db.Column(db.Integer, primary_key=True)
    order_id = db.Column(db.Integer, db.ForeignKey("orders.id"), nullable=False)
    book_id = db.Column(db.Integer, db.ForeignKey("books.id"), nullable=False)
    quantity = db.Column(db.Integer, nullable=False)
    unit_price_cents = db.Column(db.Integer, nullable=False)

    order = db.relationship("Order", back_populates="items")
    book = db.relationship("Book")

    @property
    def line_total_cents(self):
        return self.quantity * self.unit_price_cents
