#!/usr/bin/env bash
# Times `ckg index` (full, cold index: --rebuild) end to end on a corpus next to a parse-only
# run of the same files (tree-sitter parsing and hashing, nothing else), and prints medians,
# min-max and the ratio. Budget (DESIGN.md): full index <= 2x parse-only.
#
#   benches/index_vs_parse.sh [CORPUS_DIR] [RUNS]     (default: corpora/express-app, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-corpora/express-app}"
runs="${2:-5}"
cargo build --release --locked --quiet
bin="$PWD/target/release/ckg"
db="$(mktemp -d)/index.db"
trap 'rm -rf "$(dirname "$db")"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.3f (min %.3f, max %.3f)", m, a[1], a[NR]}'; }
now() { date +%s.%N; }

"$bin" parse-only "$corpus" >/dev/null   # warm the page cache
parse=(); index=()
for _ in $(seq "$runs"); do
  t0=$(now); "$bin" parse-only "$corpus" >/dev/null; t1=$(now)
  parse+=("$(python3 -c "print($t1 - $t0)")")
  t0=$(now); "$bin" index "$corpus" --db "$db" --rebuild --quiet; t1=$(now)
  index+=("$(python3 -c "print($t1 - $t0)")")
done
lines=$("$bin" index "$corpus" --db "$db" --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["lines"], sum(s["files_by_lang"].values()))')
pm=$(printf '%s\n' "${parse[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
im=$(printf '%s\n' "${index[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
echo "corpus:      $corpus ($lines lines/files)"
echo "runs:        $runs, $(nproc) cores, $(date -u +%Y-%m-%d)"
echo "parse-only:  $(printf '%s\n' "${parse[@]}" | median) s"
echo "full index:  $(printf '%s\n' "${index[@]}" | median) s"
echo "ratio:       $(python3 -c "print(f'{$im / $pm:.2f}')")x  (budget <= 2x)"
echo "db size:     $(du -k "$db" | cut -f1) KiB"
