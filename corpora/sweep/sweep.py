#!/usr/bin/env python3
"""The package sweep: index hundreds of real packages from PyPI and npm, each under a time and
memory limit, and check the guarantees on code nobody here wrote.

    python3 corpora/sweep/sweep.py [all]      fetch (checksums verified), then run
    python3 corpora/sweep/sweep.py fetch      download and unpack into corpora/cache/sweep/
    python3 corpora/sweep/sweep.py run        index every fetched package (see --help)
    python3 corpora/sweep/sweep.py report     print the last run's summary again
    python3 corpora/sweep/sweep.py pin        resolve packages.txt to pinned.tsv (maintainers)

For each package `run` does three things:
  1. a full index with `--json` under the limits: wall time, peak RSS, exit status, parse errors;
  2. a second full index into another database, on one parser thread: the two canonical
     exports must be identical;
  3. a copy of the tree indexed, then changed by a seeded random sequence of edits (bodies,
     syntax errors, invalid UTF-8, truncations, new/removed/renamed/duplicated files, a file
     replaced by a directory) with an incremental `ckg index` after each round; the export must
     equal a fresh index of the final tree.
A crash is a signal or an exit status other than 0; a timeout is a run over --timeout. Results go
to corpora/cache/sweep/results.json and a Markdown summary to stdout (--markdown FILE too).

Registries are reached through the clients' configuration only (pip's index, npm's registry);
no host name is written here.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import time
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CACHE = REPO / "corpora" / "cache" / "sweep"
DL = CACHE / "dl"
TREES = CACHE / "trees"
WORK = CACHE / "work"
PINNED = HERE / "pinned.tsv"
LANG_EXT = (".py", ".pyi", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
SDIST_EXT = (".tar.gz", ".zip", ".tar.bz2", ".tgz")


def log(msg):
    print(f"sweep: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Registries


def pip_index():
    url = os.environ.get("PIP_INDEX_URL")
    for key in ("download.index-url", "global.index-url", "install.index-url"):
        if url:
            break
        r = subprocess.run(["pip", "config", "get", key], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip():
            url = r.stdout.strip()
    if not url:
        from pip._internal.models.index import PyPI

        url = PyPI.simple_url
    return url.rstrip("/") + "/"


def npm_registry():
    r = subprocess.run(["npm", "config", "get", "registry"], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        sys.exit("sweep: cannot read npm's registry (`npm config get registry`)")
    return r.stdout.strip().rstrip("/") + "/"


def get_json(url, accept):
    req = urllib.request.Request(url, headers={"Accept": accept})
    for attempt in range(4):
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.load(r)
        except Exception as e:  # noqa: BLE001 - retried, then reported
            if attempt == 3:
                raise RuntimeError(f"{url}: {e}") from e
            time.sleep(1 + attempt)


def normalize(name):
    return "".join("-" if c in "._" else c for c in name.lower()).replace("--", "-")


def pypi_files(index, name):
    data = get_json(index + normalize(name) + "/", "application/vnd.pypi.simple.v1+json")
    return data.get("files", [])


def pypi_sdist_version(filename, name):
    stem = filename
    for ext in SDIST_EXT:
        if stem.lower().endswith(ext):
            stem = stem[: -len(ext)]
            break
    else:
        return None
    prefix = normalize(name)
    if not normalize(stem).startswith(prefix + "-"):
        return None
    return stem[len(prefix) + 1 :]


def pypi_resolve(index, name, version):
    """(version, filename, url, sha256) of the package's sdist; newest stable if no version."""
    from pip._vendor.packaging.version import InvalidVersion, Version

    candidates = []
    for f in pypi_files(index, name):
        v = pypi_sdist_version(f["filename"], name)
        if v is None or f.get("yanked"):
            continue
        if version and v != version:
            continue
        try:
            parsed = Version(v)
        except InvalidVersion:
            continue
        if not version and (parsed.is_prerelease or parsed.is_devrelease):
            continue
        rank = SDIST_EXT.index(next(e for e in SDIST_EXT if f["filename"].lower().endswith(e)))
        candidates.append((parsed, -rank, v, f))
    if not candidates:
        raise RuntimeError(f"pypi {name} {version or ''}: no sdist")
    _, _, v, f = max(candidates, key=lambda c: (c[0], c[1]))
    url = urllib.parse.urljoin(index + normalize(name) + "/", f["url"])
    return v, f["filename"], url, f.get("hashes", {}).get("sha256", "")


