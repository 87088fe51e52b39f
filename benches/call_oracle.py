#!/usr/bin/env python3
"""ckg's call graph against the calls a real test suite makes (a dynamic oracle).

    python3 benches/call_oracle.py [--keep] [--misses N]

The package: click 8.1.8 (`py-oracle` in corpora/fetch.sh; pure Python, its tests run
offline with pytest). Its test suite runs under a profiler (`sys.setprofile`, threads too)
that records every call from a function of the package to a function of the package
(comprehension and generator-expression frames count as their enclosing function; lambdas
are left out: ckg names them by position, the profiler by line). ckg indexes the same tree,
and its `calls` edges (an instantiation counts as a call of the class's `__init__` when the
package defines one) are compared with the observed ones:

  recall     = observed edges that ckg has (exact or inferred; and with heuristic)
  observed   = of ckg's edges leaving the functions the tests ran, the share the tests made
               (a lower bound of precision: a test suite does not run every path)

Observed edges are a lower bound of the truth; the misses are listed by kind to show what
the resolver does not follow, not to tune single cases. CKG=path/to/ckg skips the release
build; pytest is installed under target/oracle-py (pip, pinned).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
CKG = os.environ.get("CKG") or os.path.join(TARGET, "release", "ckg")
CACHE = os.environ.get("CORPORA_CACHE") or os.path.join(ROOT, "corpora", "cache")
PYDEPS = os.path.join(TARGET, "oracle-py")
PYTEST = "pytest==8.3.4"

TRACER = r'''
import os, sys, threading, json, atexit
PKG = os.path.realpath(sys.argv[1])
OUT = sys.argv[2]
sys.argv = ["pytest"] + sys.argv[3:]
edges = set()
COMPREHENSIONS = {"<genexpr>", "<listcomp>", "<dictcomp>", "<setcomp>"}

def inside(code):
    return code.co_filename.startswith(PKG)

def profile(frame, event, arg):
    if event != "call":
        return
    code = frame.f_code
    # Functions only (CO_OPTIMIZED): a class body or a module body runs, it is not called.
    if not inside(code) or code.co_name in COMPREHENSIONS or not code.co_flags & 0x1:
        return
    caller = frame.f_back
    while caller is not None and caller.f_code.co_name in COMPREHENSIONS:
        caller = caller.f_back
    if caller is None or not inside(caller.f_code):
        return
    edges.add((caller.f_code, code))

def name(code):
    rel = os.path.relpath(code.co_filename, PKG)[:-3].replace(os.sep, ".")
    if rel.endswith(".__init__"):
        rel = rel[: -len(".__init__")]
    q = code.co_qualname
    return rel if q == "<module>" else rel + "." + q.replace(".<locals>", "")

def dump():
    sys.setprofile(None)
    rows = sorted({(name(a), name(b)) for a, b in edges})
    with open(OUT, "w") as f:
        json.dump(rows, f)

atexit.register(dump)
threading.setprofile(profile)
sys.setprofile(profile)
import pytest
code = pytest.main(sys.argv[1:])
dump()
os._exit(0 if code in (0, 1) else int(code))
'''


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def observed_edges(src, work):
    if not os.path.isdir(os.path.join(PYDEPS, "pytest")):
        sh([sys.executable, "-m", "pip", "install", "--quiet", "--target", PYDEPS, PYTEST])
    tracer = os.path.join(work, "tracer.py")
    with open(tracer, "w") as f:
        f.write(TRACER)
    out = os.path.join(work, "observed.json")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PYDEPS, os.path.join(src, "src")]), PYTHONDONTWRITEBYTECODE="1")
    pkg = os.path.join(src, "src")
    p = subprocess.run([sys.executable, tracer, pkg, out, "-q", "-x", "-p", "no:cacheprovider", os.path.join(src, "tests")],
                       cwd=src, env=env, capture_output=True, text=True)
    if not os.path.exists(out):
        sys.exit(f"the traced test run wrote nothing (exit {p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    tail = [l for l in p.stdout.splitlines() if " passed" in l or " failed" in l]
    with open(out) as f:
        return {tuple(e) for e in json.load(f) if "<lambda>" not in e[0] and "<lambda>" not in e[1]}, (tail[-1] if tail else "")


def ckg_edges(src):
    sh([CKG, "index", src, "--quiet"])
    out = sh([CKG, "export", "--db", os.path.join(src, ".ckg", "index.db")]).stdout
    symbols, edges = {}, {}
    rows = [json.loads(l) for l in out.splitlines()]
    for v in rows:
        if v["type"] == "symbol":
            symbols[v["qname"]] = v["kind"]
    for v in rows:
        if v["type"] != "edge" or v["kind"] not in ("calls", "instantiates") or v["evidence"] == "unresolved":
            continue
        dst = v["dst"]
        if v["kind"] == "instantiates":
            dst = dst + ".__init__"
            if dst not in symbols:
                continue
        rank = {"exact": 0, "inferred": 1, "heuristic": 2}[v["evidence"]]
        key = (v["src"], dst)
        edges[key] = min(edges.get(key, 9), rank)
    return symbols, edges


def arguments():
    ap = argparse.ArgumentParser()
    ap.add_argument("--misses", type=int, default=25, help="missed edges to list")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    return ap.parse_args()


def work_copy(corpus_id, name):
    """Builds ckg (unless CKG names a binary), fetches the corpus when it is missing, and copies
    it into a new work folder: (the folder, the copy)."""
    if not os.environ.get("CKG"):
        sh(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT)
    src_cache = os.path.join(CACHE, corpus_id, "src")
    if not os.path.isdir(src_cache):
        sh(["bash", os.path.join(ROOT, "corpora", "fetch.sh"), corpus_id])
    work = tempfile.mkdtemp(prefix=f"ckg-{corpus_id}-")
    copy = os.path.join(work, name)
    sh(["cp", "-r", src_cache, copy])
    return work, copy


def report(args, work, known, edges, callers, summary, observed_line):
    """Prints recall and the observed share of ckg's edges from the functions that ran, and
    the first missed edges; removes the work folder unless asked to keep it."""
    found = [e for e in known if edges.get(e, 9) <= 1]
    found_h = [e for e in known if edges.get(e, 9) <= 2]
    mine = [e for e, r in edges.items() if e[0] in callers and r <= 1]
    seen = sum(1 for e in mine if e in known)
    print(summary)
    print(observed_line)
    print(f"recall (exact + inferred): {len(found)} / {len(known)} = {len(found) / max(len(known), 1):.3f}")
    print(f"recall (with heuristic):   {len(found_h)} / {len(known)} = {len(found_h) / max(len(known), 1):.3f}")
    print(f"ckg's edges (exact + inferred) from the {len(callers)} functions the tests ran: {len(mine)}, observed: "
          f"{seen} ({seen / max(len(mine), 1):.3f})")
    missed = sorted(e for e in known if e not in found)
    if missed and args.misses:
        print(f"\nsome missed edges ({min(args.misses, len(missed))} of {len(missed)}):")
        for e in missed[: args.misses]:
            print(f"  {e[0]} -> {e[1]}")
    if args.keep:
        print(f"\nwork folder: {work}")
    else:
        subprocess.run(["rm", "-rf", work])


def main():
    a = arguments()
    work, src = work_copy("py-oracle", "click")
    observed, tests = observed_edges(src, work)
    symbols, edges = ckg_edges(src)
    # Only edges between functions both sides know (a function ckg has no node for, such as a
    # function defined by exec, cannot be scored).
    known = {(a, b) for a, b in observed if a in symbols and b in symbols}
    callers = {a for a, _ in observed}
    edges = {e: r for e, r in edges.items() if e[1] in symbols}
    report(a, work, known, edges, callers, f"click 8.1.8 test suite: {tests}",
           f"observed calls between package functions: {len(observed)} ({len(known)} between functions ckg has nodes for)")


if __name__ == "__main__":
    main()
