#!/usr/bin/env python3
"""Compares cold full indexes (`ckg index --rebuild`) of ckg binaries on one corpus, side by side.

    python3 benches/full_ab.py CORPUS ROUNDS BINARY [BINARY ...]

CORPUS is an id of corpora/cache (py-m, ts-m, py-l, ts-l, py-xl: `corpora/fetch.sh`) or a
directory (e.g. a generated repository, target/results-gen-python-1000000). It is copied once
(to /dev/shm where there is one, with the index beside it); each round indexes it with every
binary in turn (alternating, so a slow phase of a shared machine hits all alike), then runs
the last binary's `ckg parse-only` on it.
Prints per binary the median wall time, its ratio to the median parse-only time (budget: 2x),
the median peak RSS, CPU time (user + system) and minor page faults (`/usr/bin/time`), and the
fastest run of each binary and of parse-only (on a shared machine the minimum is the figure
least moved by other load).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    """Wall seconds, peak RSS MiB, CPU seconds and minor faults of one command."""
    started = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S %R"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    rss, user, system, faults = p.stderr.strip().splitlines()[-1].split()
    return time.perf_counter() - started, int(rss) / 1024, float(user) + float(system), int(faults)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    corpus, rounds, binaries = sys.argv[1], int(sys.argv[2]), [os.path.abspath(b) for b in sys.argv[3:]]
    src = corpus if os.path.isdir(corpus) else os.path.join(ROOT, "corpora", "cache", corpus, "src")
    if not os.path.isdir(src):
        sys.exit(f"{src} is missing: run corpora/fetch.sh")
    corpus = os.path.basename(os.path.normpath(corpus))
    # In memory when the machine has /dev/shm: a shared VM drops its page cache within a
    # minute, and runs that read part of the corpus from disk waited for I/O at random.
    base = tempfile.mkdtemp(prefix="ckg-full-ab-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        tree = os.path.join(base, "src")
        shutil.copytree(src, tree, symlinks=True)
        runs = {b: [] for b in binaries}
        parse_only = []
        for _ in range(rounds):
            for b in binaries:
                runs[b].append(run([b, "index", tree, "--rebuild", "--quiet"]))
            parse_only.append(run([binaries[-1], "parse-only", tree])[0])
        p = statistics.median(parse_only)
        p_min = min(parse_only)
        print("| corpus | binary | wall | ÷ parse-only | fastest (÷ fastest parse-only) | peak RSS | CPU | minor faults |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for b in binaries:
            wall, rss, cpu, faults = (statistics.median(col) for col in zip(*runs[b]))
            fastest = min(r[0] for r in runs[b])
            print(f"| {corpus} | {b} | {wall:.2f} s | {wall / p:.2f}x | {fastest:.2f} s ({fastest / p_min:.2f}x) | {rss:.0f} MiB | {cpu:.2f} s | {faults / 1000:.0f}k |")
        print(f"| {corpus} | parse-only | {p:.2f} s | | {p_min:.2f} s | | | |")
    finally:
        shutil.rmtree(base)


if __name__ == "__main__":
    main()
