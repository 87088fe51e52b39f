import os.path
# <- import.statement
from ..pkg.mod import helper as h, other
# <- import.statement
from . import sibling
from .models import *
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .types import Config


class Base:
#     ^ definition.class
    pass


class Service(Base, metaclass=Meta):
#     ^ definition.class
#             ^ reference.inherits
#                             ^ !reference.inherits
    def __init__(self, repo: "Repo"):
#       ^ definition.function
#                      ^ local.definition
        self.repo = repo

    @property
    def name(self) -> str:
#       ^ definition.function
        return os.path.join("a", "b")
#              ^ reference.call
#                           ^ !reference.argument

    def run(self, cb, *args, **kwargs):
        result = self.helper(cb)
#                ^ reference.call
#                            ^ reference.argument
        fn = lambda x: x + 1
#            ^ definition.lambda
        items = [fn(i) for i in range(3)]
#                ^ reference.call
#                               ^ reference.call
        return h(result, key=other)
#              ^ reference.call
#                            ^ reference.argument


def outer(x: int) -> Service:
#   ^ definition.function
#                    ^ reference.type
    def inner():
#       ^ definition.function
        return Service()
#              ^ reference.call
    return inner()


@register
#^ reference.decorator
def top():
    pass


handlers = {"a": outer}
obj[name]()
# <- reference.call
