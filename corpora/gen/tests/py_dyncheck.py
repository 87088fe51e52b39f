"""Runtime check of a generated Python repository against its truth file.

usage: python3 -B py_dyncheck.py REPO_DIR TRUTH_FILE

1. Imports every module (fails on any error).
2. Replaces every generated function and method, wherever it is bound (module globals,
   re-exports, class dicts), by a stub that records "caller -> callee qname" and returns 1.
3. Calls each original function/method once with a small and once with a large argument (so
   both branches of every `if` run) and records what it calls directly: stubs, nested
   functions, builtins and the few stdlib functions the generator uses.
4. Reads the syntax trees, binding names through the imported modules, for what the runtime
   cannot show: imports, builtin calls, callbacks passed as arguments, instantiations in
   module-level and class-body code; and takes `inherits` from the classes' `__bases__`.
5. Checks that the union is exactly the truth file, edge for edge.
"""

import builtins
import importlib
import inspect
import os
import random
import sys
import types


EXTERNAL_PACKAGES = {"os", "json", "logging"}


def ast_edges(mods, by_id, classes):
    """Edges read from the syntax trees, with names bound through the imported modules:
    imports, builtin calls, callbacks passed as arguments (references), and instantiations
    in module-level and class-body code."""
    import ast
    import importlib.util

    edges = set()
    for mname, m in mods.items():
        is_pkg = m.__file__.endswith("__init__.py")
        package = mname if is_pkg else mname.rpartition(".")[0]
        tree = ast.parse(open(m.__file__).read())
        glb = vars(m)

        def resolve(expr):
            parts = []
            while isinstance(expr, ast.Attribute):
                parts.append(expr.attr)
                expr = expr.value
            if not isinstance(expr, ast.Name) or expr.id not in glb:
                return None
            obj = glb[expr.id]
            for p in reversed(parts):
                obj = getattr(obj, p, None)
            return obj

        def visit(node, scope, in_function):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.Import):
                    for a in child.names:
                        top = a.name.split(".")[0]
                        dst = top if top in EXTERNAL_PACKAGES else a.name
                        edges.add(f"imports {mname} -> {dst}")
                elif isinstance(child, ast.ImportFrom):
                    dst = importlib.util.resolve_name("." * child.level + (child.module or ""), package)
                    edges.add(f"imports {mname} -> {dst}")
                if isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                    for d in child.decorator_list:
                        visit(ast.Expr(d), scope, in_function)
                    for b in getattr(child, "bases", []):
                        visit(ast.Expr(b), scope, in_function)
                    inner = f"{scope}.{child.name}"
                    fn = in_function or isinstance(child, ast.FunctionDef)
                    for stmt in child.body:
                        visit(ast.Module(body=[stmt], type_ignores=[]), inner, fn)
                    continue
                if isinstance(child, ast.Call):
                    f = child.func
                    if isinstance(f, ast.Name) and f.id not in glb and hasattr(builtins, f.id):
                        edges.add(f"calls {scope} -> <builtin>.{f.id}")
                    if not in_function:
                        target = resolve(f)
                        if id(target) in classes:
                            edges.add(f"instantiates {scope} -> {classes[id(target)]}")
                    for a in child.args:
                        target = resolve(a)
                        if id(target) in by_id:
                            edges.add(f"references {scope} -> {by_id[id(target)]}")
                visit(child, scope, in_function)

        visit(tree, mname, False)
    return edges


