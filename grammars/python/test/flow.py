try:
    import simplejson as json
#   ^ import.statement
except ImportError:
    import json


def apply(f, value, *, on_error=None, **options):
    f(value)
    options["hook"]()
    hook = options.get("after")
    hook()
    return options.items()


class Runner:
    def run(self, task):
        return task()

    @staticmethod
    def once(task):
        for t in task:
            t()


def double(x):
    return x * 2


apply(double, 1, on_error=lambda: 0)
apply(lambda v: v, 2, **{"a": 1})
Runner().run(double)

json.helper = double
#    ^ reference.patch
setattr(Runner, "run", double)
# <- reference.patch
self_like = Runner()
self_like.attr = 1
#         ^ reference.patch
