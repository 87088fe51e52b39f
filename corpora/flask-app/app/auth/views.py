from flask import current_app, flash, jsonify, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required, login_user, logout_user

from ..errors import wants_json
from ..extensions import limiter, login_manager
from ..services.auth import auth_service
from ..utils.decorators import json_body
from ..utils.validation import Field, Schema
from . import bp

register_schema = Schema(
    email=Field(str, max_length=254, pattern=r"[^@\s]+@[^@\s]+\.[^@\s]+"),
    name=Field(str, min_length=1, max_length=120),
    password=Field(str, min_length=1, max_length=200),
)

password_schema = Schema(
    current_password=Field(str, min_length=1),
    new_password=Field(str, min_length=1, max_length=200),
)


@login_manager.unauthorized_handler
def unauthorized():
    """Flask-Login callback (not a Flask error handler): 401 for API clients."""
    if wants_json() or request.headers.get("Authorization"):
        return jsonify(error="unauthorized", message="authentication required"), 401
    return redirect(url_for("auth.login_page", next=request.path))


@bp.before_app_request
def make_session_permanent():
    session.permanent = True


@bp.after_app_request
def vary_on_authorization(response):
    if request.headers.get("Authorization"):
        response.vary.add("Authorization")
    return response


@bp.route("/register", methods=["POST"])
@json_body(register_schema)
def register(data):
    user = auth_service.register(data["email"], data["name"], data["password"])
    token = auth_service.issue_token(user)
    return jsonify(user=user.to_dict(), token=token), 201, {"Location": url_for("auth.me")}


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit("10 per minute")
def login_page():
    if request.method == "GET":
        return render_template("auth/login.html", next=request.args.get("next", ""))
    email = request.form.get("email", "")
    password = request.form.get("password", "")
    try:
        user = auth_service.authenticate(email, password)
    except Exception as exc:  # ServiceError subclasses carry a user-facing message
        flash(getattr(exc, "message", "login failed"), "error")
        return render_template("auth/login.html", next=request.form.get("next", "")), 401
    login_user(user, remember=bool(request.form.get("remember")))
    session["login_email"] = user.email
    current_app.logger.info("user %s logged in", user.id)
    target = request.form.get("next") or url_for("books.list_books")
    if not target.startswith("/"):
        target = url_for("books.list_books")
    return redirect(target)


@bp.post("/token")
@limiter.limit("10 per minute")
def issue_token():
    payload = request.get_json(silent=True) or {}
    user = auth_service.authenticate(payload.get("email"), payload.get("password"))
    return jsonify(token=auth_service.issue_token(user), token_type="Bearer")


@bp.delete("/token")
@login_required
def revoke_token():
    auth_service.revoke_token(current_user)
    return "", 204


@bp.route("/logout")
def logout():
    logout_user()
    session.pop("login_email", None)
    return redirect(url_for("books.list_books"))


@bp.get("/me")
@login_required
def me():
    return jsonify(current_user.to_dict())


@bp.put("/me/password")
@login_required
@json_body(password_schema)
def change_password(data):
    auth_service.change_password(current_user, data["current_password"], data["new_password"])
    return "", 204
