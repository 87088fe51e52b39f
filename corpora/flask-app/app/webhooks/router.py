"""A minimal event-type router for incoming webhooks.

Its decorator names (``route``, ``before_request``) mirror Flask's on purpose so
handlers read familiarly, but nothing here is registered with Flask.
"""
import json
from dataclasses import dataclass


class WebhookError(Exception):
    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


@dataclass
class WebhookEvent:
    type: str
    data: dict
    raw: bytes
    signature: str = ""

    @classmethod
    def parse(cls, raw, signature):
        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise WebhookError("malformed payload") from None
        if not isinstance(payload, dict) or "type" not in payload:
            raise WebhookError("missing event type")
        return cls(type=payload["type"], data=payload.get("data") or {}, raw=raw, signature=signature)


class Router:
    def __init__(self):
        self._routes = {}
        self._before = []

    def route(self, event_type, methods=None):
        def decorator(func):
            self._routes[event_type] = func
            return func

        return decorator

    def before_request(self, func):
        self._before.append(func)
        return func

    def dispatch(self, event, secret):
        for check in self._before:
            check(event, secret)
        handler = self._routes.get(event.type)
        if handler is None:
            raise WebhookError(f"unhandled event type {event.type}", status=422)
        return handler(event, secret)

    @property
    def event_types(self):
        return sorted(self._routes)
