#!/usr/bin/env bash
# Installs every build and test dependency from Debian 12 packages.
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
)

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
