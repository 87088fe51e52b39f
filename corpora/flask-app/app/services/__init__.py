"""Service layer: business rules on top of the models, free of HTTP concerns
(except for reading configuration through ``current_app``)."""


class ServiceError(Exception):
    status_code = 400
    code = "bad_request"

    def __init__(self, message, *, code=None, status_code=None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        if status_code:
            self.status_code = status_code

    def to_dict(self):
        return {"error": self.code, "message": self.message}


class NotFound(ServiceError):
    status_code = 404
    code = "not_found"


class Conflict(ServiceError):
    status_code = 409
    code = "conflict"


class Forbidden(ServiceError):
    status_code = 403
    code = "forbidden"
