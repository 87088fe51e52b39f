#!/usr/bin/env python3
"""`ckg index` as a process after one edit, the way agents and editor hooks call it.

    python3 benches/index_process.py [--edits N] [--runs N] [CORPUS ...]
    python3 benches/index_process.py --against OTHER_CKG [--edits N] [CORPUS ...]

Corpora: `django` (py-l, django 5.2.19 from corpora/fetch.sh, 2,932 files, 520k lines),
`gen-ts-1m` and `gen-py-1m` (ckg-gen, 1M lines, seed 3). Each is copied to a temporary
directory and indexed once; then, per run: N runs with nothing changed, and N body-only edits
(a comment appended to one file, a different line each time; with `--at middle`, inserted
before the file's middle line, so the lines after it move), each followed by
`ckg index DIR --quiet`, timed as a whole process (start to exit). Prints p50 / p95 / max in
milliseconds per corpus and run, and checks after the last edit that the incremental summary
equals a fresh index's (`--json` totals).

With `--against OTHER_CKG`, the two binaries are compared on a shared, noisy machine: each
gets its own copy (their caches next to the index differ), and per round each in turn runs
one edit then one no-change `ckg index`; N rounds, medians and p95 per binary.

Budgets (#18): body-only edit p50 < 100 ms and no-change p50 < 60 ms on django; within 2x on
the 1M-line repositories. CKG=path/to/ckg skips the release build.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
CKG = os.environ.get("CKG") or os.path.join(TARGET, "release", "ckg")
GEN = os.path.join(TARGET, "release", "ckg-gen")
CACHE = os.environ.get("CORPORA_CACHE") or os.path.join(ROOT, "corpora", "cache")


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def corpus(name):
    """(source folder, file to edit relative to it, comment prefix)"""
    if name == "django":
        src = os.path.join(CACHE, "py-l", "src")
        if not os.path.isdir(src):
            sh(["bash", os.path.join(ROOT, "corpora", "fetch.sh"), "py-l"])
        return src, "django/utils/text.py", "#"
    lang = {"gen-ts-1m": "typescript", "gen-py-1m": "python"}[name]
    path = os.path.join(TARGET, f"results-gen-{lang}-1000000")
    if not os.path.exists(path):
        if not os.path.exists(GEN):
            sh(["cargo", "build", "--release", "--locked", "-q", "-p", "ckg-gen"], cwd=ROOT)
        sh([GEN, "--lang", lang, "--lines", "1000000", "--seed", "3", "--quiet", path])
    ext = (".ts",) if lang == "typescript" else (".py",)
    files = sorted(os.path.relpath(os.path.join(d, f), path) for d, _, fs in os.walk(path) for f in fs if f.endswith(ext))
    return path, files[len(files) // 2], "//" if lang == "typescript" else "#"


def edit_file(path, line, at):
    """Adds a comment line to a file: appended (`end`), or inserted before its middle line
    (`middle`: the lines after it move, as they do in most edits of a body)."""
    if at == "end":
        with open(path, "a") as f:
            f.write(line)
        return
    with open(path) as f:
        lines = f.readlines()
    lines.insert(len(lines) // 2, line)
    with open(path, "w") as f:
        f.writelines(lines)


def timed(cmd):
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def totals(summary):
    keys = ["files_by_lang", "lines", "bytes", "symbols", "externals", "edges_by_kind", "edges_by_evidence", "parse_errors"]
    return {k: summary[k] for k in keys}


def bench(name, edits, runs, at):
    src, target, comment = corpus(name)
    work = tempfile.mkdtemp(prefix=f"ckg-index-process-{name}-")
    try:
        shutil.copytree(src, work, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".ckg"))
        sh([CKG, "index", work, "--quiet"])
        sh([CKG, "index", work, "--quiet"])  # the walk's listing is cached from here on
        edited = os.path.join(work, target)
        rows = []
        for run in range(1, runs + 1):
            still = [timed([CKG, "index", work, "--quiet"]) for _ in range(edits)]
            edit = []
            for i in range(edits):
                edit_file(edited, f"{comment} edit {run}.{i}\n", at)
                edit.append(timed([CKG, "index", work, "--quiet"]))
            rows.append((run, still, edit))
        inc = json.loads(sh([CKG, "index", work, "--json"]).stdout)
        fresh = json.loads(sh([CKG, "index", work, "--json", "--rebuild"]).stdout)
        exact = totals(inc) == totals(fresh)
        return target, rows, exact
    finally:
        shutil.rmtree(work, ignore_errors=True)


def alternate(name, rounds, binaries, at):
    """Per round, each binary on its own copy: an edit, then a run with nothing changed."""
    src, target, comment = corpus(name)
    works = [tempfile.mkdtemp(prefix=f"ckg-index-process-{name}-") for _ in binaries]
    try:
        for ckg, work in zip(binaries, works):
            shutil.copytree(src, work, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".ckg"))
            sh([ckg, "index", work, "--quiet"])
            sh([ckg, "index", work, "--quiet"])
        times = {ckg: ([], []) for ckg in binaries}
        for r in range(rounds):
            for ckg, work in zip(binaries, works):
                edit_file(os.path.join(work, target), f"{comment} edit {r}\n", at)
                times[ckg][0].append(timed([ckg, "index", work, "--quiet"]))
                times[ckg][1].append(timed([ckg, "index", work, "--quiet"]))
        exact = all(
            totals(json.loads(sh([ckg, "index", work, "--json"]).stdout))
            == totals(json.loads(sh([ckg, "index", work, "--json", "--rebuild"]).stdout))
            for ckg, work in zip(binaries, works)
        )
        return target, times, exact
    finally:
        for work in works:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--against", metavar="OTHER_CKG", help="alternate with this binary (edits = rounds)")
    ap.add_argument("--at", choices=["end", "middle"], default="end", help="where each edit adds its comment line (default: end)")
    ap.add_argument("corpora", nargs="*", default=["django", "gen-ts-1m", "gen-py-1m"])
    a = ap.parse_args()
    if not os.environ.get("CKG"):
        sh(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT)
    f = lambda xs: f"{statistics.median(xs):.1f} / {pct(xs, 95):.1f} ms"
    if a.against:
        print("| corpus | binary | body-only edit p50 / p95 | no change p50 / p95 |")
        print("|---|---|---:|---:|")
        notes = []
        for name in a.corpora:
            target, times, exact = alternate(name, a.edits, [a.against, CKG], a.at)
            for ckg, (edit, still) in times.items():
                print(f"| {name} | {ckg} | {f(edit)} | {f(still)} |")
                sys.stdout.flush()
            notes.append(f"{name}: {a.edits} rounds, edited {target} (comment line at the {a.at}); totals {'equal' if exact else 'DIFFER FROM'} a fresh index's")
        print()
        print("\n".join(notes))
        return
    print("| corpus | run | no change p50 / p95 / max | body-only edit p50 / p95 / max |")
    print("|---|---:|---:|---:|")
    notes = []
    for name in a.corpora:
        target, rows, exact = bench(name, a.edits, a.runs, a.at)
        for run, still, edit in rows:
            f = lambda xs: f"{statistics.median(xs):.0f} / {pct(xs, 95):.0f} / {max(xs):.0f} ms"
            print(f"| {name} | {run} | {f(still)} | {f(edit)} |")
            sys.stdout.flush()
        notes.append(f"{name}: edited {target} (comment line at the {a.at}); totals after the edits {'equal' if exact else 'DIFFER FROM'} a fresh index's")
    print()
    print("\n".join(notes))


if __name__ == "__main__":
    main()
