#!/usr/bin/env python3
"""How long `ckg mcp` takes to answer `server/discover` after it is started (budget: 100 ms),
with an index and without one (then it must answer at once and index in the background).

    python3 benches/mcp_startup.py [ROOT] [--runs N]   (default: corpora/express-app, 20 runs)
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
CKG = os.path.join(HERE, "..", "target", "release", "ckg")
DISCOVER = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}}) + "\n"


def once(root):
    t = time.perf_counter()
    p = subprocess.Popen([CKG, "mcp", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdin.write(DISCOVER.encode()); p.stdin.flush()
    line = p.stdout.readline()
    elapsed = (time.perf_counter() - t) * 1000
    p.stdin.close(); p.kill(); p.wait()
    answer = json.loads(line)
    assert "result" in answer and "2026-07-28" in json.dumps(answer["result"]), answer
    return elapsed


def pct(xs, q):
    xs = sorted(xs)
    return xs[round((len(xs) - 1) * q)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=os.path.join(HERE, "..", "corpora", "express-app"))
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    if not os.path.exists(CKG):
        subprocess.run(["cargo", "build", "--release", "--locked", "--quiet"], check=True, cwd=os.path.join(HERE, ".."))
    with tempfile.TemporaryDirectory() as tmp:
        indexed = os.path.join(tmp, "indexed")
        shutil.copytree(a.root, indexed, ignore=shutil.ignore_patterns(".ckg"))
        subprocess.run([CKG, "index", indexed, "-q"], check=True)
        with_index = [once(indexed) for _ in range(a.runs)]
        without = []
        for i in range(a.runs):
            fresh = os.path.join(tmp, f"fresh{i}")
            shutil.copytree(a.root, fresh, ignore=shutil.ignore_patterns(".ckg"))
            without.append(once(fresh))
    for name, xs in [("with an index", with_index), ("without an index (indexing starts in the background)", without)]:
        print(f"server/discover after start, {name}: p50 {statistics.median(xs):.1f} ms, p95 {pct(xs, 0.95):.1f} ms, max {max(xs):.1f} ms (n={len(xs)})")


if __name__ == "__main__":
    sys.exit(main())
