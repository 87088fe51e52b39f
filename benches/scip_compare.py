#!/usr/bin/env python3
"""ckg against a compiler's indexer: scip-typescript and scip-python (npm).

Two modes. `def` (the default) asks ckg's go-to-definition; `export` compares ckg's own SCIP
index (`ckg export --format scip`) with the compiler's.

--mode def:

For each corpus: the SCIP indexer writes every definition and reference it resolves (with
the type checker); ckg indexes the same copy and answers `def` (over `ckg serve`, on loopback)
at the position of a sample of the compiler's references to definitions of the corpus itself
(not locals, not packages). Reported per split: same file, cross-file, and import statements.

  hit rate   = ckg answers with a definition of the repository
  precision  = of those answers, the share at the compiler's definition (same file and line)

A position is asked once; where the compiler has several references at one position (a
member of a union type refers to that member of each type in the union), ckg's answer is
the compiler's when it is any of them (in both modes).

--mode export: both indexes are read whole. For every reference of the compiler's index to a
definition of the corpus itself (not locals; parameters and type parameters, which ckg does
not model as nodes, are counted apart), ckg's reference at the same position (file, line, first column):

  recall     = the share of the compiler's references where ckg has a reference to a
               definition of the repository
  precision  = of those, the share whose definition is the compiler's (same file and line)

split same file / cross-file / import statements; and, for the definitions both indexes
have at the same position, how often the symbol strings are equal (exactly, and without the
package's name and version). Positions: scip-typescript counts UTF-16 units, ckg UTF-8
bytes, so only references on ASCII lines are compared.

usage: python3 benches/scip_compare.py [--mode def|export] [--sample N] [--seed S] [--unresolved FILE] [CORPUS_ID ...]
       (default corpora: ts-m ra-core, py-m pytest; fetched by corpora/fetch.sh)
       CKG=path/to/ckg skips the release build; CORPORA_CACHE=dir reads fetched corpora there.

The SCIP file is decoded here (a minimal protobuf reader for the fields used: documents,
occurrences with their ranges, symbols and roles), so no protoc or generated code is needed.
Observed from a compiler's index: a reference the compiler cannot resolve is not asked, so the
split measures ckg against what the compiler knows, not against the truth.
"""

import argparse
import http.client
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.environ.get("SCIP_PEERS") or os.path.join(ROOT, "target", "peers")
CKG = os.environ.get("CKG") or os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release", "ckg")
CACHE = os.environ.get("CORPORA_CACHE") or os.path.join(ROOT, "corpora", "cache")
CORPORA = {"ts-m": "typescript", "py-m": "python", "ts-s": "typescript", "py-s": "python", "express-s": "typescript"}


# ---------------------------------------------------------------- protobuf (SCIP subset)

def varint(buf, i):
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7


def fields(buf):
    """(field number, wire type, value) of one message; value is an int or a bytes slice."""
    i, n = 0, len(buf)
    while i < n:
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 2:
            ln, i = varint(buf, i)
            v = buf[i:i + ln]
            i += ln
        elif wt == 1:
            v = buf[i:i + 8]
            i += 8
        elif wt == 5:
            v = buf[i:i + 4]
            i += 4
        else:
            raise ValueError(f"wire type {wt}")
        yield num, wt, v


def packed(buf):
    out, i = [], 0
    while i < len(buf):
        v, i = varint(buf, i)
        out.append(v - (1 << 32) if v >= (1 << 31) else v)
    return out


def read_scip(path):
    """[(relative_path, [(range, symbol, roles)])]"""
    data = memoryview(open(path, "rb").read())
    docs = []
    for num, _, v in fields(data):
        if num != 2:  # documents
            continue
        rel, occs = "", []
        for dn, _, dv in fields(v):
            if dn == 1:
                rel = bytes(dv).decode()
            elif dn == 2:
                rng, sym, roles = [], "", 0
                for on, owt, ov in fields(dv):
                    if on == 1:
                        rng = packed(ov) if owt == 2 else rng + [ov]
                    elif on == 2:
                        sym = bytes(ov).decode()
                    elif on == 3:
                        roles = ov
                occs.append((rng, sym, roles))
        docs.append((rel, occs))
    return docs


# ---------------------------------------------------------------- tools

def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def ensure_peers():
    bin_dir = os.path.join(PEERS, "node_modules", ".bin")
    if not os.path.exists(os.path.join(bin_dir, "scip-typescript")):
        os.makedirs(PEERS, exist_ok=True)
        sh(["npm", "install", "--silent", "--prefix", PEERS, "@sourcegraph/scip-typescript", "@sourcegraph/scip-python"])
    return os.path.join(bin_dir, "scip-typescript"), os.path.join(bin_dir, "scip-python")


