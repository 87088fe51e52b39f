"""Payment-provider webhooks, dispatched by event type through an in-house Router."""
import hashlib
import hmac
import logging

from .router import Router, WebhookError

log = logging.getLogger(__name__)

router = Router()


@router.before_request
def verify_signature(event, secret):
    expected = hmac.new(secret.encode(), event.raw, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, event.signature or ""):
        raise WebhookError("bad signature", status=401)


@router.route("payment.succeeded")
def payment_succeeded(event, secret):
    from ..services.orders import order_service

    order = order_service.mark_paid(int(event.data["order_id"]))
    return {"order_id": order.id, "status": order.status}


@router.route("payment.failed")
def payment_failed(event, secret):
    log.warning("payment failed for order %s: %s", event.data.get("order_id"), event.data.get("reason"))
    return {"ignored": True}


@router.route("refund.created", methods=["POST"])
def refund_created(event, secret):
    from ..services.orders import order_service

    order = order_service.cancel(int(event.data["order_id"]), reason="refunded by provider")
    return {"order_id": order.id, "status": order.status}
