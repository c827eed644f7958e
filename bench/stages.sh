#!/usr/bin/env bash
# Throughput and peak memory of `ragstat stages` on synthetic traces (issue:
# 100,000 traces of 50 candidates, 10 reranked and 8 context passages of
# about 1 KB, counted with o200k_base), and the tokenizer's throughput beside
# npm tiktoken's on the same passages, in one run.
#
#   bench/stages.sh [--traces 100000] [--passage 1000] [--per-query-out] [--data DIR]
#
# --per-query-out writes each trace's record to a file beside the traces,
# so that the table holds sums only: the memory curve's setting.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
traces=100000
passage=1000
records=()
data="${TMPDIR:-/tmp}/ragstat-bench-stages"
while [ $# -gt 0 ]; do
  case "$1" in
    --traces) traces=$2; shift 2 ;;
    --passage) passage=$2; shift 2 ;;
    --per-query-out) records=(--per-query-out "$data/records.jsonl" --force); shift ;;
    --data) data=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
build_ragstat
dir="$data/t$traces-p$passage"
if [ ! -s "$dir/traces.jsonl" ]; then
  (cd "$root" && go run ./bench/gentraces -out "$dir" -traces "$traces" -passage "$passage")
fi
mb=$(du -m "$dir/traces.jsonl" | cut -f1)
echo "== ragstat stages: $traces traces, $mb MB of traces"
/usr/bin/time -f "%e %U %S %M" -o "$data/time.txt" "$bin" stages -j "$dir/judgments.jsonl" --topics "$dir/topics.jsonl" \
  --unjudged nonrelevant --tokenizer o200k_base --k candidates=50 --k reranked=10 "${records[@]}" "$dir/traces.jsonl" >"$data/out.txt"
rm -f "$data/records.jsonl"
read -r secs user sys rss <"$data/time.txt"
awk -v s="$secs" -v u="$user" -v y="$sys" -v n="$traces" -v mb="$mb" -v rss="$rss" 'BEGIN {
  printf "wall %.2f s, %.0f traces/s, %.1f MB/s of traces; CPU %.2f s (user + system), peak RSS %.0f MiB\n", s, n / s, mb / s, u + y, rss / 1024 }'
echo "== tokenizer: o200k_base, Go beside npm tiktoken on the same ~1 KB passages"
if command -v npm >/dev/null; then
  sh "$root/tokenize/testdata/oracle/compare.sh"
else
  echo "npm not found: skipped"
fi
