import logging

from flask import current_app, render_template_string
from flask_mail import Message

from ..extensions import mail
from ..utils.decorators import retry

log = logging.getLogger(__name__)

CONFIRMATION_TEMPLATE = """Hello,

thank you for your order #{{ order_id }} at {{ shop }}.
We will let you know when it ships.
"""


class Notifier:
    def __init__(self):
        self.outbox = []

    @retry(times=3, exceptions=(ConnectionError,))
    def _send(self, subject, recipients, body):
        message = Message(subject=subject, recipients=list(recipients), body=body)
        if current_app.config.get("MAIL_SUPPRESS_SEND"):
            self.outbox.append(message)
            log.info("mail suppressed: %s -> %s", subject, ", ".join(recipients))
            return message
        mail.send(message)
        return message

    def order_confirmation(self, order_id, email):
        body = render_template_string(CONFIRMATION_TEMPLATE, order_id=order_id, shop=current_app.config["APP_NAME"])
        return self._send(f"Your order #{order_id}", [email], body)

    def low_stock(self, books, recipients):
        if not books:
            return None
        lines = "\n".join(f"- {b.title} ({b.isbn}): {b.stock} left" for b in books)
        return self._send("Low stock", recipients, f"These titles are running low:\n{lines}\n")


notifier = Notifier()
