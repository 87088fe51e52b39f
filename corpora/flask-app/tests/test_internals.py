"""The in-house look-alikes (event bus, webhook router, task app, importers)
behave as plain Python and never touch Flask's registries."""
import pytest

from app.events import EventBus, EventContext, audit_log, on_event
from app.importers import bp as parsers
from app.tasks.worker import app as worker
from app.tasks.worker import handle_task_error
from app.utils.decorators import retry
from app.webhooks import router
from app.webhooks.router import WebhookError, WebhookEvent


def test_event_bus_passes_payload_and_context():
    local_bus = EventBus()
    seen = []
    local_bus.listen("ping", lambda request, g: seen.append((request, g.actor)))
    local_bus.emit("ping", request={"n": 1}, g=EventContext(actor="tester"))
    assert seen == [({"n": 1}, "tester")]


def test_on_event_appends_to_audit_log():
    class Payload:
        id = 7

    on_event(Payload(), EventContext(actor="alice", request_id="r1"))
    assert audit_log[-1] == {"order_id": 7, "actor": "alice", "request_id": "r1"}


def test_importer_registry_routes_by_content_type():
    rows = parsers.parse("text/csv; charset=utf-8", "isbn,title,price_cents\n9780441013593,Dune,1099\n")
    assert rows[0]["title"] == "Dune"
    with pytest.raises(ValueError):
        parsers.parse("application/xml", "<books/>")


def test_webhook_router_knows_its_event_types():
    assert router.event_types == ["payment.failed", "payment.succeeded", "refund.created"]
    with pytest.raises(WebhookError):
        WebhookEvent.parse(b"not json", "")


def test_task_app_error_handler():
    assert worker.error_handlers[Exception] is handle_task_error

    @worker.task(name="tests.explode")
    def explode():
        raise RuntimeError("nope")

    assert explode.delay() == {"task": "tests.explode", "error": "nope"}


def test_retry_gives_up_after_the_last_attempt():
    calls = []

    @retry(times=2, delay=0)
    def flaky():
        calls.append(1)
        raise ConnectionError("down")

    with pytest.raises(ConnectionError):
        flaky()
    assert len(calls) == 2
