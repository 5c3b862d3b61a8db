#!/usr/bin/env bash
# The main job: build; check that the engine's greedy text on the bundled
# stories260K model equals llama2.c run.c's; run the default benchmark suite
# (scenarios/default.toml, a synthetic SmolLM2-135M made on first use) and
# draw its report. Progress goes to stderr; the report's Markdown summary
# (what bounds each phase, the cases table) is the only thing on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh pdbench >&2
pdbench=./build/bench/pdbench/pdbench
out="results/default-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"

# Correctness first: 256 greedy tokens from BOS, as `run stories260K.bin -z
# tok512.bin -t 0` prints them.
reference=tests/data/stories260K-reference/run_c_t0_default.txt
"$pdbench" generate -m models/stories260K.gguf -n 256 --temp 0 >"$out/stories260K-greedy.txt"
if ! cmp -s "$out/stories260K-greedy.txt" "$reference"; then
  echo "main: stories260K greedy text differs from llama2.c's ($reference):" >&2
  diff "$reference" "$out/stories260K-greedy.txt" >&2 || true
  exit 1
fi
echo "main: stories260K greedy text equals llama2.c run.c's (256 tokens)" >&2

"$pdbench" sysinfo >&2
"$pdbench" run scenarios/default.toml -o "$out" >&2
"$pdbench" report "$out" -o "$out/report.html" --md "$out/report.md" --summary
echo "report: $out/report.html (Markdown: $out/report.md)" >&2
