#!/usr/bin/env python3
"""Regenerates the README's benchmark tables in one command.

    python3 benches/results.py [--runs N] [--peer-runs N] [--quick] [--no-peers]
    python3 benches/results.py --only-peer codanna [--corpora py-m,ts-m] [--runs N] [--peer-runs N]

For each corpus (pinned real ones from corpora/fetch.sh, and generated ones from ckg-gen):
ckg full index (cold, --rebuild), warm re-index (nothing changed), the parse-only baseline
(tree-sitter as it comes; and as the index parses: expanded tables, ckg's ASCII lexer step,
reductions in place),
peak RSS, database size (each measured on a copy in /dev/shm where the machine has one, as are
the peers' copies); the peers on the same corpus in the same run (universal-ctags,
scip-typescript / scip-python, codanna when installed), with ratios ckg/peer; and a scaling
curve over generated repositories with the fitted exponent. Writes benches/results.md and
the block between the results markers in README.md.

Medians of --runs (default 5) runs with min-max, for ckg and for every peer (--peer-runs,
default 5). A peer that fails (a crash, or over --peer-timeout seconds) is reported as failed
with its exit status and time, and not run again on that corpus. The Node-based SCIP indexers
get a 16 GiB heap (NODE_OPTIONS=--max-old-space-size=16384): with Node's default heap
scip-python aborts on the larger corpora.
"""
import argparse
import datetime
import json
import math
import os
import re
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CKG = os.path.join(ROOT, "target", "release", "ckg")
GEN = os.path.join(ROOT, "target", "release", "ckg-gen")
PEERS = os.path.join(ROOT, "target", "peers")

CORPORA = [
    # id, language, description
    ("py-m", "python", "pytest 9.2.0"),
    ("ts-m", "typescript", "ra-core 5.15.4"),
    ("py-l", "python", "django 5.2.19"),
    ("ts-l", "typescript", "effect 4.1.0"),
    ("py-xl", "python", "salt 3007.1"),
]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


class PeerFailed(Exception):
    pass


def timed(cmd, cwd=None, env=None, timeout=None):
    """Runs a command under /usr/bin/time; returns (seconds, peak RSS KiB)."""
    with tempfile.NamedTemporaryFile("r") as t:
        started = time.monotonic()
        try:
            p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", t.name] + cmd, cwd=cwd, env=env, timeout=timeout,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise PeerFailed(f"timed out after {timeout:.0f} s")
        if p.returncode != 0:
            raise PeerFailed(f"exit status {p.returncode} after {time.monotonic() - started:.0f} s")
        wall, rss = t.read().split()[-2:]
        return float(wall), int(rss)


def med(xs):
    return statistics.median(xs), min(xs), max(xs)


def fmt_t(xs):
    m, lo, hi = med(xs)
    return f"{m:.2f} s ({lo:.2f}–{hi:.2f})"


def lines_of(path, exts):
    n = 0
    for d, _, fs in os.walk(path):
        if "/.ckg" in d or "/.codanna" in d:
            continue
        for f in fs:
            if f.endswith(exts):
                with open(os.path.join(d, f), "rb") as fh:
                    n += fh.read().count(b"\n")
    return n


def ensure_tools(peers):
    # Both binaries: the workspace's default build is `ckg` alone, and a fresh checkout has no
    # `ckg-gen` for the generated corpora.
    sh(["cargo", "build", "--release", "--locked", "-q", "-p", "ckg", "-p", "ckg-gen"], cwd=ROOT)
    if not peers:
        return {}
    found = {}
    if shutil.which("ctags") is None and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-qq", "universal-ctags"], check=False, capture_output=True)
    if shutil.which("ctags"):
        found["ctags"] = shutil.which("ctags")
    os.makedirs(PEERS, exist_ok=True)
    bin_dir = os.path.join(PEERS, "node_modules", ".bin")
    if not os.path.exists(os.path.join(bin_dir, "scip-typescript")):
        subprocess.run(["npm", "install", "--silent", "--prefix", PEERS, "@sourcegraph/scip-typescript", "@sourcegraph/scip-python"],
                       check=False, capture_output=True)
    for tool in ["scip-typescript", "scip-python"]:
        p = os.path.join(bin_dir, tool)
        if os.path.exists(p):
            found[tool] = p
    codanna = shutil.which("codanna") or (os.environ.get("CODANNA") if os.environ.get("CODANNA") else None)
    if codanna and os.path.exists(codanna):
        found["codanna"] = codanna
    return found


