#!/usr/bin/env bash
# Fetch the pinned benchmark corpora from the package registries, verify them, and unpack the
# subtree that benchmarks index into corpora/cache/<id>/src.
#
# The registries are reached only through the clients' own configuration: npm through
# `npm pack` (which uses `npm config get registry`), PyPI through pip's configured index
# (PIP_INDEX_URL, else `pip config`, else pip's built-in default). No host name is written here.
#
# Usage: corpora/fetch.sh [--all] [ID...]   fetch the default set, everything, or the named ids
#        corpora/fetch.sh --list            print the pinned table, download nothing
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
CACHE="$HERE/cache"
DL="$CACHE/dl"

# The pinned table. Fields (|-separated):
#   id | set (default/optional) | registry | name | version | file | sha256 | subtrees
# subtrees are paths inside the tarball, comma-separated. `TOP` means the tarball's single
# top-level directory (an sdist's `name-version/`), i.e. the whole tree. With one subtree,
# src/ is that subtree itself; with several, each lands in src/ under its path minus the
# tarball's top directory (e.g. package/core/server -> src/core/server), so relative paths
# between them still hold.
PINNED='
py-s|default|pypi|requests|2.34.2|requests-2.34.2.tar.gz|f288924cae4e29463698d6d60bc6a4da69c89185ad1e0bcc4104f584e960b9ed|TOP
py-m|default|pypi|pytest|9.2.0|pytest-9.2.0.tar.gz|97c4f3b1f3c7414aa36465e09b8220f1d03627993bd51b1282e193753c80557b|TOP
py-l|default|pypi|django|5.2.19|django-5.2.19.tar.gz|ad03d8abc51dbff95ebf34b27123cf0c26a3b62db7ba0cd520783686362533d1|TOP
py-oracle|optional|pypi|click|8.1.8|click-8.1.8.tar.gz|ed53c9d8990d83c2a27deae68e4ee337473f6330c040a31d4225c9574d16096a|TOP
js-oracle|optional|npm|qs|6.13.0|qs-6.13.0.tgz|abffeabbdedc8e466c1bd75227e14ceb76e77f61be475dfcee0d3bbe6dd608fd|package/lib,package/test
py-l2|optional|pypi|sympy|1.14.0|sympy-1.14.0.tar.gz|d3d3fe8df1e5a0b42f0e7bdf50541697dbe7d23746e894990c030e2b05e72517|TOP
py-xl|optional|pypi|salt|3007.1|salt-3007.1.tar.gz|b933ac4cb3e4b1118b46dada55c9cc6bdc6f0f94b4c92877aec44b25c6a28c9a|TOP
ts-s|default|npm|@trpc/server|11.25.2|trpc-server-11.25.2.tgz|43d5562bf3d3ca2ba55bb37a91020c19d90ddaa3359a1eb55e5fefc62c6cb29a|package/src
ts-m|default|npm|ra-core|5.15.4|ra-core-5.15.4.tgz|7a6454d783fad7ab8c86f67af9a27c6ec34cdca4293effb73963d2a43479185c|package/src
ts-l|default|npm|effect|4.1.0|effect-4.1.0.tgz|41705a35c964192dfc742863f0e099727ccda7ff2bd67a06d09b093a336f2b0e|package/src
js-l|optional|npm|three|0.187.0|three-0.187.0.tgz|ff540832ded0cfe919764d24a3d88f3e2a05f23303f876423e4f893841e90728|package/src,package/examples/jsm
express-s|default|npm|express-generator-typescript|2.8.1|express-generator-typescript-2.8.1.tgz|f6d12851cfcd0737d7124aa666994ce1d076032a24174833a7b9e68f42cc7ac3|package/lib/project-files
express-s2|optional|npm|typescript-express-starter|11.1.1|typescript-express-starter-11.1.1.tgz|5bcd03de9896f3471d1153f7b51565ecb1f2ea3b0c540b8b86df4d6880b29fa8|package/templates/default,package/devtools/test/vitest/src-default
express-l|optional|npm|ghost|6.65.0|ghost-6.65.0.tgz|891f68c7da02fe376b1a23e1f28e311da6304dbc95a81b589ff5c4be2c91dc89|package/core/server,package/core/frontend,package/core/shared
'

# Scratch directories made by mktemp; removed on any exit, including a failed download.
SCRATCH=()
trap 'if [[ ${#SCRATCH[@]} -gt 0 ]]; then rm -rf "${SCRATCH[@]}"; fi' EXIT

die() { echo "fetch.sh: error: $*" >&2; exit 1; }
log() { echo "fetch.sh: $*" >&2; }
now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$2"; }