def run_scip(lang, work, tools):
    env = dict(os.environ, NODE_OPTIONS="--max-old-space-size=8192")
    out = os.path.join(work, ".index.scip")
    if lang == "typescript":
        with open(os.path.join(work, "tsconfig.json"), "w") as f:
            json.dump({"compilerOptions": {"allowJs": True, "noEmit": True, "skipLibCheck": True, "jsx": "react-jsx",
                                           "target": "es2022", "module": "esnext", "moduleResolution": "bundler"},
                       "include": ["**/*"]}, f)
        sh([tools[0], "index", "--output", out], cwd=work, env=env, capture_output=True)
    else:
        env_file = os.path.join(work, ".env.json")
        with open(env_file, "w") as f:
            f.write("[]")
        # The project's name and version as ckg's SCIP export reads them (scip-python needs a
        # version: "." is what an unknown one is written as).
        name, version = "corpus", "."
        try:
            import tomllib
            with open(os.path.join(work, "pyproject.toml"), "rb") as f:
                project = tomllib.load(f).get("project", {})
            name, version = project.get("name", name), project.get("version", version)
        except (OSError, ValueError, ImportError):
            pass
        sh([tools[1], "index", "--project-name", name, "--project-version", version, "--quiet", "--environment", env_file,
            "--output", out], cwd=work, env=env, capture_output=True)
    return out