def npm_resolve(registry, name, version):
    meta = get_json(
        registry + name.replace("/", "%2f"),
        "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8",
    )
    v = version or meta["dist-tags"]["latest"]
    url = meta["versions"][v]["dist"]["tarball"]
    return v, url.rsplit("/", 1)[1], url, ""


def download(url, dest):
    tmp = dest.with_suffix(dest.suffix + ".part")
    subprocess.run(["curl", "-sSfL", "--retry", "3", "-o", str(tmp), url], check=True)
    tmp.rename(dest)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_pinned():
    rows = []
    for line in PINNED.read_text().splitlines():
        if line and not line.startswith("#"):
            reg, name, version, category, filename, digest = line.split("\t")
            rows.append(dict(reg=reg, name=name, version=version, category=category,
                             file=filename, sha256=digest))
    return rows


def package_id(p):
    return f"{p['reg']}-{p['name'].replace('/', '+').replace('@', '')}-{p['version']}"


# ---------------------------------------------------------------------------------------------
# pin


def cmd_pin(args):
    wanted = []
    for line in (HERE / "packages.txt").read_text().splitlines():
        line = line.split("#", 1)[0].split()
        if line:
            reg, name, *rest = line
            version, category = (rest[0], rest[1]) if len(rest) == 2 else (None, rest[0])
            wanted.append((reg, name, version, category))
    index, registry = pip_index(), npm_registry()
    DL.mkdir(parents=True, exist_ok=True)

    def pin(item):
        reg, name, version, category = item
        try:
            if reg == "pypi":
                v, filename, url, digest = pypi_resolve(index, name, version)
            else:
                v, filename, url, digest = npm_resolve(registry, name, version)
            dest = DL / f"{reg}-{filename}"
            if not dest.exists():
                download(url, dest)
            actual = sha256(dest)
            if digest and digest != actual:
                raise RuntimeError(f"{filename}: index says sha256 {digest}, got {actual}")
            return f"{reg}\t{name}\t{v}\t{category}\t{filename}\t{actual}", None
        except Exception as e:  # noqa: BLE001 - reported, the package is left out
            return None, f"{reg} {name} {version or ''}: {e}"

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(pin, wanted))
    lines = [r for r, _ in results if r]
    for _, err in results:
        if err:
            log(f"left out: {err}")
    header = "# registry\tname\tversion\tcategory\tfile\tsha256 (written by `sweep.py pin`)\n"
    PINNED.write_text(header + "\n".join(lines) + "\n")
    log(f"pinned {len(lines)} of {len(wanted)} packages into {PINNED.relative_to(REPO)}")


# ---------------------------------------------------------------------------------------------
# fetch


def unpack(archive, dest):
    """Unpack an sdist/tarball into dest, dropping its single top-level directory. Links and
    special files are not unpacked; paths escaping dest are refused."""
    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    name = archive.name
    if name.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            members = [(m.filename, m) for m in z.infolist() if not m.is_dir()]
            strip = common_top([n for n, _ in members])
            for n, m in members:
                target = safe_target(tmp, n, strip)
                if target:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(z.read(m))
    else:
        with tarfile.open(archive) as t:
            members = [m for m in t.getmembers() if m.isfile()]
            strip = common_top([m.name for m in members])
            for m in members:
                target = safe_target(tmp, m.name, strip)
                if target:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with t.extractfile(m) as src, open(target, "wb") as out:
                        shutil.copyfileobj(src, out)
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def common_top(names):
    tops = {n.lstrip("./").split("/", 1)[0] for n in names}
    return tops.pop() + "/" if len(tops) == 1 and all("/" in n.lstrip("./") for n in names) else ""


def safe_target(root, name, strip):
    rel = name.lstrip("./")
    if strip and rel.startswith(strip):
        rel = rel[len(strip) :]
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return root.joinpath(*parts)


