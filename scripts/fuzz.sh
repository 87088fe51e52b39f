#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for a bounded time, one after the other, and
# prints the executions and findings of each. Needs nightly and cargo-fuzz:
#   rustup toolchain install nightly && cargo install cargo-fuzz --locked
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      (default: 300 seconds, every target)
#
# Corpora grow in fuzz/corpus/<target>, findings land in fuzz/artifacts/<target> (both
# ignored by git), logs in fuzz/logs/<target>.log. A finding is minimized with
#   cargo +nightly fuzz tmin -O -a TARGET fuzz/artifacts/TARGET/crash-...
# fixed, and its minimized input copied to fuzz/regressions/TARGET/ (tests/fuzz_regressions.rs
# replays it on stable).
set -euo pipefail

cd "$(dirname "$0")/../fuzz"
seconds="${1:-300}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(extract_bytes extract_mutate resolve_project refblob_decode sql_guard http_request)
fi

# Release with debug assertions (overflow checks), AddressSanitizer (the default), and the C
# code's assertions (tree-sitter's among them): the C flags `.cargo/config.toml` gives every
# other build, read from there, but for `NDEBUG`.
CFLAGS="$(sed -n 's/^CFLAGS = "\(.*\)"$/\1/p' ../.cargo/config.toml | sed 's/ *-DNDEBUG//')"
[ -n "$CFLAGS" ] || { echo "fuzz.sh: no CFLAGS line in .cargo/config.toml" >&2; exit 1; }
export CFLAGS
cargo +nightly fuzz build -O -a

# Seeds for extract_bytes: the seed files with their language byte in front (see
# fuzz/src/checks/extract.rs: python 0, typescript 1, tsx 2, javascript 3).
seed_extract_bytes() {
    local dir=corpus/extract_bytes
    [ -n "$(ls -A "$dir" 2>/dev/null)" ] && return
    mkdir -p "$dir"
    local i=0 byte
    while IFS= read -r -d '' f; do
        case "$f" in
            *.py | *.pyi) byte='\x00' ;;
            *.ts) byte='\x01' ;;
            *.tsx) byte='\x02' ;;
            *.js | *.jsx | *.mjs | *.cjs) byte='\x03' ;;
            *) continue ;;
        esac
        [ "$(stat -c %s "$f")" -le 16384 ] || continue
        { printf "$byte"; cat "$f"; } >"$dir/seed-$i"
        i=$((i + 1))
    done < <(find ../tests/fixtures/python ../tests/fixtures/typescript ../corpora/express-app ../corpora/flask-app -type f -print0 | sort -z)
}

seed_sql_guard() {
    local dir=corpus/sql_guard
    [ -n "$(ls -A "$dir" 2>/dev/null)" ] && return
    mkdir -p "$dir"
    printf 'SELECT * FROM files' >"$dir/select"
    printf 'WITH x AS (SELECT qname FROM symbols) SELECT * FROM x' >"$dir/with"
    printf 'WITH x AS (SELECT 1) DELETE FROM files RETURNING *' >"$dir/with-delete"
    printf 'EXPLAIN QUERY PLAN SELECT * FROM edges' >"$dir/explain"
    printf 'VALUES (1), (2)' >"$dir/values"
    printf 'SELECT 1; DELETE FROM files' >"$dir/two"
    printf '/* c */ -- d\nSELECT * FROM pragma_table_info('"'"'files'"'"')' >"$dir/comments"
}

# The structured targets read their input with `arbitrary`: short inputs make tiny projects
# and requests, so they start at full length (-len_control=0) instead of growing slowly.
# resolve_project and http_request run thread pools (the indexer's workers, tokio's blocking
# threads) that are alive when LeakSanitizer looks: it reports glibc's record of their
# thread-local destructors (`__cxa_thread_atexit_impl`, 32 bytes) as a leak, so leak checks
# are off there.
options() {
    case "$1" in
        extract_bytes) echo "-dict=dicts/source.dict -max_len=16384" ;;
        extract_mutate) echo "-max_len=256 -len_control=0" ;;
        resolve_project) echo "-max_len=4096 -len_control=0 -detect_leaks=0" ;;
        refblob_decode) echo "-max_len=1024" ;;
        sql_guard) echo "-dict=dicts/sql.dict -max_len=1024" ;;
        http_request) echo "-max_len=4096 -len_control=0 -detect_leaks=0" ;;
        *) echo "" ;;
    esac
}

mkdir -p logs
seed_extract_bytes
seed_sql_guard
summary=()
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    touch "logs/$t.start"
    echo "== $t: ${seconds}s"
    # A finding stops the run (libFuzzer's default): fix it, then run again.
    # shellcheck disable=SC2046
    nice -n 10 cargo +nightly fuzz run -O -a "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 $(options "$t") \
        >"logs/$t.log" 2>&1 || true
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$' | tail -1)
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "logs/$t.log" | tail -1 || true)
    # Crashes, timeouts, out-of-memory and leaks; libFuzzer's slow-unit-* notes are not findings.
    found=$(find "artifacts/$t" -type f -newer "logs/$t.start" ! -name 'slow-unit-*')
    findings=$(printf '%s' "$found" | grep -c . || true)
    echo "   ${done_line:-no DONE line (a finding stopped the run?): see fuzz/logs/$t.log}"
    [ -z "$found" ] || printf '   finding: %s\n' $found
    summary+=("$(printf '%-16s %8s %12s %9s' "$t" "$seconds" "${execs:-?}" "$findings")")
done

echo
printf '%-16s %8s %12s %9s\n' target seconds executions findings
printf '%s\n' "${summary[@]}"
