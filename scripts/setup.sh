#!/usr/bin/env bash
# Installs every build and test dependency from Debian 12 packages, and the
# report's chart scripts from npm (exact versions in reports/package-lock.json).
# Both README commands call it; it is idempotent and downloads nothing else.
set -euo pipefail

# Each package names the CMake call it satisfies (tests/setup/ checks that
# every find_package, pkg_check_modules, find_library and find_program in
# the CMake files is named here); scripts/check-fresh-root.sh proves the
# list on a fresh Debian 12 root.
packages=(
  build-essential           # the compilers; find_package(OpenMP): libgomp
  cmake ninja-build git
  pkg-config                # find_package(PkgConfig)
  libdnnl-dev               # find_package(dnnl): oneDNN 2.6, prefill GEMMs
  ocl-icd-opencl-dev        # find_package(OpenCL), which dnnl-config.cmake calls (only recommended by libdnnl-dev)
  libgtest-dev libgmock-dev # find_package(GTest): tests
  libbenchmark-dev          # find_package(benchmark): micro-benchmarks
  libtomlplusplus-dev       # pkg_check_modules(tomlplusplus): scenario files
  libcpp-httplib-dev        # pkg_check_modules(cpp-httplib): pdbench serve and the openai target
  nlohmann-json3-dev        # find_package(nlohmann_json): JSON output and tokenizer.json
  libcli11-dev              # find_package(CLI11): command line
  libpcre2-dev              # pkg_check_modules(libpcre2-8): tokenizer pre-tokenizer regexes
  libutf8proc-dev           # pkg_check_modules(libutf8proc): Unicode normalization (NFC)
  zlib1g-dev                # find_package(ZLIB): tokenizer.json.gz
  libcsv-dev                # find_library(csv): reading CSV results back
  libsqlite3-dev            # find_package(SQLite3): results history
  libpq-dev                 # find_package(PostgreSQL): results history on a PostgreSQL server
  postgresql-15             # the tests' throwaway PostgreSQL server (scripts/postgres-test-server.sh)
  libssl-dev                # find_package(OpenSSL): SHA-256 of model files
  chromium                  # the report's headless-browser test
  clang libclang-rt-dev     # fuzz targets: libFuzzer and the sanitizer runtimes
  llvm                      # llvm-symbolizer: fuzz findings' stack traces with lines
  libomp-dev                # OpenMP for clang (the fuzz build's libraries use it)
)
# Node.js (find_program(node)) draws the report's SVG charts and drives the
# browser test; a Node installed another way (NodeSource bundles npm) is
# kept, not replaced.
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
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}" >&2
  # apt's own progress only in the log, which is shown when it fails.
  log="$(mktemp)"
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup: apt-get failed (its output is above)" >&2
    exit 1
  fi
  rm -f "$log"
fi

# Vega, Vega-Lite, vega-embed (inlined into reports) and playwright-core,
# reinstalled only when the lock file changed.
reports="$(cd "$(dirname "$0")/.." && pwd)/reports"
if [ ! -f "$reports/node_modules/.package-lock.json" ] ||
   [ "$reports/package-lock.json" -nt "$reports/node_modules/.package-lock.json" ]; then
  npm ci --prefix "$reports" --no-audit --no-fund --loglevel=error >/dev/null
fi