def cmd_fetch(args):
    pinned = select(read_pinned(), args.only)
    DL.mkdir(parents=True, exist_ok=True)
    TREES.mkdir(parents=True, exist_ok=True)
    state = {}

    def fetch(p):
        dest = DL / f"{p['reg']}-{p['file']}"
        if not (dest.exists() and sha256(dest) == p["sha256"]):
            if "index" not in state:
                state["index"], state["registry"] = pip_index(), npm_registry()
            if p["reg"] == "pypi":
                _, _, url, _ = pypi_resolve(state["index"], p["name"], p["version"])
            else:
                _, _, url, _ = npm_resolve(state["registry"], p["name"], p["version"])
            download(url, dest)
            actual = sha256(dest)
            if actual != p["sha256"]:
                dest.rename(dest.with_suffix(dest.suffix + ".bad"))
                raise RuntimeError(f"{p['file']}: sha256 {actual}, pinned {p['sha256']}")
        tree = TREES / package_id(p)
        stamp = tree / ".sweep-sha256"
        if not (stamp.exists() and stamp.read_text() == p["sha256"]):
            unpack(dest, tree)
            stamp.write_text(p["sha256"])
        return p

    if not state:
        state["index"], state["registry"] = pip_index(), npm_registry()
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        for p, fut in [(p, pool.submit(fetch, p)) for p in pinned]:
            try:
                fut.result()
            except Exception as e:  # noqa: BLE001
                failures += 1
                log(f"{package_id(p)}: {e}")
    log(f"fetched and verified {len(pinned) - failures} of {len(pinned)} packages")
    if failures:
        sys.exit(1)


def select(pinned, only):
    if not only:
        return pinned
    keep = [p for p in pinned if p["name"] in only or package_id(p) in only]
    if not keep:
        sys.exit(f"sweep: none of {only} is pinned")
    return keep


# ---------------------------------------------------------------------------------------------
# run


class Limits:
    def __init__(self, seconds, memory_mb):
        self.seconds = seconds
        self.memory = memory_mb << 20

    def wrap(self, cmd):
        # prlimit execs the command: the child's peak RSS is its own, not a copy of ours.
        return ["prlimit", f"--as={self.memory}", "--", *cmd]


def run_limited(cmd, limits, sink=None):
    """Run cmd under the limits. Returns (status, wall seconds, peak RSS MiB, stdout, stderr),
    status being 'ok', 'exit N', 'signal NAME' or 'timeout'. With a sink, stdout is fed to it
    in blocks instead of being returned."""
    start = time.monotonic()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    # posix_spawn, not fork: a forked child's peak RSS would count this process's pages.
    argv = limits.wrap(cmd)
    pid = os.posix_spawnp(argv[0], argv, os.environ, setsid=True, file_actions=[
        (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2),
        (os.POSIX_SPAWN_CLOSE, out_r), (os.POSIX_SPAWN_CLOSE, err_r)])
    os.close(out_w)
    os.close(err_w)
    readers = concurrent.futures.ThreadPoolExecutor(2)

    def drain(fd, feed):
        with os.fdopen(fd, "rb") as f:
            if feed is None:
                return f.read()
            for block in iter(lambda: f.read(1 << 20), b""):
                feed(block)
            return b""

    out_f, err_f = readers.submit(drain, out_r, sink), readers.submit(drain, err_r, None)
    timed_out = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - start > limits.seconds:
            timed_out = True
            os.killpg(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            break
        time.sleep(0.002)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    out, err = out_f.result(), err_f.result()
    readers.shutdown()
    if timed_out:
        verdict = "timeout"
    elif code < 0:
        verdict = f"signal {signal.Signals(-code).name}"
    elif code:
        verdict = f"exit {code}"
    else:
        verdict = "ok"
    return verdict, wall, usage.ru_maxrss / 1024, out, err


def count_lines(tree):
    files = lines = 0
    for dirpath, _, names in os.walk(tree):
        for n in names:
            if n.endswith(LANG_EXT):
                files += 1
                try:
                    with open(os.path.join(dirpath, n), "rb") as f:
                        lines += f.read().count(b"\n")
                except OSError:
                    pass
    return files, lines


def source_files(tree):
    out = []
    for dirpath, dirs, names in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d != ".ckg")
        out += [Path(dirpath) / n for n in sorted(names) if n.endswith(LANG_EXT)]
    return out


EDIT_KINDS = ("body", "syntax", "utf8", "truncate", "remove", "rename", "duplicate", "new",
              "swap", "dir")


