#!/usr/bin/env python3
"""Faults under `ckg watch` and `ckg serve --watch`, at scale (tests/faults.rs is the bounded
version that runs in CI).

    python3 scripts/faults.py [--kills 120] [--rounds 20] [--ckg target/release/ckg]

Injects, on a generated repository of Python and TypeScript modules:
  kill      SIGKILL of `ckg watch` (and of `ckg serve --watch`) at a random point of a batch;
  disk-full the database on a small tmpfs (or, without the right to mount one, a file size
            limit) that a batch overflows; then the space is freed;
  read-only the database's file system remounted read-only during a batch, then writable;
  removed   the database (and its -wal/-shm) deleted while watching;
  replaced  the database replaced by a file that is not an index, then removed;
  chaos     files deleted, renamed, truncated, replaced by directories, symlink loops and
            invalid UTF-8 while batches run.
After each fault: the process must still run (or have been killed by us), the last committed
generation must open and pass `PRAGMA integrity_check`, a kill must leave exactly the last
committed generation (the export equals the one before the batch, or a fresh index of the tree
after it: nothing committed lost, nothing half-written), and the index must converge to a
fresh index of the tree. Prints one row per fault kind.
"""

import argparse
import hashlib
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


class Ckg:
    def __init__(self, exe):
        self.exe = exe

    def run(self, *args, check=True):
        r = subprocess.run([self.exe, *map(str, args)], capture_output=True)
        if check and r.returncode != 0:
            raise RuntimeError(f"ckg {' '.join(map(str, args))}: {r.stderr.decode()[-500:]}")
        return r

    def export(self, db):
        r = self.run("export", "--db", db, check=False)
        return hashlib.sha256(r.stdout).hexdigest() if r.returncode == 0 else None

    def fresh(self, root, scratch, *extra):
        db = Path(scratch) / "fresh.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        self.run("index", root, "--db", db, "-q", *extra)
        return self.export(db)


class Proc:
    """A background ckg process whose output lines are collected."""

    def __init__(self, cmd, cwd=None, preexec=None):
        self.p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  preexec_fn=preexec)
        self.out, self.err = [], []
        self.pumps = [threading.Thread(target=self._pump, args=(stream, sink), daemon=True)
                      for stream, sink in ((self.p.stdout, self.out), (self.p.stderr, self.err))]
        for t in self.pumps:
            t.start()

    @staticmethod
    def _pump(stream, sink):
        for line in stream:
            sink.append(line.decode(errors="replace").rstrip())

    def wait_for(self, needle, stderr=False, timeout=60):
        lines = self.err if stderr else self.out
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(needle in l for l in lines):
                return True
            if self.p.poll() is not None:
                time.sleep(0.1)
                return any(needle in l for l in lines)
            time.sleep(0.01)
        return False

    def alive(self):
        return self.p.poll() is None

    def kill(self):
        if self.alive():
            self.p.send_signal(signal.SIGKILL)
        self.p.wait()
        for t in self.pumps:  # what it wrote before it died is read to the end
            t.join(timeout=5)


# What each watching process prints when a batch fails.
UPDATE_FAILED = {"watch": '"error"', "serve": "error: update failed"}


def start(ckg, mode, root, *extra, preexec=None):
    """`ckg watch ROOT --json` or `ckg serve ROOT --watch` (on a free port), once its first
    index is done; `proc.ready` says whether it got there."""
    if mode == "watch":
        proc = Proc([ckg.exe, "watch", root, "--json", *extra], preexec=preexec)
        proc.ready = proc.wait_for("generation")
    else:
        proc = Proc([ckg.exe, "serve", root, "--watch", "--addr", "127.0.0.1:0", *extra], preexec=preexec)
        proc.ready = proc.wait_for("listening")
        time.sleep(1.5)  # the watcher's first run (nothing changed) prints nothing
    return proc


def label(kind, mode):
    return kind if mode == "watch" else f"{kind} (serve --watch)"


def intact(db):
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        ok = conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        gen = int(conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])
        conn.close()
        return ok, gen
    except sqlite3.Error:
        return False, None


def make_repo(scratch, name, n):
    """A new repository `scratch/name` of `n` modules per language, each calling the one
    before; returns its root."""
    root = Path(scratch) / name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    for i in range(n):
        write_module(root, i, (i - 1) % n, 0)
    (root / "pkg" / "__init__.py").write_text("")
    return root


