#!/usr/bin/env bash
# The main job on the bundled corpus: build ckg, index corpora/express-app (a 6.9k-line
# Express REST API in TypeScript), and ask what replacing `express` and changing
# `authMiddleware` would touch, which functions play an Express role, and what a move to
# Fastify must change.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
ckg="${CARGO_TARGET_DIR:-target}/release/ckg"
app=corpora/express-app
"$ckg" index "$app" --rebuild
echo
echo '$ ckg query impact express --depth 1 --kind imports   # files that import express'
"$ckg" query impact express --depth 1 --kind imports --db "$app/.ckg/index.db" | grep -E '^(impact|[a-z].*\[depth)' 
echo
echo '$ ckg query impact authMiddleware --depth 1'
"$ckg" query impact authMiddleware --depth 1 --db "$app/.ckg/index.db"
echo
echo '$ ckg query roles --pack express --role error_handler --role router   # framework roles'
"$ckg" query roles --pack express --role error_handler --role router --db "$app/.ckg/index.db"
echo
echo '$ ckg check --pack express-to-fastify   # what a move to Fastify must change (last lines)'
# Exit 1 means "violations found", which is the point here.
"$ckg" check --pack express-to-fastify --db "$app/.ckg/index.db" | tail -n 12 || true