def random_edit(rng, tree, step):
    """Apply one random edit to the tree; returns a short description."""
    files = source_files(tree)
    kind = rng.choice(EDIT_KINDS) if files else "new"
    if kind == "new" or not files:
        ext = rng.choice([".py", ".ts", ".js"])
        other = rng.choice(files).stem if files else "missing"
        path = tree / f"sweep_new_{step}{ext}"
        if ext == ".py":
            text = f"from .{other} import *\nimport {other}\n\ndef f_{step}():\n    return {other}.x()\n"
        else:
            text = f"import {{ x }} from './{other}';\nexport function f{step}() {{ return x(); }}\n"
        path.write_text(text)
        return f"new {path.name}"
    target = rng.choice(files)
    rel = target.relative_to(tree)
    data = target.read_bytes()
    if kind == "body":
        py = target.suffix in (".py", ".pyi")
        extra = (f"\n\ndef sweep_{step}():\n    return sweep_{step}()\n" if py
                 else f"\nfunction sweep{step}() {{ return sweep{step}(); }}\n")
        target.write_bytes(data + extra.encode())
    elif kind == "syntax":
        cut = rng.randrange(len(data) + 1)
        target.write_bytes(data[:cut] + b"\n)(}{ def class ]] = \n" + data[cut:])
    elif kind == "utf8":
        cut = rng.randrange(len(data) + 1)
        target.write_bytes(data[:cut] + b"\xff\xfe\xc3" + data[cut:])
    elif kind == "truncate":
        target.write_bytes(data[: rng.randrange(len(data) + 1)])
    elif kind == "remove":
        target.unlink()
    elif kind == "rename":
        target.rename(target.with_name(f"renamed_{step}_{target.name}"))
    elif kind == "duplicate":
        target.with_name(f"copy_{step}_{target.name}").write_bytes(data)
    elif kind == "swap":
        other = rng.choice(files)
        target.write_bytes(other.read_bytes())
        return f"swap {rel} <- {other.relative_to(tree)}"
    elif kind == "dir":
        target.unlink()
        target.mkdir()
        (target / "inner.py").write_text("def inner():\n    return 1\n")
    return f"{kind} {rel}"


def export_digest(ckg, db, limits):
    h = hashlib.sha256()
    verdict, _, _, _, err = run_limited([ckg, "export", "--db", str(db)], limits, sink=h.update)
    if verdict != "ok":
        return verdict, err.decode(errors="replace")[-400:]
    return "ok", h.hexdigest()


def sweep_one(ckg, p, limits, rounds, keep):
    tree = TREES / package_id(p)
    work = WORK / package_id(p)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    files, lines = count_lines(tree)
    row = dict(id=package_id(p), reg=p["reg"], name=p["name"], version=p["version"],
               category=p["category"], files=files, lines=lines, failures=[])
    # Bundles in dist/ and files up to 16 MiB are indexed too: they are what the sweep is for.
    index_args = ["--json", "-q", "--max-file-size", str(16 << 20), "--build-dirs"]

    def fail(stage, verdict, err):
        row["failures"].append(dict(stage=stage, verdict=verdict,
                                    stderr=err.decode(errors="replace")[-800:]))

    # 1. A full index, timed.
    verdict, wall, rss, out, err = run_limited(
        [ckg, "index", str(tree), "--db", str(work / "a.db"), *index_args], limits)
    row.update(status=verdict, seconds=round(wall, 3), rss_mb=round(rss, 1))
    if verdict != "ok":
        fail("index", verdict, err)
    else:
        summary = json.loads(out)
        row.update(parsed=summary["parsed"], parse_errors=summary["parse_errors"],
                   files_with_parse_errors=summary["files_with_parse_errors"],
                   skipped=len(summary["skipped"]), symbols=summary["symbols"],
                   indexed_lines=summary["lines"])
        # 2. Determinism: a second full index, on one parser thread, gives the same export.
        verdict2, _, _, _, err2 = run_limited(
            [ckg, "index", str(tree), "--db", str(work / "b.db"), "--jobs", "1", *index_args], limits)
        if verdict2 != "ok":
            fail("index-again", verdict2, err2)
        else:
            a, b = export_digest(ckg, work / "a.db", limits), export_digest(ckg, work / "b.db", limits)
            row["deterministic"] = a == b and a[0] == "ok"
            if not row["deterministic"]:
                fail("determinism", f"{a} != {b}", b"")
    # 3. Random edits through the incremental path against a fresh index of the result.
    copy = work / "tree"
    shutil.copytree(tree, copy, symlinks=True)
    rng = random.Random(row["id"])
    edits = []
    ok = True
    verdict, _, _, _, err = run_limited([ckg, "index", str(copy), *index_args], limits)
    if verdict != "ok":
        fail("edit-base", verdict, err)
        ok = False
    for r in range(rounds if ok else 0):
        for _ in range(rng.randint(1, 4)):
            edits.append(random_edit(rng, copy, len(edits)))
        verdict, _, _, _, err = run_limited([ckg, "index", str(copy), *index_args], limits)
        if verdict != "ok":
            fail(f"edit-round-{r}", verdict, err)
            ok = False
            break
    if ok:
        verdict, _, _, _, err = run_limited(
            [ckg, "index", str(copy), "--db", str(work / "fresh.db"), *index_args], limits)
        if verdict != "ok":
            fail("edit-fresh", verdict, err)
        else:
            inc = export_digest(ckg, copy / ".ckg" / "index.db", limits)
            fresh = export_digest(ckg, work / "fresh.db", limits)
            row["incremental_equal"] = inc == fresh and inc[0] == "ok"
            if not row["incremental_equal"]:
                fail("incremental", f"{inc} != {fresh}", "; ".join(edits).encode())
    row["edits"] = len(edits)
    if not keep and not row["failures"]:
        shutil.rmtree(work, ignore_errors=True)
    return row


