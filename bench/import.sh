#!/usr/bin/env bash
# `ragstat import otlp` on OTLP/JSON lines as the Collector's file exporter
# writes them (one span a line, 8 traces in flight interleaved; see
# bench/genotlp), beside `ragstat stages` reading the ragstat traces the
# import wrote, in one run: wall and CPU time, throughput, peak memory.
# Then `stages` on the raw spans directly.
#
#   bench/import.sh [--traces 12000] [--data DIR]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
traces=12000
data="${TMPDIR:-/tmp}/ragstat-bench-import"
options "traces data" "$@"
build_ragstat
dir="$data/t$traces"
if [ ! -s "$dir/spans.otlp.jsonl" ]; then
  (cd "$root" && go run ./bench/genotlp -out "$dir" -traces "$traces")
fi
# measure NAME INPUT_FILE COMMAND...: wall, CPU, throughput of INPUT_FILE, peak RSS
measure() {
  local name=$1 in=$2; shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$data/time.txt" "$@" >"$data/out.txt" 2>"$data/err.txt" || { cat "$data/err.txt" >&2; exit 1; }
  read -r secs user sys rss <"$data/time.txt"
  awk -v name="$name" -v s="$secs" -v cpu="$(echo "$user + $sys" | bc)" -v n="$traces" -v mb="$(du -m "$in" | cut -f1)" -v rss="$rss" 'BEGIN {
    printf "%-28s %6d MB  wall %6.2f s  cpu %6.2f s  %8.0f traces/s  %6.1f MB/s (wall)  %6.1f MB/s (cpu)  peak RSS %5.0f MiB\n",
      name, mb, s, cpu, n / s, mb / s, mb / cpu, rss / 1024 }'
}
spans="$dir/spans.otlp.jsonl"
out="$dir/traces.jsonl"
stages=(stages -j "$dir/judgments.jsonl" --topics "$dir/topics.jsonl" --unjudged nonrelevant)
echo "== $traces traces: $(du -m "$spans" | cut -f1) MB of OTLP/JSON ($(wc -l <"$spans") lines)"
measure "import otlp" "$spans" "$bin" import otlp "$spans" --out "$out" --force
grep -E "imported|context items" "$data/err.txt"
measure "stages on ragstat traces" "$out" "$bin" "${stages[@]}" "$out"
measure "stages on the raw spans" "$spans" "$bin" "${stages[@]}" "$spans"