# Scratch space in memory when the machine has /dev/shm: a shared VM drops its page cache
# within a minute, so runs that read a corpus from disk waited for I/O at random.
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") else None


def copy_corpus(src, prefix="ckg-peer-"):
    dst = tempfile.mkdtemp(prefix=prefix, dir=SCRATCH)
    shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".ckg", ".codanna"))
    return dst


PEER_TIMEOUT = 1800.0


def run_peer(tool, path, lang, corpus_dir):
    """One run of a peer on a fresh copy; returns (seconds, KiB)."""
    work = copy_corpus(corpus_dir)
    node_env = dict(os.environ, NODE_OPTIONS="--max-old-space-size=16384")
    try:
        if tool == "ctags":
            # The output must not be inside the tree ctags scans (it would read itself).
            out = work.rstrip("/") + ".tags.json"
            try:
                return timed([path, "-R", "--fields=+n", "--output-format=json", "-f", out, "."], cwd=work, timeout=PEER_TIMEOUT)
            finally:
                if os.path.exists(out):
                    os.remove(out)
        if tool == "scip-typescript":
            with open(os.path.join(work, "tsconfig.json"), "w") as f:
                json.dump({"compilerOptions": {"allowJs": True, "noEmit": True, "skipLibCheck": True, "jsx": "react-jsx",
                                               "target": "es2022", "module": "esnext", "moduleResolution": "bundler"},
                           "include": ["**/*"]}, f)
            return timed([path, "index", "--output", os.path.join(work, "index.scip")], cwd=work, env=node_env, timeout=PEER_TIMEOUT)
        if tool == "scip-python":
            env_file = os.path.join(work, "env.json")
            with open(env_file, "w") as f:
                f.write("[]")
            return timed([path, "index", "--project-name", "corpus", "--project-version", "0", "--quiet",
                          "--environment", env_file, "--output", os.path.join(work, "index.scip")], cwd=work, env=node_env,
                         timeout=PEER_TIMEOUT)
        if tool == "codanna":
            env = dict(os.environ)
            if os.environ.get("CODANNA_LD_LIBRARY_PATH"):
                env["LD_LIBRARY_PATH"] = os.environ["CODANNA_LD_LIBRARY_PATH"]
            subprocess.run([path, "init"], cwd=work, check=True, capture_output=True, env=env)
            settings = os.path.join(work, ".codanna", "settings.toml")
            if os.path.exists(settings):
                # Semantic search would try to download an embedding model: turn it off.
                text = open(settings).read()
                i = text.find("[semantic_search]")
                j = text.find("enabled = true", i) if i >= 0 else -1
                if j >= 0:
                    text = text[:j] + "enabled = false" + text[j + len("enabled = true"):]
                open(settings, "w").write(text)
            return timed([path, "index", ".", "--no-progress"], cwd=work, env=env, timeout=PEER_TIMEOUT)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure_ckg(path, runs):
    db_dir = tempfile.mkdtemp(prefix="ckg-db-", dir=SCRATCH)
    db = os.path.join(db_dir, "index.db")
    path = copy_corpus(path, prefix="ckg-corpus-")
    try:
        cold, rss, warm, parse, parse_expanded = [], [], [], [], []
        for _ in range(runs):
            t, m = timed([CKG, "index", path, "--db", db, "--rebuild", "--quiet"])
            cold.append(t)
            rss.append(m)
            warm.append(timed([CKG, "index", path, "--db", db, "--quiet"])[0])
            parse.append(timed([CKG, "parse-only", path])[0])
            parse_expanded.append(timed([CKG, "parse-only", "--expanded-tables", "--ascii-step", "--reduce-in-place", path])[0])
        summary = json.loads(sh([CKG, "index", path, "--db", db, "--json"]).stdout)
        size = os.path.getsize(db)
        # Call sites (calls and instantiations, one per file:line:col) by their best evidence tier.
        tiers = json.loads(sh([CKG, "query", "sql", "--db", db, "--format", "json", """
            SELECT CASE ev WHEN 0 THEN 'exact' WHEN 1 THEN 'inferred' WHEN 2 THEN 'heuristic' ELSE 'unresolved' END, count(*)
            FROM (SELECT min(CASE evidence WHEN 'exact' THEN 0 WHEN 'inferred' THEN 1 WHEN 'heuristic' THEN 2 ELSE 3 END) AS ev
                  FROM edges WHERE kind IN ('calls', 'instantiates') GROUP BY file_id, line, col)
            GROUP BY ev ORDER BY ev"""]).stdout)["rows"]
        return {"cold": cold, "warm": warm, "parse": parse, "parse_expanded": parse_expanded, "rss": rss, "db": size, "summary": summary, "tiers": dict(tiers)}
    finally:
        shutil.rmtree(db_dir, ignore_errors=True)
        shutil.rmtree(path, ignore_errors=True)