usage() {
  cat <<'EOF'
Usage: corpora/fetch.sh [--all] [ID...]
       corpora/fetch.sh --list
       corpora/fetch.sh --help

Downloads the pinned corpora into corpora/cache/<id>/ (tarballs kept in corpora/cache/dl/),
verifies their sha256, and unpacks the indexed subtree to corpora/cache/<id>/src.
Prints files and lines of the indexed languages per corpus and writes
corpora/cache/manifest.tsv (id, lang, package, version, path, files, lines) for every
corpus ready in the cache. Already verified downloads and unpacked trees are reused.

  (no ID)   the default set: py-s py-m py-l ts-s ts-m ts-l express-s
  --all     the default set plus the optional ones: py-l2 py-xl js-l express-s2 express-l
  ID...     only these ids (see --list)
  --list    print the pinned table and exit

Needs curl, python3 (with pip), npm, tar and sha256sum.
EOF
}

# Look one id up in the table; sets the R_* variables.
lookup() {
  local line
  line="$(printf '%s\n' "$PINNED" | awk -F'|' -v id="$1" '$1 == id')"
  [[ -n "$line" ]] || die "unknown corpus id '$1' (see --list)"
  IFS='|' read -r R_ID R_SET R_REG R_NAME R_VER R_FILE R_SHA R_SUB <<<"$line"
}

all_ids() { printf '%s\n' "$PINNED" | awk -F'|' 'NF > 1 && ($2 == "default" || all) {print $1}' all="${1:-0}"; }

list_table() {
  printf '%-11s %-9s %-5s %-40s %-40s %s\n' ID SET REG PACKAGE FILE SUBTREE
  printf '%s\n' "$PINNED" | while IFS='|' read -r id set reg name ver file sha sub; do
    [[ -n "$id" ]] || continue
    local pkg
    if [[ "$reg" == pypi ]]; then pkg="$name==$ver"; else pkg="$name@$ver"; fi
    [[ "$sub" == TOP ]] && sub="(whole tree)"
    printf '%-11s %-9s %-5s %-40s %-40s %s\n' "$id" "$set" "$reg" "$pkg" "$file" "$sub"
    printf '%-11s %s\n' "" "sha256 $sha"
  done
}

need() { command -v "$1" >/dev/null 2>&1 || die "'$1' is required but not on PATH"; }

