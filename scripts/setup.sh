#!/usr/bin/env bash
# Installs every build and test dependency from Debian 12 packages, and the
# report's chart scripts from npm (exact versions in reports/package-lock.json).
# Both README commands call it; it is idempotent and downloads nothing else.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libdnnl-dev               # oneDNN 2.6: prefill GEMMs
  libgtest-dev libgmock-dev # tests
  libbenchmark-dev          # micro-benchmarks
  libtomlplusplus-dev       # scenario files
  nlohmann-json3-dev        # JSON output and tokenizer.json
  libcli11-dev              # command line
  libpcre2-dev              # tokenizer pre-tokenizer regexes
  libutf8proc-dev           # Unicode normalization (NFC)
  zlib1g-dev                # tokenizer.json.gz
  libcsv-dev                # reading CSV results back
  libsqlite3-dev            # results history
  chromium                  # the report's headless-browser test
  clang libclang-rt-dev     # fuzz targets: libFuzzer and the sanitizer runtimes
  llvm                      # llvm-symbolizer: fuzz findings' stack traces with lines
  libomp-dev                # OpenMP for clang (the fuzz build's libraries use it)
)
# Node.js draws the report's SVG charts and drives the browser test; a Node
# installed another way (NodeSource bundles npm) is kept, not replaced.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages: ${missing[*]}; run as root or install them" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Vega, Vega-Lite, vega-embed (inlined into reports) and playwright-core,
# reinstalled only when the lock file changed.
reports="$(cd "$(dirname "$0")/.." && pwd)/reports"
if [ ! -f "$reports/node_modules/.package-lock.json" ] ||
   [ "$reports/package-lock.json" -nt "$reports/node_modules/.package-lock.json" ]; then
  npm ci --prefix "$reports" --no-audit --no-fund --loglevel=error >/dev/null
fi