def generated(lang, lines):
    path = os.path.join(ROOT, "target", f"results-gen-{lang}-{lines}")
    if not os.path.exists(path):
        sh([GEN, "--lang", lang, "--lines", str(lines), "--seed", "3", "--quiet", path])
    return path


def fit_exponent(points):
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def peer_row(cid, tool, binary, lang, path, runs, r):
    """Runs a peer `runs` times on a corpus; the table row, with ratios to ckg's run `r`."""
    times, mems = [], []
    for _ in range(runs):
        try:
            t, m = run_peer(tool, binary, lang, path)
        except PeerFailed as e:  # a peer failing is a result, not a crash; it is not retried
            return f"| {cid} | {tool} | failed ({e}) | | | |"
        times.append(t)
        mems.append(m)
    return (f"| {cid} | {tool} | {fmt_t(times)} | {statistics.median(mems) / 1024:.0f} MiB | "
            f"{time_ratio(statistics.median(r['cold']) / statistics.median(times))} | {statistics.median(r['rss']) / statistics.median(mems):.2f}x |")


def time_ratio(ratio):
    """ckg's time ÷ a peer's, to three decimals: at 0.10x, whether ckg is ten times faster than
    the peer (a target) is in the third."""
    return f"{ratio:.3f}x"


def only_peer(args):
    """Measures one peer again (e.g. codanna, which takes long to build) with ckg in the same run,
    and puts its rows in place of that peer's rows in results.md and the README."""
    tools = ensure_tools(True)
    if args.only_peer not in tools:
        sys.exit(f"{args.only_peer} is not installed (set CODANNA=/path/to/codanna for codanna)")
    wanted = set(args.corpora.split(",")) if args.corpora else None
    rows = []
    # (corpus id, language, its path when asked for: a generated one is generated then.)
    corpora = [(cid, lang, lambda cid=cid: os.path.join(ROOT, "corpora", "cache", cid, "src")) for cid, lang, _ in CORPORA]
    corpora += [(f"gen-{'py' if lang == 'python' else 'ts'}-1000k", lang, lambda lang=lang: generated(lang, 1_000_000))
                for lang in ["python", "typescript"]]
    for cid, lang, path_of in corpora:
        if wanted is not None and cid not in wanted:
            continue
        path = path_of()
        r = measure_ckg(path, args.runs)
        rows.append((cid, peer_row(cid, args.only_peer, tools[args.only_peer], lang, path, args.peer_runs, r)))
        print(rows[-1][1], flush=True)
    date = datetime.date.today().isoformat()
    note = (f"{args.only_peer} measured again on {date} with `--only-peer {args.only_peer}` on "
            f"{', '.join(cid for cid, _ in rows)} (ckg measured in that run for the ratios).")
    res = os.path.join(ROOT, "benches", "results.md")
    text = put_peer_rows(open(res).read(), args.only_peer, rows, note)
    open(res, "w").write(text)
    # The README's copy of the tables is edited in place (it may carry notes of its own).
    readme = os.path.join(ROOT, "README.md")
    body = open(readme).read()
    begin, end = "<!-- results:begin -->", "<!-- results:end -->"
    i, j = body.index(begin) + len(begin), body.index(end)
    body = body[:i] + put_peer_rows(body[i:j], args.only_peer, rows, note) + body[j:]
    open(readme, "w").write(body)