class Server:
    def __init__(self, root):
        self.p = subprocess.Popen([CKG, "serve", root, "--addr", "127.0.0.1:0", "--quiet", "--timeout-ms", "60000"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.p.stdout.readline()
        self.port = int(line.split("127.0.0.1:")[1].split()[0])
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        while True:
            self.conn.request("GET", "/v1/ready")
            r = self.conn.getresponse()
            r.read()
            if r.status == 200:
                break

    def define(self, path, line, col):
        q = urllib.parse.urlencode({"file": path, "line": line, "col": col})
        self.conn.request("GET", f"/v1/def?{q}")
        r = self.conn.getresponse()
        body = json.loads(r.read())
        return body.get("definition") if r.status == 200 else None

    def close(self):
        self.p.terminate()
        self.p.wait()


# ---------------------------------------------------------------- comparison

def prepare(corpus_id, lang, tools):
    """A copy of the corpus (fetched when missing), the compiler's SCIP index of it read, and
    ckg's index of it: (work folder, the compiler's documents)."""
    src = os.path.join(CACHE, corpus_id, "src")
    if not os.path.isdir(src):
        sh(["bash", os.path.join(ROOT, "corpora", "fetch.sh"), corpus_id], capture_output=True)
    work = tempfile.mkdtemp(prefix=f"ckg-scip-{corpus_id}-")
    shutil.copytree(src, work, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".ckg"))
    docs = read_scip(run_scip(lang, work, tools))
    sh([CKG, "index", work, "--quiet"])
    return work, docs


def compare(corpus_id, lang, sample, seed, tools):
    work, docs = prepare(corpus_id, lang, tools)
    try:
        defs = {}
        for rel, occs in docs:
            for rng, sym, roles in occs:
                if roles & 1 and sym and not sym.startswith("local "):
                    defs.setdefault(sym, (rel, rng[0], rng[1]))
        lines_of = {}
        refs = []
        # A name can refer to several definitions at once (a member of a union type: one
        # occurrence per member of each type in the union). One sample per position; ckg's
        # answer is the compiler's when it is any of them.
        wanted = {}
        for rel, occs in docs:
            for rng, sym, roles in occs:
                if roles & 1 or not sym or sym.startswith("local ") or sym not in defs:
                    continue
                if rel not in lines_of:
                    try:
                        lines_of[rel] = open(os.path.join(work, rel), encoding="utf-8", errors="replace").read().split("\n")
                    except OSError:
                        lines_of[rel] = []
                text = lines_of[rel][rng[0]] if rng[0] < len(lines_of[rel]) else ""
                # Positions are counted in UTF-16 units (TS) or characters: only ASCII lines,
                # where they are bytes too.
                if not text.isascii():
                    continue
                stripped = text.lstrip()
                end = rng[2] if len(rng) == 3 else (rng[3] if len(rng) == 4 and rng[2] == rng[0] else rng[1] + 1)
                written = text[rng[1]:end]
                # A dotted module (`from a.b import x`) is one reference in SCIP, ranged over the
                # whole name; ckg answers each segment: ask at the last one.
                col = rng[1] + written.rfind(".") + 1 if "." in written else rng[1]
                seen = (rel, rng[0], col) in wanted
                wanted.setdefault((rel, rng[0], col), []).append(defs[sym])
                if seen:
                    continue
                if roles & 2 or stripped.startswith(("import ", "from ", "export {", "export *")):
                    split = "import"
                elif lang == "python" and sym.endswith(")") and "().(" in sym:
                    # `f(name=...)`: the keyword names the callee's parameter, which ckg does not
                    # model as a node (parameters are locals).
                    split = "keyword-argument"
                elif defs[sym][0] == rel:
                    split = "same-file"
                else:
                    split = "cross-file"
                refs.append((split, rel, rng[0], col, sym))
        rnd = random.Random(seed)
        by_split = {}
        for r in refs:
            by_split.setdefault(r[0], []).append(r)
        picked = []
        for split, rs in sorted(by_split.items()):
            rnd.shuffle(rs)
            picked.extend(rs[:sample])
        server = Server(work)
        stats = {}
        misses = []
        try:
            for split, rel, line, col, sym in picked:
                want = defs[sym]
                d = server.define(rel, line + 1, col + 1)
                s = stats.setdefault(split, [0, 0, 0, 0])
                s[0] += 1
                node = d["node"] if d else None
                if node and node.get("file") and node["kind"] not in ("local", "parameter"):
                    s[1] += 1
                    same = [w for w in wanted[(rel, line, col)] if node["file"] == w[0] and node["line"] == w[1] + 1]
                    if same:
                        s[2] += 1
                        s[3] += any(node["col"] == w[2] + 1 for w in same)
                    elif len(misses) < 15:
                        misses.append(f"  {split} {rel}:{line + 1}:{col + 1} -> ckg {node['qname']} ({node['file']}:{node['line']}), "
                                      f"compiler {want[0]}:{want[1] + 1}")
        finally:
            server.close()
        return len(refs), stats, misses
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------- export mode

def package_free(sym):
    """A global symbol without its package (`scheme manager name version descriptors`)."""
    parts = sym.split(" ")
    # Spaces inside a name or version are doubled; they never occur in these corpora's.
    return " ".join(parts[:2] + parts[4:]) if len(parts) > 4 else sym


def compare_export(corpus_id, lang, tools, unresolved_out=None):
    work, theirs = prepare(corpus_id, lang, tools)
    try:
        mine_path = os.path.join(work, ".ckg.scip")
        sh([CKG, "export", "--db", os.path.join(work, ".ckg", "index.db"), "--format", "scip", "-o", mine_path])
        mine = read_scip(mine_path)

        text = {}

        def line_of(rel, n):
            if rel not in text:
                try:
                    text[rel] = open(os.path.join(work, rel), encoding="utf-8", errors="replace").read().split("\n")
                except OSError:
                    text[rel] = []
            return text[rel][n] if n < len(text[rel]) else ""

        def definitions(docs):
            out = {}
            for rel, occs in docs:
                for rng, sym, roles in occs:
                    if roles & 1 and sym:
                        key = (rel, sym) if sym.startswith("local ") else sym
                        out.setdefault(key, (rel, rng[0], rng[1]))
            return out

        their_defs, my_defs = definitions(theirs), definitions(mine)
        my_refs = {}
        for rel, occs in mine:
            for rng, sym, roles in occs:
                if not roles & 1 and sym:
                    my_refs.setdefault((rel, rng[0], rng[1]), sym)
        # Definitions at the same position: are the symbol strings the same?
        my_def_at = {(f, l, c): sym for sym, (f, l, c) in my_defs.items() if isinstance(sym, str)}
        agree = [0, 0, 0]
        for sym, where in their_defs.items():
            if isinstance(sym, tuple) or sym.endswith((")", "]")) or where not in my_def_at:
                continue
            if not line_of(where[0], where[1]).isascii():
                continue
            agree[0] += 1
            agree[1] += my_def_at[where] == sym
            agree[2] += package_free(my_def_at[where]) == package_free(sym)
        stats, misses, params = {}, [], 0
        # Several references at one position (a member of a union type): counted once, and
        # ckg's is the compiler's when it is any of them.
        wanted = {}
        for rel, occs in theirs:
            for rng, sym, roles in occs:
                if not roles & 1 and sym in their_defs:
                    wanted.setdefault((rel, rng[0], rng[1]), []).append(their_defs[sym])
        counted = set()
        for rel, occs in theirs:
            for rng, sym, roles in occs:
                if roles & 1 or not sym or sym.startswith("local ") or sym not in their_defs:
                    continue
                if (rel, rng[0], rng[1]) in counted:
                    continue
                counted.add((rel, rng[0], rng[1]))
                line = line_of(rel, rng[0])
                if not line.isascii():
                    continue
                if sym.endswith((")", "]")):
                    params += 1
                    continue
                stripped = line.lstrip()
                if roles & 2 or stripped.startswith(("import ", "from ", "export {", "export *", "} from ")):
                    split = "import"
                elif their_defs[sym][0] == rel:
                    split = "same-file"
                else:
                    split = "cross-file"
                s = stats.setdefault(split, [0, 0, 0, 0])
                s[0] += 1
                got = my_refs.get((rel, rng[0], rng[1]))
                where = None if got is None else my_defs.get((rel, got) if got.startswith("local ") else got)
                if where is None:
                    if unresolved_out:
                        unresolved_out.write(f"{corpus_id}\t{split}\t{rel}:{rng[0] + 1}:{rng[1] + 1}\t{sym.split(' ')[-1]}\t{stripped}\n")
                    continue
                s[1] += 1
                want = their_defs[sym]
                same = [w for w in wanted[(rel, rng[0], rng[1])] if where[0] == w[0] and where[1] == w[1]]
                if same:
                    s[2] += 1
                    s[3] += any(where[2] == w[2] for w in same)
                elif len(misses) < 12:
                    misses.append(f"  {split} {rel}:{rng[0] + 1}:{rng[1] + 1} -> ckg {where[0]}:{where[1] + 1} ({got.split(' ')[-1]}), "
                                  f"compiler {want[0]}:{want[1] + 1} ({sym.split(' ')[-1]})")
        return stats, params, agree, misses
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main_export(corpora, tools, unresolved_path=None):
    unresolved_out = open(unresolved_path, "w", encoding="utf-8") if unresolved_path else None
    print("| corpus | split | compiler references | ckg resolves (recall) | same definition (precision) | same column |")
    print("|---|---|---:|---:|---:|---:|")
    report = []
    for cid in corpora:
        stats, params, agree, misses = compare_export(cid, CORPORA[cid], tools, unresolved_out)
        for split in ["same-file", "cross-file", "import"]:
            n, hit, ok, col = stats.get(split, [0, 0, 0, 0])
            if n:
                print(f"| {cid} | {split} | {n} | {hit / n:.3f} | {ok / max(hit, 1):.3f} | {col / max(ok, 1):.3f} |")
        n, hit, ok, col = (sum(s[i] for s in stats.values()) for i in range(4))
        print(f"| {cid} | all | {n} | {hit / max(n, 1):.3f} | {ok / max(hit, 1):.3f} | {col / max(ok, 1):.3f} |")
        report.append((cid, params, agree, misses))
    for cid, params, agree, misses in report:
        print(f"\n{cid}: {params} compiler references to parameters and type parameters (ckg has no nodes for them) left out.")
        print(f"{cid}: definitions at the same position in both indexes: {agree[0]}; same symbol string: "
              f"{agree[1] / max(agree[0], 1):.3f}; same without the package name and version: {agree[2] / max(agree[0], 1):.3f}")
        if misses:
            print(f"{cid}: some references whose definition differs from the compiler's:")
            print("\n".join(misses))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["def", "export"], default="def")
    ap.add_argument("--sample", type=int, default=700, help="references asked per split (def mode)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--unresolved", metavar="FILE",
                    help="export mode: write each compiler reference ckg has no definition for (corpus, split, "
                         "position, compiler symbol, line) as a tab-separated line")
    ap.add_argument("corpora", nargs="*", default=["ts-m", "py-m"])
    a = ap.parse_args()
    if not os.environ.get("CKG"):
        sh(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT)
    tools = ensure_peers()
    if a.mode == "export":
        return main_export(a.corpora, tools, a.unresolved)
    print("| corpus | split | asked | hit rate | precision | same column |")
    print("|---|---|---:|---:|---:|---:|")
    report = []
    for cid in a.corpora:
        total, stats, misses = compare(cid, CORPORA[cid], a.sample, a.seed, tools)
        asked = sum(s[0] for s in stats.values())
        for split in ["same-file", "cross-file", "import", "keyword-argument"]:
            n, hit, ok, col = stats.get(split, [0, 0, 0, 0])
            if n:
                print(f"| {cid} | {split} | {n} | {hit / n:.3f} | {ok / max(hit, 1):.3f} | {col / max(ok, 1):.3f} |")
        named = {k: v for k, v in stats.items() if k != "keyword-argument"}
        n = sum(s[0] for s in named.values())
        hit = sum(s[1] for s in named.values())
        ok = sum(s[2] for s in named.values())
        print(f"| {cid} | all but keyword arguments ({total} compiler references to repository definitions) | {n} | {hit / n:.3f} | {ok / max(hit, 1):.3f} | |")
        report.append((cid, misses))
    for cid, misses in report:
        if misses:
            print(f"\n{cid}: some answers that differ from the compiler's:")
            print("\n".join(misses))


if __name__ == "__main__":
    sys.exit(main())
