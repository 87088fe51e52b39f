"""Background jobs.

``app`` below is the job runner (an in-house, Celery-like task app), not the
Flask application. Jobs run synchronously in tests and in development.
"""
import logging
from functools import wraps

log = logging.getLogger(__name__)


class TaskApp:
    def __init__(self, name, eager=True):
        self.name = name
        self.eager = eager
        self.tasks = {}
        self.error_handlers = {}
        self.sent = []

    def task(self, name=None, max_retries=0):
        def decorator(func):
            task_name = name or f"{func.__module__}.{func.__name__}"

            @wraps(func)
            def delay(*args, **kwargs):
                self.sent.append((task_name, args, kwargs))
                if self.eager:
                    return self.run(task_name, func, args, kwargs, max_retries)
                return None

            func.delay = delay
            self.tasks[task_name] = func
            return func

        return decorator

    def errorhandler(self, exc_type):
        def decorator(func):
            self.error_handlers[exc_type] = func
            return func

        return decorator

    def run(self, task_name, func, args, kwargs, max_retries):
        attempts = 0
        while True:
            try:
                return func(*args, **kwargs)
            except Exception as exc:
                attempts += 1
                if attempts <= max_retries:
                    continue
                for exc_type, handler in self.error_handlers.items():
                    if isinstance(exc, exc_type):
                        return handler(task_name, exc)
                raise


app = TaskApp("bookshop-worker")


@app.task(name="orders.send_confirmation", max_retries=2)
def send_order_confirmation(order_id, email):
    from ..services.notifications import notifier

    return notifier.order_confirmation(order_id, email)


@app.task(name="catalog.reindex")
def reindex_catalog():
    from ..services.search import search_index

    return search_index.rebuild()


@app.errorhandler(Exception)
def handle_task_error(task_name, exc):
    log.error("task %s failed: %s", task_name, exc)
    return {"task": task_name, "error": str(exc)}