sha_ok() { # file expected-sha256
  [[ -f "$1" ]] && [[ "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]
}

# pip's index URL, resolved once and only when a PyPI download is needed.
PIP_INDEX=""
pip_index() {
  if [[ -n "$PIP_INDEX" ]]; then return; fi
  local u="${PIP_INDEX_URL:-}" key
  if [[ -z "$u" ]]; then
    for key in download.index-url global.index-url install.index-url; do
      u="$(python3 -m pip config get "$key" 2>/dev/null || true)"
      [[ -n "$u" ]] && break
    done
  fi
  if [[ -z "$u" ]]; then
    # pip's own built-in default, asked from pip rather than written here.
    u="$(python3 -c 'from pip._internal.models.index import PyPI; print(PyPI.simple_url)' 2>/dev/null || true)"
  fi
  [[ -n "$u" ]] || die "cannot determine pip's index URL; set PIP_INDEX_URL"
  PIP_INDEX="${u%/}/"
  log "pip index: $(printf '%s' "$PIP_INDEX" | sed -E 's#//[^/@]*@#//***@#')"
}

# Ask the simple index (PEP 691 JSON, or PEP 503 HTML) for the URL of one file; prints
# "URL SHA256" (sha256 may be empty if the index does not publish one).
pypi_file_url() { # name filename
  local page="$PIP_INDEX$(python3 -c 'import re,sys; print(re.sub(r"[-_.]+", "-", sys.argv[1]).lower())' "$1")/"
  curl -sSfL --retry 3 \
    -H 'Accept: application/vnd.pypi.simple.v1+json, text/html;q=0.1' \
    -w '\n%{content_type}' "$page" |
    python3 -c '
import html, json, re, sys, urllib.parse
page, want = sys.argv[1], sys.argv[2]
body, _, ctype = sys.stdin.read().rpartition("\n")
if "json" in ctype:
    for f in json.loads(body)["files"]:
        if f["filename"] == want:
            print(urllib.parse.urljoin(page, f["url"]), f.get("hashes", {}).get("sha256", ""))
            sys.exit(0)
else:
    for m in re.finditer(r"<a\s[^>]*href=\"([^\"]+)\"[^>]*>([^<]+)</a>", body):
        if html.unescape(m.group(2)).strip() == want:
            href = html.unescape(m.group(1))
            url, _, frag = href.partition("#")
            sha = frag[7:] if frag.startswith("sha256=") else ""
            print(urllib.parse.urljoin(page, url), sha)
            sys.exit(0)
sys.exit(1)
' "$page" "$2"
}

fetch_pypi() { # dest.part
  local dest="$1" url sha
  pip_index
  if read -r url sha < <(pypi_file_url "$R_NAME" "$R_FILE") && [[ -n "$url" ]]; then
    if [[ -n "$sha" && "$sha" != "$R_SHA" ]]; then
      die "$R_ID: the index lists $R_FILE with sha256 $sha, pinned is $R_SHA"
    fi
    curl -sSfL --retry 3 -o "$dest" "$url"
  else
    # Slow fallback through pip itself (it prepares metadata in an isolated build env).
    log "$R_ID: $R_FILE not found through the simple index API; falling back to pip download"
    local tmp
    tmp="$(mktemp -d "$DL/pip.XXXXXX")"
    SCRATCH+=("$tmp")
    python3 -m pip download --quiet --no-deps --no-binary "$R_NAME" --ignore-requires-python \
      "$R_NAME==$R_VER" -d "$tmp" || die "$R_ID: pip download $R_NAME==$R_VER failed"
    [[ -f "$tmp/$R_FILE" ]] || die "$R_ID: pip download did not produce $R_FILE"
    mv "$tmp/$R_FILE" "$dest"
    rm -rf "$tmp"
  fi
}

fetch_npm() { # dest.part
  local dest="$1" tmp
  tmp="$(mktemp -d "$DL/npm.XXXXXX")"
  SCRATCH+=("$tmp")
  # npm pack fetches a registry tarball byte for byte (through npm's cache and registry).
  (cd "$tmp" && npm pack --loglevel=error --ignore-scripts "$R_NAME@$R_VER" >/dev/null) ||
    die "$R_ID: npm pack $R_NAME@$R_VER failed (registry: $(npm config get registry 2>/dev/null))"
  [[ -f "$tmp/$R_FILE" ]] || die "$R_ID: npm pack did not produce $R_FILE (got: $(ls "$tmp"))"
  mv "$tmp/$R_FILE" "$dest"
  rm -rf "$tmp"
}

# Download (unless a verified copy is there) and verify. Sets DL_SECS.
download() {
  local tarball="$DL/$R_FILE" t0
  DL_SECS="cached"
  if sha_ok "$tarball" "$R_SHA"; then return; fi
  if [[ -f "$tarball" ]]; then
    log "$R_ID: $R_FILE is in the cache but its sha256 differs; fetching again"
    rm -f "$tarball"
  fi
  t0="$(now)"
  rm -f "$tarball.part"
  case "$R_REG" in
    pypi) fetch_pypi "$tarball.part" ;;
    npm) fetch_npm "$tarball.part" ;;
    *) die "unknown registry $R_REG" ;;
  esac
  local got
  got="$(sha256sum "$tarball.part" | cut -d' ' -f1)"
  if [[ "$got" != "$R_SHA" ]]; then
    mv -f "$tarball.part" "$tarball.bad"
    {
      echo "=================================================================="
      echo "fetch.sh: SHA256 MISMATCH for $R_ID ($R_FILE)"
      echo "  expected $R_SHA"
      echo "  got      $got"
      echo "  the file is kept as $tarball.bad"
      echo "=================================================================="
    } >&2
    exit 1
  fi
  mv -f "$tarball.part" "$tarball"
  DL_SECS="$(elapsed "$t0" "$(now)")"
}