def put_peer_rows(text, peer, rows, note):
    """`text` with the peers table's rows of `peer` replaced by `rows` ((corpus id, row) pairs;
    a corpus without a row of that peer gets one after its other peers), and `note` below it."""
    lines = text.split("\n")
    anchor = "| corpus | peer | wall | peak RSS | ckg/peer time | ckg/peer memory |"
    if anchor not in lines:
        sys.exit("no peers table: run benches/results.py first")
    first = lines.index(anchor) + 2
    for cid, row in rows:
        at = next((i for i, line in enumerate(lines) if line.startswith(f"| {cid} | {peer} |")), None)
        if at is not None:
            lines[at] = row
            continue
        end = first
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        same = [i for i in range(first, end) if lines[i].startswith(f"| {cid} |")]
        lines.insert(same[-1] + 1 if same else end, row)
    end = first
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    # An earlier run's note on this peer is replaced, not stacked.
    earlier = f"{peer} measured again on "
    lines = lines[:end] + [line for line in lines[end:] if not line.startswith(earlier)]
    while end + 2 < len(lines) and lines[end] == "" and lines[end + 1] == "":
        del lines[end]
    lines[end:end] = ["", note]
    return "\n".join(lines).replace(f"\nNot measured in this run (not installed): {peer}.\n", "\n")