def cmd_run(args):
    ckg = str(Path(args.ckg).resolve())
    if not os.access(ckg, os.X_OK):
        sys.exit(f"sweep: {ckg} is not built; run `cargo build --release` first")
    pinned = select(read_pinned(), args.only)
    missing = [p for p in pinned if not (TREES / package_id(p) / ".sweep-sha256").exists()]
    if missing:
        sys.exit(f"sweep: {len(missing)} packages are not fetched (first: {package_id(missing[0])}); "
                 "run `sweep.py fetch`")
    limits = Limits(args.timeout, args.memory_mb)
    rows = []
    started = time.monotonic()
    for i, p in enumerate(pinned, 1):
        row = sweep_one(ckg, p, limits, args.rounds, args.keep)
        rows.append(row)
        flag = "FAIL " + ",".join(f["stage"] for f in row["failures"]) if row["failures"] else "ok"
        log(f"[{i}/{len(pinned)}] {time.monotonic() - started:.0f}s {row['id']}: {row.get('indexed_lines')} lines, {row.get('seconds')} s, "
            f"{row.get('rss_mb')} MiB, {flag}")
    out = CACHE / "results.json"
    out.write_text(json.dumps(dict(rows=rows, seconds=time.monotonic() - started,
                                   limits=dict(seconds=args.timeout, memory_mb=args.memory_mb),
                                   rounds=args.rounds), indent=1))
    md = markdown(rows, args)
    print(md)
    if args.markdown:
        Path(args.markdown).write_text(md)
    log(f"results: {out.relative_to(REPO)}")
    if any(r["failures"] for r in rows):
        sys.exit(1)


