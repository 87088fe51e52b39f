from flask import abort, current_app, g, jsonify, request, url_for
from flask_login import current_user, login_required

from ...services.catalog_import import import_catalog
from ...services.orders import PurchaseRequest, order_service
from ...utils.decorators import json_body, staff_required
from ...utils.validation import Field, Schema
from ...webhooks import router as webhook_router
from ...webhooks.router import WebhookEvent
from . import v1_bp

order_schema = Schema(
    items=Field(list, min_length=1),
    gift_wrap=Field(bool, required=False, default=False),
    note=Field(str, required=False, max_length=500),
)

ship_schema = Schema(tracking_number=Field(str, min_length=4, max_length=64))


def _parse_items(raw_items):
    items = []
    for entry in raw_items:
        if not isinstance(entry, dict):
            abort(400, description="each item must be an object")
        try:
            items.append((int(entry["book_id"]), int(entry.get("quantity", 1))))
        except (KeyError, TypeError, ValueError):
            abort(400, description="item needs an integer book_id and quantity")
    return items


@v1_bp.route("/orders", methods=["GET", "POST"])
@login_required
def orders():
    if request.method == "GET":
        return jsonify([o.to_dict() for o in order_service.list_for(current_user)])
    data = order_schema.load(request.get_json(silent=True))
    purchase = PurchaseRequest(items=_parse_items(data["items"]), gift_wrap=data.get("gift_wrap", False),
                               note=data.get("note", ""))
    order = order_service.place_order(current_user, purchase)
    return jsonify(order.to_dict()), 201, {"Location": url_for(".order", order_id=order.id)}


@v1_bp.get("/orders/<int:order_id>")
@login_required
def order(order_id):
    return jsonify(order_service.get_for(current_user, order_id).to_dict())


@v1_bp.post("/orders/<int:order_id>/ship")
@login_required
@staff_required
@json_body(ship_schema)
def ship(order_id, data):
    return jsonify(order_service.ship(order_id, data["tracking_number"]).to_dict())


@v1_bp.post("/orders/<int:order_id>/cancel")
@login_required
def cancel(order_id):
    payload = request.get_json(silent=True) or {}
    order = order_service.cancel(order_id, reason=payload.get("reason", ""), actor=current_user)
    return jsonify(order.to_dict())


@v1_bp.post("/webhooks/payments")
def payment_webhook():
    event = WebhookEvent.parse(request.get_data(), request.headers.get("X-Signature", ""))
    g.webhook_type = event.type
    result = webhook_router.dispatch(event, current_app.config["WEBHOOK_SECRET"])
    return jsonify(received=True, result=result), 202


@v1_bp.teardown_app_request
def forget_webhook_type(exc):
    g.pop("webhook_type", None)


@v1_bp.post("/imports")
@login_required
@staff_required
def import_books():
    text = request.get_data(as_text=True)
    report = import_catalog(request.content_type, text, actor=current_user.email)
    return jsonify(report.to_dict()), 201
