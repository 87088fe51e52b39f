#!/usr/bin/env bash
# The share of call sites (calls and instantiations, one per file:line:col) bound exact /
# inferred / heuristic / unresolved on a corpus.
#
#   benches/evidence.sh CORPUS_DIR [CKG_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="$1"
bin="${2:-target/release/ckg}"
[ -x "$bin" ] || cargo build --release --locked --quiet
db="$(mktemp -d)/index.db"
trap 'rm -rf "$(dirname "$db")"' EXIT
"$bin" index "$corpus" --db "$db" --quiet
"$bin" query sql --db "$db" --format json "
  SELECT CASE ev WHEN 0 THEN 'exact' WHEN 1 THEN 'inferred' WHEN 2 THEN 'heuristic' ELSE 'unresolved' END AS evidence, count(*) AS sites
  FROM (SELECT min(CASE evidence WHEN 'exact' THEN 0 WHEN 'inferred' THEN 1 WHEN 'heuristic' THEN 2 ELSE 3 END) AS ev
        FROM edges WHERE kind IN ('calls', 'instantiates') GROUP BY file_id, line, col)
  GROUP BY ev ORDER BY ev" |
python3 -c '
import json, sys
rows = json.load(sys.stdin)["rows"]
total = sum(n for _, n in rows)
print(f"{total} call sites: " + ", ".join(f"{e} {n} ({100 * n / total:.1f}%)" for e, n in rows))'