def kept_peers():
    """The peers' section of the last results (`benches/results.md`), for a run that measures no
    peer: kept as it was, said to be so (its ckg/peer ratios are against that run's ckg)."""
    try:
        text = open(os.path.join(ROOT, "benches", "results.md")).read()
    except OSError:
        return None
    start, end = text.find("Peers on the same corpora"), text.find("\nCall sites")
    if start < 0 or end < start:
        return None
    dated = re.search(r"date (\d{4}-\d{2}-\d{2})", text)
    when = f" of {dated.group(1)}" if dated else ""
    return (f"Peers were not measured in this run (`--no-peers`): their section is the last run's{when}, "
            f"ratios included (against that run's ckg).\n\n" + text[start:end].strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--peer-runs", type=int, default=5)
    ap.add_argument("--peer-timeout", type=float, default=1800.0, help="seconds before a peer run counts as failed")
    ap.add_argument("--quick", action="store_true", help="only the ~100k corpora and a short scaling curve")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--only-peer", help="measure just this peer (and ckg again) and put its rows in place of that peer's rows")
    ap.add_argument("--corpora", help="with --only-peer: comma-separated corpus ids (default: every corpus)")
    args = ap.parse_args()
    global PEER_TIMEOUT
    PEER_TIMEOUT = args.peer_timeout
    if args.only_peer:
        return only_peer(args)

    tools = ensure_tools(not args.no_peers)
    fetch = os.path.join(ROOT, "corpora", "fetch.sh")
    subprocess.run(["bash", fetch], check=True, capture_output=True)
    subprocess.run(["bash", fetch, "py-xl"], check=True, capture_output=True)  # the real ≥1M-line Python corpus
    corpora = [c for c in CORPORA if not (args.quick and (c[0].endswith("-l") or c[0].endswith("-xl")))]
    rows = [(cid, lang, desc, os.path.join(ROOT, "corpora", "cache", cid, "src")) for cid, lang, desc in corpora]
    tier_rows = []
    big = 300_000 if args.quick else 1_000_000
    for lang in ["python", "typescript"]:
        rows.append((f"gen-{'py' if lang == 'python' else 'ts'}-{big // 1000}k", lang, f"ckg-gen {lang}, {big:,} lines", generated(lang, big)))

    out = []
    date = datetime.date.today().isoformat()
    out.append(f"Machine: {os.cpu_count()} cores, {platform.system()} {platform.machine()}; date {date}; "
               f"medians of {args.runs} runs (peers: {args.peer_runs}), min–max in parentheses. "
               f"Command: `{' '.join(['python3', 'benches/results.py'] + sys.argv[1:])}`.\n")
    out.append("| corpus | lines | ckg cold index | ckg warm (no change) | parse-only | ratio (budget ≤ 2x) | parse-only as the index parses (÷ it) | peak RSS (budget < 500 MiB at 1M lines) | DB (÷ source; budget < 3x) |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    peer_rows = []
    for cid, lang, desc, path in rows:
        exts = (".py", ".pyi") if lang == "python" else (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
        n = lines_of(path, exts)
        src_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs if f.endswith(exts) and "/.ckg" not in d)
        r = measure_ckg(path, args.runs)
        ratio = statistics.median(r["cold"]) / statistics.median(r["parse"])
        ratio_expanded = statistics.median(r["cold"]) / statistics.median(r["parse_expanded"])
        rss = statistics.median(r["rss"]) / 1024
        db_ratio = r["db"] / max(1, src_bytes)
        rss_budget = (" met" if rss < 500 else " missed") if n >= 900_000 else ""
        out.append(f"| {cid} ({desc}) | {n:,} | {fmt_t(r['cold'])} | {fmt_t(r['warm'])} | {fmt_t(r['parse'])} | "
                   f"{ratio:.2f}x {'met' if ratio <= 2 else 'missed'} | {fmt_t(r['parse_expanded'])} ({ratio_expanded:.2f}x) | {rss:.0f} MiB{rss_budget} | "
                   f"{r['db'] / 2**20:.1f} MiB ({db_ratio:.2f}x {'met' if db_ratio < 3 else 'missed'}) |")
        total_sites = sum(r["tiers"].values())
        tier_rows.append(f"| {cid} ({desc}) | {total_sites:,} | " + " | ".join(
            f"{100 * r['tiers'].get(t, 0) / max(1, total_sites):.1f}%" for t in ["exact", "inferred", "heuristic", "unresolved"]) + " |")
        print(out[-1], flush=True)
        for tool in ["ctags", "scip-typescript" if lang == "typescript" else "scip-python", "codanna"]:
            if tool not in tools:
                continue
            peer_rows.append(peer_row(cid, tool, tools[tool], lang, path, args.runs if tool == "ctags" else args.peer_runs, r))
            print(peer_rows[-1], flush=True)
    kept = kept_peers() if args.no_peers else None
    if kept:
        out.append(f"\n{kept}")
    if peer_rows:
        out.append("\nPeers on the same corpora in the same run (ratios are ckg ÷ peer: below 1 means ckg is faster or smaller). "
                   "What they produce differs: ctags — names and kinds only; scip-typescript / scip-python — compiler-grade "
                   "definitions and references, no call edges; codanna — symbols and heuristic relationships; ckg — definitions, "
                   "imports, calls, references, inheritance with evidence tiers.\n")
        out.append("| corpus | peer | wall | peak RSS | ckg/peer time | ckg/peer memory |")
        out.append("|---|---|---:|---:|---:|---:|")
        out.extend(peer_rows)
    out.append("\nCall sites (calls and instantiations, one per file:line:col) by the best evidence tier of their edges:\n")
    out.append("| corpus | call sites | exact | inferred | heuristic | unresolved |")
    out.append("|---|---:|---:|---:|---:|---:|")
    out.extend(tier_rows)
    missing = [t for t in ["ctags", "scip-typescript", "scip-python", "codanna"] if t not in tools]
    if missing and not args.no_peers:
        out.append(f"\nNot measured in this run (not installed): {', '.join(missing)}.")

    # Scaling curve.
    sizes = [10_000, 30_000, 100_000, 300_000] + ([] if args.quick else [1_000_000])
    out.append("\nScaling (generated repositories, one cold index each; exponent = slope of log(metric) over log(lines)):\n")
    out.append("| language | lines | time | peak RSS | DB |")
    out.append("|---|---:|---:|---:|---:|")
    fits = []
    for lang in ["python", "typescript"]:
        pts_t, pts_m, pts_d = [], [], []
        for size in sizes:
            path = generated(lang, size)
            r = measure_ckg(path, 1)
            t, m, d = r["cold"][0], r["rss"][0] / 1024, r["db"] / 2**20
            pts_t.append((size, t))
            pts_m.append((size, m))
            pts_d.append((size, d))
            out.append(f"| {lang} | {size:,} | {t:.2f} s | {m:.0f} MiB | {d:.1f} MiB |")
            print(out[-1], flush=True)
        fits.append(f"{lang}: time ∝ lines^{fit_exponent(pts_t):.2f}, memory ∝ lines^{fit_exponent(pts_m):.2f}, "
                    f"DB ∝ lines^{fit_exponent(pts_d):.2f}")
    out.append("\nFitted exponents — " + "; ".join(fits) + ".")

    text = "\n".join(out) + "\n"
    with open(os.path.join(ROOT, "benches", "results.md"), "w") as f:
        f.write(text)
    readme = os.path.join(ROOT, "README.md")
    body = open(readme).read()
    begin, end = "<!-- results:begin -->", "<!-- results:end -->"
    if begin in body and end in body:
        body = body[: body.index(begin) + len(begin)] + "\n" + text + body[body.index(end):]
        open(readme, "w").write(body)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