# Count files and lines of the indexed languages under a tree; prints "files<TAB>lines".
# Lines are physical lines: newline characters, plus one for a last line without one.
count_tree() { # dir lang
  python3 - "$1" "$2" <<'EOF'
import os, sys
root, lang = sys.argv[1], sys.argv[2]
exts = (".py", ".pyi") if lang == "python" else (
    ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
files = lines = 0
for d, dirs, names in os.walk(root):
    dirs.sort()
    for n in names:
        if n.endswith(exts):
            p = os.path.join(d, n)
            if not os.path.isfile(p):
                continue
            with open(p, "rb") as f:
                data = f.read()
            files += 1
            lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
print(f"{files}\t{lines}")
EOF
}

lang_of() { if [[ "$R_REG" == pypi ]]; then echo python; else echo ts-js; fi; }

# Unpack (unless already done for this exact tarball and subtree spec). Sets UNPACK_SECS.
unpack() {
  local dir="$CACHE/$R_ID" stamp="$CACHE/$R_ID/.ready" want t0
  want="$R_SHA $R_NAME@$R_VER $R_SUB"
  UNPACK_SECS="cached"
  if [[ -d "$dir/src" && -f "$stamp" && -f "$dir/counts.tsv" && "$(cat "$stamp")" == "$want" ]]; then
    return
  fi
  t0="$(now)"
  rm -rf "$dir"
  mkdir -p "$dir"
  local tmp="$dir/unpack.tmp"
  mkdir -p "$tmp"
  tar -xzf "$DL/$R_FILE" -C "$tmp" --no-same-owner
  local -a subs
  IFS=',' read -r -a subs <<<"$R_SUB"
  if [[ "${subs[0]}" == TOP ]]; then
    local -a tops
    mapfile -t tops < <(find "$tmp" -mindepth 1 -maxdepth 1)
    [[ ${#tops[@]} -eq 1 && -d "${tops[0]}" ]] || die "$R_ID: expected one top-level directory in $R_FILE"
    mv "${tops[0]}" "$dir/src"
  elif [[ ${#subs[@]} -eq 1 ]]; then
    [[ -d "$tmp/${subs[0]}" ]] || die "$R_ID: $R_FILE has no ${subs[0]}/"
    mv "$tmp/${subs[0]}" "$dir/src"
  else
    mkdir -p "$dir/src"
    local s rel
    for s in "${subs[@]}"; do
      [[ -d "$tmp/$s" ]] || die "$R_ID: $R_FILE has no $s/"
      rel="${s#*/}"
      mkdir -p "$dir/src/$(dirname "$rel")"
      mv "$tmp/$s" "$dir/src/$rel"
    done
  fi
  rm -rf "$tmp"
  chmod -R u+rwX,go+rX "$dir/src"
  local counts
  counts="$(count_tree "$dir/src" "$(lang_of)")"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$R_ID" "$(lang_of)" "$R_NAME" "$R_VER" \
    "${dir#"$REPO"/}/src" "$counts" >"$dir/counts.tsv"
  printf '%s\n' "$want" >"$stamp"
  UNPACK_SECS="$(elapsed "$t0" "$(now)")"
}

write_manifest() {
  local tmp="$CACHE/manifest.tsv.tmp" id
  printf 'id\tlang\tpackage\tversion\tpath\tfiles\tlines\n' >"$tmp"
  while read -r id; do
    lookup "$id"
    local dir="$CACHE/$id"
    if [[ -d "$dir/src" && -f "$dir/counts.tsv" && -f "$dir/.ready" &&
          "$(cat "$dir/.ready")" == "$R_SHA $R_NAME@$R_VER $R_SUB" ]]; then
      cat "$dir/counts.tsv" >>"$tmp"
    fi
  done < <(all_ids 1)
  mv -f "$tmp" "$CACHE/manifest.tsv"
}

main() {
  local all=0 list=0
  local -a ids=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --all) all=1 ;;
      --list) list=1 ;;
      -h|--help) usage; exit 0 ;;
      -*) usage >&2; die "unknown option $1" ;;
      *) lookup "$1"; ids+=("$1") ;;
    esac
    shift
  done
  if [[ $list -eq 1 ]]; then list_table; exit 0; fi
  if [[ $all -eq 1 ]]; then mapfile -t -O "${#ids[@]}" ids < <(all_ids 1)
  elif [[ ${#ids[@]} -eq 0 ]]; then mapfile -t ids < <(all_ids 0)
  fi
  # Keep the table order and drop repeats.
  mapfile -t ids < <(all_ids 1 | grep -Fx -f <(printf '%s\n' "${ids[@]}"))

  local t
  for t in curl python3 tar sha256sum; do need "$t"; done
  mkdir -p "$DL"

  local t_start rows="" id
  t_start="$(now)"
  for id in "${ids[@]}"; do
    lookup "$id"
    [[ "$R_REG" == npm ]] && need npm
    download
    unpack
    local files lines
    IFS=$'\t' read -r _ _ _ _ _ files lines <"$CACHE/$id/counts.tsv"
    log "$(printf '%-11s download %-7s unpack %-7s %s' "$id" "$DL_SECS" "$UNPACK_SECS" "$R_FILE")"
    rows+="$(printf '%s\t%s\t%s@%s\t%s\t%s\t%s' "$id" "$(lang_of)" "$R_NAME" "$R_VER" "$files" "$lines" "${CACHE#"$REPO"/}/$id/src")"$'\n'
  done
  write_manifest

  printf '%-11s %-7s %-42s %7s %9s  %s\n' ID LANG PACKAGE FILES LINES PATH
  printf '%s' "$rows" | while IFS=$'\t' read -r id lang pkg files lines path; do
    printf '%-11s %-7s %-42s %7s %9s  %s\n' "$id" "$lang" "$pkg" "$files" "$lines" "$path"
  done
  log "done in $(elapsed "$t_start" "$(now)") s; manifest: ${CACHE#"$REPO"/}/manifest.tsv"
}

main "$@"
