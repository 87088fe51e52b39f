import secrets

from ..extensions import db
from ..models import Role, User
from . import Conflict, Forbidden, ServiceError


class AuthService:
    MIN_PASSWORD_LENGTH = 10

    def register(self, email, name, password):
        email = email.strip().lower()
        self.check_password_strength(password)
        if User.query.filter_by(email=email).first() is not None:
            raise Conflict("an account with this email already exists")
        user = User(email=email, name=name.strip(), role=Role.CUSTOMER)
        user.set_password(password)
        db.session.add(user)
        db.session.commit()
        return user

    def authenticate(self, email, password):
        user = User.query.filter_by(email=(email or "").strip().lower()).first()
        if user is None or not user.check_password(password or ""):
            raise ServiceError("invalid email or password", code="invalid_credentials", status_code=401)
        if not user.active:
            raise Forbidden("this account is disabled")
        return user

    def issue_token(self, user):
        user.api_token = secrets.token_hex(24)
        db.session.commit()
        return user.api_token

    def revoke_token(self, user):
        user.api_token = None
        db.session.commit()

    def check_password_strength(self, password):
        if len(password or "") < self.MIN_PASSWORD_LENGTH:
            raise ServiceError(
                f"password must have at least {self.MIN_PASSWORD_LENGTH} characters",
                code="weak_password",
                status_code=422,
            )
        if len(set(password)) < 4:
            raise ServiceError("password is too repetitive", code="weak_password", status_code=422)

    def change_password(self, user, current, new):
        if not user.check_password(current):
            raise ServiceError("current password is wrong", code="invalid_credentials", status_code=401)
        self.check_password_strength(new)
        user.set_password(new)
        db.session.commit()

    def set_role(self, actor, user_id, role):
        if role not in Role.ALL:
            raise ServiceError(f"unknown role {role}", code="invalid_role", status_code=422)
        user = db.session.get(User, user_id)
        if user is None:
            from . import NotFound

            raise NotFound(f"user {user_id} not found")
        if user.id == actor.id and role != Role.ADMIN:
            raise Forbidden("administrators cannot demote themselves")
        user.role = role
        db.session.commit()
        return user

    def create_admin(self, email, name, password):
        user = self.register(email, name, password)
        user.role = Role.ADMIN
        db.session.commit()
        return user


auth_service = AuthService()