def main():
    root, truth_path = sys.argv[1], sys.argv[2]
    sys.path.insert(0, root)
    names = []
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f), root)[:-3].replace(os.sep, ".")
                if rel.endswith(".__init__"):
                    rel = rel[: -len(".__init__")]
                names.append(rel)
    names.sort()
    # import everything, recording what module-level and class-body code calls
    import_calls = []
    name_set = set(names)

    def import_profiler(frame, event, arg):
        if event != "call":
            return
        back = frame.f_back
        if back is None or back.f_code.co_flags & 1:  # caller is a function (CO_OPTIMIZED)
            return
        mod = back.f_globals.get("__name__")
        if mod not in name_set:
            return
        caller = mod if back.f_code.co_name == "<module>" else f"{mod}.{back.f_code.co_qualname}"
        import_calls.append((caller, frame.f_code))

    mods = {}
    sys.setprofile(import_profiler)
    try:
        for n in names:
            mods[n] = importlib.import_module(n)
    finally:
        sys.setprofile(None)

    # generated functions and methods: qname -> (function, owning class or None)
    originals = {}
    for mname, m in mods.items():
        for attr, v in list(vars(m).items()):
            if isinstance(v, types.FunctionType) and v.__module__ == mname and "<locals>" not in v.__qualname__:
                originals[f"{mname}.{v.__qualname__}"] = (v, None)
            elif isinstance(v, type) and v.__module__ == mname:
                for a, fv in vars(v).items():
                    if isinstance(fv, types.FunctionType):
                        originals[f"{mname}.{v.__qualname__}.{a}"] = (fv, v)
    by_id = {id(f): q for q, (f, _) in originals.items()}
    classes = {}
    for mname, m in mods.items():
        for v in vars(m).values():
            if isinstance(v, type) and v.__module__ == mname:
                classes[id(v)] = f"{mname}.{v.__qualname__}"
    static_edges = ast_edges(mods, by_id, classes)
    class_objs = {id(c): c for m in mods.values() for c in vars(m).values() if isinstance(c, type)}
    for v in class_objs.values():
        if id(v) in classes and v.__bases__ != (object,):
            for b in v.__bases__:
                static_edges.add(f"inherits {classes[id(v)]} -> {classes[id(b)]}")
    by_code = {f.__code__: q for q, (f, _) in originals.items()}
    observed = set()
    for caller, code in import_calls:
        if code in by_code:
            observed.add(f"calls {caller} -> {by_code[code]}")

    current = [None]
    stub_ret = [1]
    stub_codes = set()

    def make_stub(q, is_init):
        if is_init:
            def stub(*a, **k):
                observed.add(f"calls {current[0]} -> {q}")
                return None
        else:
            def stub(*a, **k):
                observed.add(f"calls {current[0]} -> {q}")
                return stub_ret[0]
        stub_codes.add(stub.__code__)
        return stub

    stubs = {q: make_stub(q, q.endswith(".__init__")) for q in originals}
    for m in mods.values():
        for attr, v in list(vars(m).items()):
            if id(v) in by_id and isinstance(v, types.FunctionType):
                setattr(m, attr, stubs[by_id[id(v)]])
            elif isinstance(v, type) and v.__module__ in mods:
                for a, fv in list(vars(v).items()):
                    if isinstance(fv, types.FunctionType) and id(fv) in by_id:
                        setattr(v, a, stubs[by_id[id(fv)]])

    # record instantiations of generated classes
    def recording_new(cls, *a, **k):
        if current[0] is not None:
            observed.add(f"instantiates {current[0]} -> {cls.__module__}.{cls.__qualname__}")
        return object.__new__(cls)

    for m in mods.values():
        for v in list(vars(m).values()):
            if isinstance(v, type) and v.__module__ in mods and "__new__" not in vars(v):
                v.__new__ = staticmethod(recording_new)

    helper_codes = stub_codes | {recording_new.__code__}

    stdlib = {
        "posixpath.join": "os.path.join",
        "ntpath.join": "os.path.join",
        "os.getenv": "os.getenv",
        "json.dumps": "json.dumps",
        "logging.info": "logging.info",
    }

    def profiler(frame, event, arg):
        if current[0] is None:
            return
        code = target_code[0]
        if event == "c_call":
            if frame.f_code is code and getattr(arg, "__module__", None) == "builtins":
                observed.add(f"calls {current[0]} -> <builtin>.{arg.__name__}")
        elif event == "call":
            back = frame.f_back
            if back is None or back.f_code is not code or frame.f_code in helper_codes:
                return
            co = frame.f_code
            if co.co_name == "_adjust":
                observed.add(f"calls {current[0]} -> {current[0]}._adjust")
                return
            key = f"{frame.f_globals.get('__name__')}.{co.co_name}"
            if key in stdlib:
                observed.add(f"calls {current[0]} -> {stdlib[key]}")
            else:
                observed.add(f"calls {current[0]} -> ?{key}")

    target_code = [None]
    failures = []
    all_classes = sorted({o for o in (owner for _, owner in originals.values()) if o is not None}, key=lambda c: (c.__module__, c.__qualname__))
    for q, (f, owner) in sorted(originals.items()):
        params = list(inspect.signature(f).parameters)
        if params and params[0] == "self":
            # On an instance of its class and of each subclass (one that overrides the method
            # still runs it through `super()`): `self.m()` then runs the subclass's override
            # (the truth lists those dispatch edges).
            insts = [object.__new__(c) for c in all_classes if issubclass(c, owner)]
            rest = params[1:]
        else:
            insts = [None]
            rest = params
        if rest == ["value", "count"]:
            # small and large values and stub results, so that both branches of each `if` run
            arg_sets = [(3, 2, 1), (10**6, 2, 10**6), (10**9, 2, 10**9), (10**6, 2, 1), (1, 2, 10**6)]
            rnd = random.Random(q)
            arg_sets += [(rnd.randrange(10**4), rnd.randrange(5), rnd.randrange(10**4)) for _ in range(25)]
        elif rest == ["callback", "name"]:
            arg_sets = [(lambda *a: 1, "x", 1)]
        elif rest == ["func"]:
            arg_sets = [(lambda: 0, 1)]
        elif rest in (["argv"], ["config"]):
            arg_sets = [(None, 1), (None, 10**6)]
        else:
            failures.append(f"unexpected signature {q}{params}")
            continue
        for inst in insts:
            for args in arg_sets:
                *args, stub_ret[0] = args
                current[0] = q
                target_code[0] = f.__code__
                sys.setprofile(profiler)
                try:
                    if inst is not None:
                        f(inst, *args)
                    else:
                        f(*args)
                except Exception as e:  # noqa: BLE001
                    failures.append(f"{q}{args}: {type(e).__name__}: {e}")
                finally:
                    sys.setprofile(None)
                    current[0] = None

    truth = set(open(truth_path).read().split("\n")) - {""}
    # Edges to values (registries, attributes) and imports of single definitions are not
    # observable here: the runtime shows calls, the syntax trees module imports.
    def is_value_edge(e):
        kind, _, _, dst = e.split(" ")
        if kind == "writes":
            return True
        if kind == "imports":
            return dst not in mods and dst not in EXTERNAL_PACKAGES
        if kind == "references":
            owner, _, name = dst.rpartition(".")
            obj = getattr(mods.get(owner), name, None) if owner in mods else None
            return not (inspect.isfunction(obj) or inspect.isclass(obj)) and owner in mods or dst.endswith(".last_result")
        return False
    truth = {e for e in truth if not is_value_edge(e)}
    # the __main__ guard does not run on import: take that call from the source text
    for e in truth:
        kind, src, _, dst = e.split(" ")
        if kind == "calls" and dst == f"{src}.main":
            if "if __name__ == \"__main__\":\n    main()" in open(mods[src].__file__).read():
                observed.add(e)
    observed |= static_edges
    wrong = sorted(observed - truth)
    expected = truth
    missing = sorted(expected - observed)
    print(f"{len(mods)} modules, {len(originals)} functions/methods run, "
          f"{len(observed)} edges found, {len(expected)} in the truth")
    for x in failures[:20]:
        print("FAILED:", x)
    for x in wrong[:20]:
        print("NOT IN TRUTH:", x)
    for x in missing[:20]:
        print("NOT OBSERVED:", x)
    if failures or wrong or missing:
        sys.exit(1)


if __name__ == "__main__":
    main()