def write_module(root, i, prev, variant):
    ts = (f"import {{ helper{prev} }} from '../m{prev}/mod';\n\n"
          f"export class Base{i} {{\n  run(x: number): number {{ return helper{prev}(x) + {variant}; }}\n}}\n\n"
          f"export function helper{i}(x: number): number {{\n  return new Base{i}().run(x);\n}}\n")
    py = (f"from pkg.m{prev} import helper{prev}\n\n\nclass Base{i}:\n    def run(self, x):\n"
          f"        return helper{prev}(x) + {variant}\n\n\ndef helper{i}(x):\n    return Base{i}().run(x)\n")
    for path, text in ((root / "src" / f"m{i}" / "mod.ts", ts), (root / "pkg" / f"m{i}.py", py)):
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)  # a file the chaos replaced by a directory comes back
        path.write_text(text)


def edit_batch(rng, root, n, size):
    for _ in range(size):
        i = rng.randrange(n)
        write_module(root, i, rng.randrange(n), rng.randrange(1000))


def big_module(n):
    return "def f0():\n    return 0\n" + "".join(
        f"\n\ndef f{i}(x=None):\n    return f{i - 1}() + {i}\n" for i in range(1, n))


class Tally:
    def __init__(self):
        self.rows = {}
        # Kills that landed before their batch committed (the rest landed after it).
        self.before_commit = {}

    def add(self, kind, survived, lost=False, converged=None, note=None):
        r = self.rows.setdefault(kind, dict(injected=0, survived=0, lost=0, converged=0,
                                            checked=0, notes=[]))
        r["injected"] += 1
        r["survived"] += bool(survived)
        r["lost"] += bool(lost)
        if converged is not None:
            r["checked"] += 1
            r["converged"] += bool(converged)
        if note and len(r["notes"]) < 3:
            r["notes"].append(note)

    def table(self):
        out = ["| fault | injected | survived | committed data lost | converged to a fresh index |",
               "|---|---:|---:|---:|---:|"]
        for kind, r in self.rows.items():
            out.append(f"| {kind} | {r['injected']} | {r['survived']} | {r['lost']} | "
                       f"{r['converged']} of {r['checked']} |")
        notes = [f"- {k}: {n} of {self.rows[k]['injected']} kills landed before the batch committed"
                 for k, n in self.before_commit.items()]
        notes += [f"- {k}: {n}" for k, r in self.rows.items() for n in r["notes"]]
        return "\n".join(out + ([""] + notes if notes else [])) + "\n"


