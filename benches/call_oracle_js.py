#!/usr/bin/env python3
"""ckg's JavaScript call graph against the calls a real test suite makes (a dynamic oracle).

    python3 benches/call_oracle_js.py [--keep] [--misses N]

The package: qs 6.13.0 (`js-oracle` in corpora/fetch.sh; plain CommonJS, its npm tarball
ships its tape test suite, which runs offline). The test dependencies are installed from npm
(pinned) under target/oracle-js. The suite runs under a tracer: a require hook that
instruments every function of the package's `lib/` when it is loaded (acorn parses the file;
each function body is wrapped in `__ckgEnter(id); try { … } finally { __ckgExit() }`), and
records, at each entry, the package function on top of the call stack: an edge caller ->
callee. A function of the package called back by code outside it (`keys.forEach(fn)`)
counts as called by the package function below it, which is the edge ckg's callback flow
gives. ckg indexes the same `lib/`; a traced function is ckg's function, method or lambda
whose name is at the position the function is named from (its declarator, key, assigned
member, or its own name), and ckg's `calls` edges (and `instantiates` of a function) are
compared with the observed ones:

  recall     = observed edges that ckg has (exact or inferred; and with heuristic)
  observed   = of ckg's edges leaving the functions the tests ran, the share the tests made
               (a lower bound of precision: a test suite does not run every path)

Observed edges are a lower bound of the truth; the misses are listed to show what the
resolver does not follow, not to tune single cases. CKG=path/to/ckg skips the release build.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import call_oracle as oracle  # noqa: E402  (the shared driver: work copy, report)
from call_oracle import CKG, TARGET, sh  # noqa: E402

JSDEPS = os.path.join(TARGET, "oracle-js")
# The test suite's dependencies (qs's devDependencies that its tests require, and its one
# runtime dependency) and the parser of the tracer.
DEPS = [
    "tape@5.9.0", "es-value-fixtures@1.4.2", "for-each@0.3.3", "has-override-mistake@1.0.1",
    "has-property-descriptors@1.0.2", "has-symbols@1.0.3", "iconv-lite@0.5.2", "mock-property@1.1.0",
    "object-inspect@1.13.2", "safer-buffer@2.1.2", "side-channel@1.0.6", "acorn@8.14.0",
]

TRACER = r'''
// Loaded with `node -r`: instruments the package's files as they are required.
const fs = require('fs');
const path = require('path');
const Module = require('module');
const acorn = require('acorn');
const PKG = path.resolve(process.env.CKG_ORACLE_PKG) + path.sep;
const OUT = process.env.CKG_ORACLE_OUT;
const functions = [];   // id -> [file, [[line, col], ...]] (candidate name positions)
const edges = new Set();
const stack = [];
global.__ckgEnter = (id) => {
  if (stack.length) edges.add(stack[stack.length - 1] + '>' + id);
  stack.push(id);
};
global.__ckgExit = () => { stack.pop(); };

function walk(node, parent, visit) {
  const todo = [[node, parent]];
  while (todo.length) {
    const [n, p] = todo.pop();
    visit(n, p);
    for (const key of Object.keys(n)) {
      const v = n[key];
      if (Array.isArray(v)) { for (const c of v) if (c && typeof c.type === 'string') todo.push([c, n]); }
      else if (v && typeof v.type === 'string') todo.push([v, n]);
    }
  }
}

function namePositions(fn, parent) {
  const at = (n) => [n.loc.start.line, n.loc.start.column + 1];
  const out = [];
  if (parent) {
    if (parent.type === 'VariableDeclarator' && parent.init === fn) out.push(at(parent.id));
    if ((parent.type === 'Property' || parent.type === 'MethodDefinition' || parent.type === 'PropertyDefinition') && parent.value === fn) out.push(at(parent.key));
    if (parent.type === 'AssignmentExpression' && parent.right === fn) {
      out.push(at(parent.left.type === 'MemberExpression' ? parent.left.property : parent.left));
    }
  }
  if (fn.id) out.push(at(fn.id));
  out.push(at(fn));
  return out;
}

function instrument(src, file) {
  const ast = acorn.parse(src, { ecmaVersion: 'latest', sourceType: 'script', locations: true, allowHashBang: true });
  const inserts = [];   // [offset, order, text]
  walk(ast, null, (n, p) => {
    if (n.type !== 'FunctionDeclaration' && n.type !== 'FunctionExpression' && n.type !== 'ArrowFunctionExpression') return;
    const id = functions.length;
    functions.push([file, namePositions(n, p)]);
    const b = n.body;
    if (b.type === 'BlockStatement') {
      inserts.push([b.start + 1, -b.start, `__ckgEnter(${id});try{`]);
      inserts.push([b.end - 1, b.start, '}finally{__ckgExit()}']);
    } else {
      inserts.push([b.start, -b.start, `{__ckgEnter(${id});try{return (`]);
      inserts.push([b.end, b.start, ')}finally{__ckgExit()}}']);
    }
  });
  // Applied from the end; at one offset the enclosing function's text goes on the outside.
  inserts.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  let out = src;
  for (const [offset, , text] of inserts) out = out.slice(0, offset) + text + out.slice(offset);
  return out;
}

const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  if (filename.startsWith(PKG) && !filename.includes(path.sep + 'node_modules' + path.sep)) {
    content = instrument(content, path.relative(PKG, filename));
  }
  return compile.call(this, content, filename);
};

process.on('exit', () => {
  const fn = (id) => functions[id];
  fs.writeFileSync(OUT, JSON.stringify([...edges].map((e) => e.split('>').map(Number).map(fn))));
});
'''


def observed_edges(pkg, work):
    """The traced runs, one process per test file (tape runs a file when it is executed):
    the edges as pairs of (file, name positions), and the suites' summary."""
    if not os.path.isdir(os.path.join(JSDEPS, "node_modules", "tape")):
        os.makedirs(JSDEPS, exist_ok=True)
        sh(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", JSDEPS] + DEPS)
    modules = os.path.join(pkg, "node_modules")
    if not os.path.exists(modules):
        os.symlink(os.path.join(JSDEPS, "node_modules"), modules)
    # The tests `require('../')`: the package's entry point, as its package.json names it.
    with open(os.path.join(pkg, "package.json"), "w") as f:
        json.dump({"name": "qs", "main": "lib/index.js"}, f)
    tracer = os.path.join(work, "tracer.js")
    with open(tracer, "w") as f:
        f.write(TRACER)
    edges, counts = set(), {}
    for test in sorted(t for t in os.listdir(os.path.join(pkg, "test")) if t.endswith(".js")):
        out = os.path.join(work, f"observed-{test}.json")
        env = dict(os.environ, CKG_ORACLE_PKG=os.path.join(pkg, "lib"), CKG_ORACLE_OUT=out,
                   NODE_PATH=os.path.join(JSDEPS, "node_modules"))
        p = subprocess.run(["node", "-r", tracer, os.path.join("test", test)], cwd=pkg, env=env, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            sys.exit(f"the traced run of {test} failed (exit {p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
        for line in p.stdout.splitlines():
            for key in ("tests", "pass", "fail"):
                if line.startswith(f"# {key} "):
                    counts[key] = counts.get(key, 0) + int(line.split()[-1])
        with open(out) as f:
            for caller, callee in json.load(f):
                edges.add(((caller[0], tuple(map(tuple, caller[1]))), (callee[0], tuple(map(tuple, callee[1])))))
    return edges, ", ".join(f"{k} {v}" for k, v in counts.items())


def ckg_graph(lib):
    """ckg's functions by (file, line, col) and its call edges (qname pairs, best tier)."""
    sh([CKG, "index", lib, "--quiet"])
    out = sh([CKG, "export", "--db", os.path.join(lib, ".ckg", "index.db")]).stdout
    rows = [json.loads(l) for l in out.splitlines()]
    at, kinds = {}, {}
    for v in rows:
        if v["type"] == "symbol" and v.get("file"):
            kinds[v["qname"]] = v["kind"]
            if v["kind"] in ("function", "method", "lambda"):
                at[(v["file"], v["line"], v["col"])] = v["qname"]
    edges = {}
    for v in rows:
        if v["type"] != "edge" or v["kind"] not in ("calls", "instantiates") or v["evidence"] == "unresolved":
            continue
        if v["kind"] == "instantiates" and kinds.get(v["dst"]) not in ("function", "method"):
            continue
        rank = {"exact": 0, "inferred": 1, "heuristic": 2}[v["evidence"]]
        key = (v["src"], v["dst"])
        edges[key] = min(edges.get(key, 9), rank)
    return at, edges


def main():
    a = oracle.arguments()
    work, pkg = oracle.work_copy("js-oracle", "qs")
    traced, tests = observed_edges(pkg, work)
    at, edges = ckg_graph(os.path.join(pkg, "lib"))

    def qname(function):
        file, positions = function
        return next((at[(file, line, col)] for line, col in positions if (file, line, col) in at), None)

    named = [(qname(x), qname(y)) for x, y in traced]
    known = {(x, y) for x, y in named if x and y}
    anonymous = sum(1 for x, y in named if not (x and y))
    oracle.report(a, work, known, edges, {x for x, _ in known}, f"qs 6.13.0 test suite: {tests}",
                  f"observed calls between package functions: {len(traced)} ({len(known)} between functions ckg has nodes "
                  f"for; {anonymous} involve an anonymous function)")


if __name__ == "__main__":
    main()
