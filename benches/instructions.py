#!/usr/bin/env python3
"""Counts the instructions and cache misses of parsing and of extraction, with valgrind.

    python3 benches/instructions.py CORPUS BINARY [BINARY ...]

Wall and CPU time on a shared two-core machine move by 10-20 % between runs, which hides a
step of a few per cent (two wall-clock medians of the same extraction differed by 5 % and the
instruction counts by 0.3 %). Instruction counts do not move: each BINARY runs
`ckg parse-only CORPUS -j 1` with and without `--extract` under `valgrind --tool=cachegrind`
(one thread, so the count is the same run after run), and the difference is what extraction
costs beyond the parse. The simulated first-level cache misses (data / instruction) are
printed too (instruction misses move by a few per cent with the code's layout from one build
to the next, even in code a change did not touch). Count both: on pytest extraction runs ~0.6x
the parse's instructions in ~1x its time, with more misses (it walks trees the parse has just
built), and a step that traded instructions for misses did not move the wall clock.

CORPUS is an id of corpora/cache (py-m, ts-m, ...: `corpora/fetch.sh`) or a directory. About
20x slower than a plain run: pytest (py-m) takes ~25 s per run, ~50 s with the cache simulation.
Needs `valgrind` (Debian: `apt-get install valgrind`).
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def counts(binary, corpus, extract):
    """(instructions, I1 misses, D1 misses) of one `parse-only` run."""
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=/dev/null", binary, "parse-only", corpus, "-j", "1"]
    if extract:
        cmd.append("--extract")
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")

    def event(name):
        m = re.search(rf"{name}:\s+([\d,]+)", p.stderr)
        if not m:
            sys.exit(f"no '{name}' in valgrind's output:\n{p.stderr[-2000:]}")
        return int(m.group(1).replace(",", ""))

    return event("I\\s+refs"), event("I1\\s+misses"), event("D1\\s+misses")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if not shutil.which("valgrind"):
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    corpus = sys.argv[1]
    if not os.path.isdir(corpus):
        corpus = os.path.join(ROOT, "corpora", "cache", corpus, "src")
        if not os.path.isdir(corpus):
            sys.exit(f"no corpus {sys.argv[1]}: fetch it with corpora/fetch.sh {sys.argv[1]}")
    print(
        f"{'binary':<24} {'parse Ginstr':>12} {'extract Ginstr':>14} {'extract/parse':>13}"
        f" {'parse D1/I1 Mmiss':>17} {'extract D1/I1 Mmiss':>19}"
    )
    for binary in sys.argv[2:]:
        parse = counts(binary, corpus, False)
        both = counts(binary, corpus, True)
        extract = [b - a for a, b in zip(parse, both)]
        print(
            f"{os.path.basename(binary):<24} {parse[0] / 1e9:>12.3f} {extract[0] / 1e9:>14.3f} {extract[0] / parse[0]:>13.3f}"
            f" {f'{parse[2] / 1e6:.2f} / {parse[1] / 1e6:.2f}':>17} {f'{extract[2] / 1e6:.2f} / {extract[1] / 1e6:.2f}':>19}",
            flush=True,
        )


if __name__ == "__main__":
    main()