def kills(ckg, tally, rng, scratch, count, n, mode):
    """SIGKILL of `ckg watch` or `ckg serve --watch` at random points of batches."""
    root = make_repo(scratch, f"kill-{mode}", n)
    db = root / ".ckg" / "index.db"
    kind = "kill (watch)" if mode == "watch" else label("kill", mode)
    for k in range(count):
        ckg.run("index", root, "-q")
        before, (_, gen0) = ckg.export(db), intact(db)
        proc = start(ckg, mode, root, "--debounce-ms", "1")
        if not proc.ready:
            tally.add(kind, False, note=f"did not start: {proc.err[-2:]}")
            proc.kill()
            continue
        edit_batch(rng, root, n, rng.randint(1, n // 2))
        time.sleep(rng.uniform(0, 0.4))
        proc.kill()
        ok, gen = intact(db)
        after = ckg.export(db)
        tally.before_commit[kind] = tally.before_commit.get(kind, 0) + (gen == gen0)
        # Nothing committed is lost: the database holds at least the last generation the
        # process reported as committed; and nothing is half-written: with no new generation,
        # the export is the one from before the batch.
        reported = [int(g) for l in proc.out + proc.err for g in re.findall(
            r'"generation":(\d+)|ckg serve: generation (\d+):', l) for g in g if g]
        last = max(reported, default=gen0)
        same = gen is not None and gen >= last and (gen != gen0 or after == before)
        ckg.run("index", root, "-q")
        converged = ckg.export(db) == ckg.fresh(root, scratch)
        tally.add(kind, ok, lost=not same, converged=converged,
                  note=None if ok and same and converged else f"kill {k}: ok={ok} same={same} conv={converged}")


def mount_tmpfs(path, size):
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                       capture_output=True)
    return r.returncode == 0


def umount(path):
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def storage_faults(ckg, tally, rng, scratch, rounds, n, mode):
    """Disk full, read-only file system, database removed and replaced, under `ckg watch` or
    `ckg serve --watch`."""
    root = make_repo(scratch, f"storage-{mode}", n)
    mnt = Path(scratch) / "mnt"
    use_tmpfs = mount_tmpfs(mnt, "16m")
    if use_tmpfs:
        umount(mnt)
    for r in range(rounds):
        if use_tmpfs:
            disk_full_tmpfs(ckg, tally, rng, scratch, root, mnt, n, mode)
        else:
            disk_full_rlimit(ckg, tally, rng, scratch, root, mnt, mode)
        # Removed, then replaced by a foreign file (database on the repository's disk).
        db = root / ".ckg" / "index.db"
        ckg.run("index", root, "-q")
        proc = start(ckg, mode, root)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        noticed = proc.wait_for("removed or replaced", stderr=True, timeout=30)
        converged = wait_converged(ckg, root, db, scratch)
        tally.add(label("database removed", mode), noticed and proc.alive() and intact(db)[0], converged=converged)
        db.unlink()
        db.write_bytes(b"not a database " * 100)
        edit_batch(rng, root, n, 2)
        failed = proc.wait_for(UPDATE_FAILED[mode], stderr=True, timeout=30)
        untouched = db.read_bytes() == b"not a database " * 100
        db.unlink()
        converged = wait_converged(ckg, root, db, scratch)
        tally.add(label("database replaced by a foreign file", mode), failed and untouched and proc.alive(),
                  converged=converged)
        proc.kill()


def disk_full_tmpfs(ckg, tally, rng, scratch, root, mnt, n, mode):
    """The database on a tmpfs that another file fills: a batch fails; the file goes, and the
    watcher's retry (no change needed) commits. Then the file system is remounted read-only
    during a batch, and writable again."""
    mount_tmpfs(mnt, "16m")
    db = mnt / "index.db"
    try:
        ckg.run("index", root, "--db", db, "-q")
        proc = start(ckg, mode, root, "--db", db)
        before = ckg.export(db)
        ballast = mnt / "ballast"
        free = shutil.disk_usage(mnt).free
        with open(ballast, "wb") as f:
            f.write(b"\0" * max(0, free - rng.randint(16, 96) * 1024))
        (root / "pkg" / "big.py").write_text(big_module(rng.randint(4000, 8000)))
        failed = proc.wait_for(UPDATE_FAILED[mode], stderr=True, timeout=30)
        ok, _ = intact(db)
        same = ckg.export(db) == before
        ballast.unlink()
        converged = wait_converged(ckg, root, db, scratch)
        tally.add(label("disk full (tmpfs)", mode), failed and ok and proc.alive(), lost=failed and not same,
                  converged=converged, note=None if failed else "the batch did not fail")
        (root / "pkg" / "big.py").unlink()
        # Read-only file system during a batch, then writable again. (Not under serve: its
        # readers keep the -shm file open for writing, and such a file system cannot be
        # remounted read-only.)
        if mode == "serve":
            proc.kill()
            return
        wait_converged(ckg, root, db, scratch)
        before = ckg.export(db)
        errors = sum(UPDATE_FAILED[mode] in l for l in proc.err)
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        edit_batch(rng, root, n, 5)
        end = time.monotonic() + 30
        while sum(UPDATE_FAILED[mode] in l for l in proc.err) == errors and time.monotonic() < end:
            time.sleep(0.02)
        failed = sum(UPDATE_FAILED[mode] in l for l in proc.err) > errors
        ok, _ = intact(db)
        same = ckg.export(db) == before
        subprocess.run(["mount", "-o", "remount,rw", str(mnt)], check=True)
        converged = wait_converged(ckg, root, db, scratch)
        tally.add(label("read-only file system", mode), failed and ok and proc.alive(), lost=failed and not same,
                  converged=converged, note=None if failed else "the batch did not fail")
        proc.kill()
    finally:
        umount(mnt)


def disk_full_rlimit(ckg, tally, rng, scratch, root, mnt, mode):
    """Without the right to mount a tmpfs: no file the watcher writes may grow past a limit
    (EFBIG, as on a full disk). A big module fails the batch; it is removed and an edit comes."""
    shutil.rmtree(mnt, ignore_errors=True)
    mnt.mkdir()
    db = mnt / "index.db"
    ckg.run("index", root, "--db", db, "-q")
    limit = max(p.stat().st_size for p in mnt.iterdir()) * 2 + (256 << 10)

    def preexec():
        import resource
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = start(ckg, mode, root, "--db", db, preexec=preexec)
    before = ckg.export(db)
    big = root / "pkg" / "big.py"
    big.write_text(big_module(rng.randint(20000, 40000)))
    failed = proc.wait_for(UPDATE_FAILED[mode], stderr=True, timeout=30)
    ok, _ = intact(db)
    same = ckg.export(db) == before
    big.unlink()
    write_module(root, 0, 1, rng.randrange(1000))
    converged = wait_converged(ckg, root, db, scratch)
    tally.add(label("disk full (file size limit)", mode), failed and ok and proc.alive(), lost=failed and not same,
              converged=converged, note=None if failed else "the batch did not fail")
    proc.kill()


def wait_converged(ckg, root, db, scratch, timeout=60, *extra):
    want = ckg.fresh(root, scratch, *extra)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ckg.export(db) == want:
            return True
        time.sleep(0.2)
    return False


def chaos(ckg, tally, rng, scratch, rounds, n, mode):
    root = make_repo(scratch, f"chaos-{mode}", n)
    db = root / ".ckg" / "index.db"
    ckg.run("index", root, "-q", "--follow")
    proc = start(ckg, mode, root, "--follow", "--debounce-ms", "5")
    kinds = ("delete", "rename", "truncate", "directory", "symlink loop", "invalid UTF-8")
    for r in range(rounds):
        edit_batch(rng, root, n, rng.randint(5, n // 2))
        time.sleep(rng.uniform(0, 0.15))
        for _ in range(rng.randint(1, 6)):
            kind = rng.choice(kinds)
            files = sorted(root.glob("src/*/*.ts")) + sorted(root.glob("pkg/*.py"))
            f = rng.choice(files)
            try:
                if kind == "delete":
                    f.unlink()
                elif kind == "rename":
                    f.rename(f.with_name(f"moved{r}_{f.name}"))
                elif kind == "truncate":
                    f.write_bytes(f.read_bytes()[: rng.randrange(max(1, f.stat().st_size))])
                elif kind == "directory":
                    f.unlink()
                    f.mkdir()
                    (f / "inner.py").write_text("def inner():\n    return 1\n")
                elif kind == "symlink loop":
                    os.symlink("..", f.with_name(f"loop{r}"))
                else:
                    data = f.read_bytes()
                    cut = rng.randrange(len(data) + 1)
                    f.write_bytes(data[:cut] + b"\xff\xfe\xc3" + data[cut:])
            except OSError:
                pass
        ok, _ = intact(db)
        converged = (wait_converged(ckg, root, db, scratch, 60, "--follow")
                     if r % 5 == 4 or r == rounds - 1 else None)
        tally.add(label("files changing kind mid-batch", mode), ok and proc.alive(), converged=converged)
    proc.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ckg", default=str(REPO / "target" / "release" / "ckg"))
    ap.add_argument("--kills", type=int, default=120, help="SIGKILLs of `ckg watch` (120)")
    ap.add_argument("--serve-kills", type=int, default=30, help="SIGKILLs of `ckg serve --watch` (30)")
    ap.add_argument("--rounds", type=int, default=10, help="rounds of storage faults and of chaos (10)")
    ap.add_argument("--modules", type=int, default=300, help="modules per language (300)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ckg = Ckg(str(Path(args.ckg).resolve()))
    if not os.access(ckg.exe, os.X_OK):
        sys.exit(f"faults: {ckg.exe} is not built; run `cargo build --release` first")
    rng = random.Random(args.seed)
    tally = Tally()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ckg-faults-") as scratch:
        for step, fn in (("kills (watch)", lambda: kills(ckg, tally, rng, scratch, args.kills, args.modules, "watch")),
                         ("kills (serve)", lambda: kills(ckg, tally, rng, scratch, args.serve_kills, args.modules, "serve")),
                         ("storage (watch)", lambda: storage_faults(ckg, tally, rng, scratch, args.rounds, args.modules, "watch")),
                         ("storage (serve)", lambda: storage_faults(ckg, tally, rng, scratch, args.rounds // 2, args.modules, "serve")),
                         ("chaos (watch)", lambda: chaos(ckg, tally, rng, scratch, args.rounds * 3, args.modules, "watch")),
                         ("chaos (serve)", lambda: chaos(ckg, tally, rng, scratch, args.rounds, args.modules, "serve"))):
            t = time.monotonic()
            fn()
            print(f"faults: {step} done in {time.monotonic() - t:.0f} s", file=sys.stderr, flush=True)
    print(f"{args.modules} modules per language, seed {args.seed}, "
          f"{time.monotonic() - started:.0f} s in all\n")
    print(tally.table())
    bad = any(r["survived"] < r["injected"] or r["lost"] or r["converged"] < r["checked"]
              for r in tally.rows.values())
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
