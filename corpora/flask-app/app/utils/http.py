"""Outbound HTTP helpers (cover images, partner notifications).

Note: ``request`` here is :mod:`urllib.request`, not Flask's request object.
"""
import json
import logging
from urllib import request
from urllib.error import URLError

from .decorators import retry

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 3.0


@retry(times=2, exceptions=(URLError, TimeoutError))
def fetch_json(url, *, timeout=DEFAULT_TIMEOUT, headers=None):
    req = request.Request(url, headers={"Accept": "application/json", **(headers or {})})
    with request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read().decode("utf-8"))


def post_json(url, payload, *, timeout=DEFAULT_TIMEOUT):
    body = json.dumps(payload).encode("utf-8")
    req = request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    try:
        with request.urlopen(req, timeout=timeout) as resp:
            return resp.status
    except URLError as exc:
        log.warning("POST %s failed: %s", url, exc)
        return None


def cover_url(base_url, isbn, size="M"):
    return f"{base_url.rstrip('/')}/b/isbn/{isbn}-{size}.jpg"
