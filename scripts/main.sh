#!/usr/bin/env bash
# The main job: build, run the default benchmark suite (scenarios/smoke.toml
# on the bundled stories260K model), and draw its report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
pdbench=./build/bench/pdbench/pdbench
out="results/smoke-$(date -u +%Y%m%dT%H%M%SZ)"
"$pdbench" sysinfo
"$pdbench" run scenarios/smoke.toml -o "$out"
"$pdbench" report "$out" -o "$out/report.html" --md "$out/report.md"
echo "report: $out/report.html (Markdown summary: $out/report.md)"
