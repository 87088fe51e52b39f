from flask_login import UserMixin
from werkzeug.security import check_password_hash, generate_password_hash

from ..extensions import db, login_manager
from .base import SerializerMixin, TimestampMixin


class Role:
    CUSTOMER = "customer"
    STAFF = "staff"
    ADMIN = "admin"

    ALL = (CUSTOMER, STAFF, ADMIN)


class User(UserMixin, TimestampMixin, SerializerMixin, db.Model):
    __tablename__ = "users"
    __serialize__ = ("id", "email", "name", "role", "created_at")

    id = db.Column(db.Integer, primary_key=True)
    email = db.Column(db.String(254), unique=True, nullable=False, index=True)
    name = db.Column(db.String(120), nullable=False)
    password_hash = db.Column(db.String(256), nullable=False)
    role = db.Column(db.String(16), nullable=False, default=Role.CUSTOMER)
    active = db.Column(db.Boolean, nullable=False, default=True)
    api_token = db.Column(db.String(64), unique=True, index=True)

    orders = db.relationship("Order", back_populates="customer", lazy="dynamic")
    reviews = db.relationship("Review", back_populates="author", lazy="dynamic")

    def set_password(self, password):
        self.password_hash = generate_password_hash(password)

    def check_password(self, password):
        return check_password_hash(self.password_hash, password)

    @property
    def is_staff(self):
        return self.role in (Role.STAFF, Role.ADMIN)

    @property
    def is_admin(self):
        return self.role == Role.ADMIN

    @property
    def is_active(self):
        return self.active

    def __repr__(self):
        return f"<User {self.email}>"


@login_manager.user_loader
def load_user(user_id):
    return db.session.get(User, int(user_id))


@login_manager.request_loader
def load_user_from_token(req):
    """Bearer-token login for the JSON API (Flask-Login passes the request in)."""
    header = req.headers.get("Authorization", "")
    if not header.startswith("Bearer "):
        return None
    token = header[len("Bearer "):].strip()
    if not token:
        return None
    return User.query.filter_by(api_token=token, active=True).first()