def markdown(rows, args):
    def stats(reg):
        rs = [r for r in rows if r["reg"] == reg]
        indexed = [r for r in rs if r["status"] == "ok"]
        per_line = sorted(r["seconds"] / max(r["indexed_lines"], 1) * 1e6 for r in indexed)
        return dict(
            packages=len(rs), indexed=len(indexed), lines=sum(r.get("indexed_lines", 0) for r in rs),
            crashes=sum(1 for r in rs for f in r["failures"] if f["verdict"] != "timeout"
                        and f["stage"] not in ("determinism", "incremental")),
            timeouts=sum(1 for r in rs for f in r["failures"] if f["verdict"] == "timeout"),
            nondeterministic=sum(1 for r in rs if r.get("deterministic") is False),
            incremental_diff=sum(1 for r in rs if r.get("incremental_equal") is False),
            peak_rss=max((r["rss_mb"] for r in rs), default=0),
            median_us_per_line=statistics.median(per_line) if per_line else 0,
            parse_error_files=sum(r.get("files_with_parse_errors", 0) for r in indexed),
            parsed=sum(r.get("parsed", 0) for r in indexed),
            seconds=sum(r["seconds"] for r in rs),
        )

    out = [f"Limits: {args.timeout} s and {args.memory_mb} MiB per run; {args.rounds} rounds of "
           "random edits per package.", "",
           "| registry | packages | indexed | lines indexed | index time (sum) | crashes | timeouts | "
           "nondeterministic | incremental != fresh | peak RSS | median µs/line | files with parse errors |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for reg in ("pypi", "npm"):
        s = stats(reg)
        rate = s["parse_error_files"] / max(s["parsed"], 1)
        out.append(f"| {reg} | {s['packages']} | {s['indexed']} | {s['lines']:,} | "
                   f"{s['seconds']:.1f} s | {s['crashes']} | {s['timeouts']} | "
                   f"{s['nondeterministic']} | {s['incremental_diff']} | {s['peak_rss']:.0f} MiB | "
                   f"{s['median_us_per_line']:.1f} | {s['parse_error_files']} of {s['parsed']} "
                   f"({rate:.1%}) |")
    # Small packages are all fixed cost (process start, a new database): per line, ≥ 10k.
    indexed = [r for r in rows if r["status"] == "ok" and r["indexed_lines"] >= 10_000]
    if indexed:
        med = statistics.median(r["seconds"] / r["indexed_lines"] for r in indexed)
        out += ["", "Slowest per line (packages of ≥ 10,000 lines; ratio to their median time per line):",
                "", "| package | category | lines | seconds | µs/line | × median | peak RSS |",
                "|---|---|---:|---:|---:|---:|---:|"]
        for r in sorted(indexed, key=lambda r: r["seconds"] / r["indexed_lines"], reverse=True)[:10]:
            upl = r["seconds"] / r["indexed_lines"]
            out.append(f"| {r['id']} | {r['category']} | {r['indexed_lines']:,} | {r['seconds']:.2f} | "
                       f"{upl * 1e6:.1f} | {upl / med:.1f} | {r['rss_mb']:.0f} MiB |")
        out += ["", "Highest parse-error rates (files with errors / files parsed):", "",
                "| package | category | files parsed | with errors |", "|---|---|---:|---:|"]
        by_rate = sorted((r for r in rows if r.get("parsed")),
                         key=lambda r: r["files_with_parse_errors"] / r["parsed"], reverse=True)
        for r in by_rate[:8]:
            out.append(f"| {r['id']} | {r['category']} | {r['parsed']} | "
                       f"{r['files_with_parse_errors']} |")
    failed = [r for r in rows if r["failures"]]
    if failed:
        out += ["", "Failures:", ""]
        for r in failed:
            for f in r["failures"]:
                tail = f["stderr"].strip().splitlines()[-1:] or [""]
                out.append(f"- {r['id']} [{f['stage']}] {f['verdict']}: {tail[0][:200]}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    sub.add_parser("pin", help="resolve packages.txt to pinned.tsv (downloads to hash)")
    sub.add_parser("report", help="print the summary of the last run again (results.json)")
    f = sub.add_parser("fetch", help="download, verify and unpack the pinned packages")
    f.add_argument("only", nargs="*", help="only these names or ids")
    for p in (sub.add_parser("run", help="index every fetched package"),
              sub.add_parser("all", help="fetch, then run (the default)")):
        p.add_argument("only", nargs="*", help="only these names or ids")
        p.add_argument("--ckg", default=str(REPO / "target" / "release" / "ckg"))
        p.add_argument("--timeout", type=float, default=300, help="seconds per run (300)")
        p.add_argument("--memory-mb", type=int, default=8192, help="address space per run (8192)")
        p.add_argument("--rounds", type=int, default=5, help="rounds of random edits (5)")
        p.add_argument("--keep", action="store_true", help="keep work directories")
        p.add_argument("--markdown", help="also write the summary to this file")
    argv = sys.argv[1:]
    if not argv or argv[0] not in ("pin", "fetch", "run", "all", "report", "-h", "--help"):
        argv = ["all", *argv]
    args = ap.parse_args(argv)
    if args.cmd == "pin":
        cmd_pin(args)
    elif args.cmd == "fetch":
        cmd_fetch(args)
    elif args.cmd == "run":
        cmd_run(args)
    elif args.cmd == "report":
        saved = json.loads((CACHE / "results.json").read_text())
        limits = saved["limits"]
        print(markdown(saved["rows"], argparse.Namespace(timeout=limits["seconds"], memory_mb=limits["memory_mb"],
                                                         rounds=saved["rounds"])))
    else:
        cmd_fetch(args)
        cmd_run(args)


if __name__ == "__main__":
    main()
