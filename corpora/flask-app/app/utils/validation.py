"""Small declarative validation for JSON bodies (no external schema library)."""
import re


class ValidationError(Exception):
    """Raised when a request body does not match its schema."""

    status_code = 422

    def __init__(self, errors):
        super().__init__("validation failed")
        self.errors = errors

    def to_dict(self):
        return {"error": "validation_failed", "fields": self.errors}


class Field:
    def __init__(self, kind, *, required=True, min_value=None, max_value=None,
                 min_length=None, max_length=None, pattern=None, choices=None, default=None):
        self.kind = kind
        self.required = required
        self.min_value = min_value
        self.max_value = max_value
        self.min_length = min_length
        self.max_length = max_length
        self.pattern = re.compile(pattern) if pattern else None
        self.choices = choices
        self.default = default

    def clean(self, name, value):
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                    value = int(value)
                else:
                    raise ValueError("must be an integer")
        elif self.kind is str:
            if not isinstance(value, str):
                raise ValueError("must be a string")
            value = value.strip()
        elif self.kind is bool:
            if not isinstance(value, bool):
                raise ValueError("must be true or false")
        elif self.kind is list:
            if not isinstance(value, list):
                raise ValueError("must be a list")
        if self.min_value is not None and value < self.min_value:
            raise ValueError(f"must be at least {self.min_value}")
        if self.max_value is not None and value > self.max_value:
            raise ValueError(f"must be at most {self.max_value}")
        if self.min_length is not None and len(value) < self.min_length:
            raise ValueError(f"must have at least {self.min_length} characters")
        if self.max_length is not None and len(value) > self.max_length:
            raise ValueError(f"must have at most {self.max_length} characters")
        if self.pattern is not None and not self.pattern.fullmatch(value):
            raise ValueError("has an invalid format")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"must be one of {', '.join(map(str, self.choices))}")
        return value


class Schema:
    def __init__(self, **fields):
        self.fields = fields

    def load(self, data, *, partial=False):
        if not isinstance(data, dict):
            raise ValidationError({"_body": "expected a JSON object"})
        errors, out = {}, {}
        for name in data:
            if name not in self.fields:
                errors[name] = "unknown field"
        for name, field in self.fields.items():
            if name not in data:
                if field.required and not partial:
                    errors[name] = "is required"
                elif field.default is not None and not partial:
                    out[name] = field.default
                continue
            try:
                out[name] = field.clean(name, data[name])
            except ValueError as exc:
                errors[name] = str(exc)
        if errors:
            raise ValidationError(errors)
        return out


ISBN_PATTERN = r"97[89]\d{10}"


def isbn13_is_valid(isbn):
    if not re.fullmatch(ISBN_PATTERN, isbn or ""):
        return False
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(isbn[:12]))
    return (10 - total % 10) % 10 == int(isbn[12])
