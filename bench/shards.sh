#!/usr/bin/env bash
# Wall time and peak memory of one `ragstat eval` (then `ragstat compare`) beside the same work
# split into 2 and 4 shards run as parallel processes, then merged, on the
# synthetic run of bench/run.sh, in one run of this script. It also checks
# that every merge prints the single run's bytes.
#
#   bench/shards.sh [--gen PATH/TO/gen_bigrun.py] [--data DIR] [--queries 10000] [--shards "2 4"]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
data="${TMPDIR:-/tmp}/ragstat-bench" # bench/run.sh's: the synthetic run is made once
queries=10000
shards="2 4"
options "gen data queries shards" "$@"
build_ragstat
dir="$data/q$queries"
bigrun "$dir" "$queries"
out="$data/shards"
rm -rf "$out" && mkdir -p "$out"
eval_args=(eval -j "$dir/qrels.txt" --unjudged nonrelevant "${bigrun_metrics[@]}" -f json "$dir/run.txt")
# compare reads the run twice, as base and candidate: the work of comparing two runs.
compare_args=(compare -j "$dir/qrels.txt" --unjudged nonrelevant -m R@100 -m RR@10 -m nDCG@10 -m AP -f json "base=$dir/run.txt" "cand=$dir/run.txt")

# measure times one run of the command in "$@" beside it split into each
# count of shards run as parallel processes, then merged.
measure() {
  printf '%-10s %10s %10s %14s %16s\n' processes wall_s merge_s peak_MiB_each same_as_single
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$bin" "$@" >"$out/single.json"
  read -r t r <"$out/time.txt"
  printf '%-10s %10s %10s %14d %16s\n' 1 "$t" - $((r / 1024)) -
  for n in $shards; do
    start=$(date +%s.%N)
    for i in $(seq 0 $((n - 1))); do
      /usr/bin/time -f "%e %M" -o "$out/time$i.txt" "$bin" "$@" --shard "$i/$n" >"$out/part$i.json" &
    done
    wait
    mid=$(date +%s.%N)
    "$bin" merge -f json "$out"/part*.json >"$out/merged.json"
    end=$(date +%s.%N)
    rss=$(cat "$out"/time[0-9]*.txt | awk '$2 > m {m = $2} END {print int(m / 1024)}')
    same=no
    cmp -s "$out/merged.json" "$out/single.json" && same=yes
    printf '%-10s %10.2f %10.2f %14d %16s\n' "$n" "$(echo "$end - $start" | bc)" "$(echo "$end - $mid" | bc)" "$rss" "$same"
    rm -f "$out"/part*.json "$out"/time[0-9]*.txt
  done
}

echo "== eval, $queries queries, $(du -m "$dir/run.txt" | cut -f1) MB of run"
measure "${eval_args[@]}"
echo "== compare, the same run as base and candidate"
measure "${compare_args[@]}"
