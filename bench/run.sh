#!/usr/bin/env bash
# Speed and memory of `ragstat eval` and `ragstat trec-eval` on a large
# synthetic TREC run (issue: 10,000 queries x 1,000 docs, ~100 judged docs a
# query), beside NIST trec_eval when one is on PATH, in one run.
#
#   bench/run.sh [--gen PATH/TO/gen_bigrun.py] [--data DIR] [--runs N] [--sizes "1000 10000"]
#
# For each size it prints wall seconds (min and median of N runs) and peak
# RSS (MiB, max over runs) per command, and the ratio to trec_eval.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
gen="$root/../shared/bench/gen_bigrun.py"
data="${TMPDIR:-/tmp}/ragstat-bench"
runs=5
sizes="1000 10000"
while [ $# -gt 0 ]; do
  case "$1" in
    --gen) gen=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }

bin="$data/ragstat"
mkdir -p "$data"
(cd "$root" && go build -o "$bin" ./cmd/ragstat)

metrics=(-m R@10 -m R@100 -m R@1000 -m RR@10 -m nDCG@10 -m nDCG@100 -m P@10 -m AP)

# measure NAME CMD...: runs CMD $runs times, prints "NAME min median maxrss".
measure() {
  local name=$1; shift
  local times=() rss=0 t r
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$data/time.txt" "$@" >/dev/null
    read -r t r <"$data/time.txt"
    times+=("$t")
    [ "$r" -gt "$rss" ] && rss=$r
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -g)
  min=$(echo "$sorted" | head -1)
  med=$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
  printf '%-28s %8s %8s %8d\n' "$name" "$min" "$med" $((rss / 1024))
  echo "${name// /_} $med" >>"$data/medians.txt"
}

for n in $sizes; do
  dir="$data/q$n"
  if [ ! -s "$dir/run.txt" ]; then
    python3 "$gen" --out "$dir" --queries "$n"
  fi
  : >"$data/medians.txt"
  lines=$(wc -l <"$dir/run.txt")
  echo "== $n queries, $lines run lines, $(du -m "$dir/run.txt" | cut -f1) MB"
  printf '%-28s %8s %8s %8s\n' command min_s median_s peak_MiB
  measure "ragstat eval" "$bin" eval -j "$dir/qrels.txt" --unjudged nonrelevant "${metrics[@]}" --summary "$dir/run.txt"
  measure "ragstat trec-eval all_trec" "$bin" trec-eval -m all_trec "$dir/qrels.txt" "$dir/run.txt"
  if command -v trec_eval >/dev/null; then
    measure "trec_eval all_trec" trec_eval -m all_trec "$dir/qrels.txt" "$dir/run.txt"
    awk '{m[$1]=$2} END {
      te=m["trec_eval_all_trec"]
      printf "ratio trec_eval/ragstat eval: %.1fx, trec_eval/ragstat trec-eval: %.1fx\n", te/m["ragstat_eval"], te/m["ragstat_trec-eval_all_trec"] }' "$data/medians.txt"
  fi
done
