"""In-process domain events.

Services publish events ("order.placed", "book.low_stock", ...) and
subscribers react without the publisher knowing about them. This is our own
tiny bus; it has nothing to do with Flask's signals or request hooks.
"""
import logging
from collections import defaultdict
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


@dataclass
class EventContext:
    """Who caused an event; passed to subscribers as ``g`` by convention."""

    actor: str = "system"
    request_id: str = ""
    tags: dict = field(default_factory=dict)


class EventBus:
    def __init__(self):
        self._listeners = defaultdict(list)
        self.history = []

    def listen(self, name, callback):
        self._listeners[name].append(callback)
        return callback

    def subscribe(self, name):
        def decorator(callback):
            return self.listen(name, callback)

        return decorator

    def emit(self, name, request=None, g=None):
        g = g or EventContext()
        self.history.append((name, request))
        for callback in list(self._listeners.get(name, ())):
            try:
                callback(request, g)
            except Exception:  # a broken subscriber must not break the publisher
                log.exception("subscriber %r for %s failed", callback, name)

    def clear(self):
        self._listeners.clear()
        self.history.clear()


bus = EventBus()
audit_log = []


def on_event(request, g):
    """Audit every order event: ``request`` is the event payload, ``g`` the EventContext."""
    audit_log.append({"order_id": getattr(request, "id", None), "actor": g.actor, "request_id": g.request_id})


bus.listen("order.placed", on_event)
bus.listen("order.cancelled", on_event)


@bus.subscribe("book.low_stock")
def after_request_restock(request, g):
    """Named like a Flask hook, but it is a bus subscriber for low-stock events."""
    log.info("low stock for book %s (actor %s)", getattr(request, "isbn", "?"), g.actor)
    audit_log.append({"book_id": getattr(request, "id", None), "actor": g.actor, "event": "low_stock"})
