#!/usr/bin/env bash
# Speed and memory of `ragstat eval` and `ragstat trec-eval` on a large
# synthetic TREC run (issue: 10,000 queries x 1,000 docs, ~100 judged docs a
# query), beside NIST trec_eval when one is on PATH, in one run.
#
#   bench/run.sh [--gen PATH/TO/gen_bigrun.py] [--data DIR] [--runs N] [--sizes "1000 10000"]
#
# For each size it runs `ragstat eval`, `ragstat trec-eval -m all_trec` and
# trec_eval in N interleaved rounds and prints each one's wall seconds (min
# and median), CPU seconds, peak RSS (MiB), and trec_eval's median wall time
# over each ragstat command's. Then
# the cost of per-query output: `ragstat eval` in every format and
# `ragstat trec-eval -q` beside their summary-only runs, in N interleaved
# rounds (one run of each command per round), with the ratios of wall
# time, CPU time and peak RSS to the summary. The commands' notes on
# standard error are left in DATA/stderr.txt (the last command's). The
# inputs are read once before every timed run, so no command pays for
# reading them from disk.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
data="${TMPDIR:-/tmp}/ragstat-bench"
runs=5
sizes="1000 10000"
options "gen data runs sizes" "$@"
build_ragstat

# warm reads the inputs before a timed run, so that every command finds
# them in the page cache (a shared machine may evict them between runs).
warm() { cat "$dir/qrels.txt" "$dir/run.txt" >/dev/null; }

# paired TITLE PREFIX NAME...: runs the commands in the arrays PREFIX_NAME
# once per round for $runs rounds, and prints each one's wall seconds (min
# and median), CPU seconds (user + system, median), peak RSS, and its
# ratios to the first NAME's: of the median wall times, of the minimum wall
# times, of the median CPU times and of the peak RSS.
paired() {
  local title=$1 prefix=$2; shift 2
  local name t u s r
  for name in "$@"; do : >"$data/paired.$name"; done
  for _ in $(seq "$runs"); do
    for name in "$@"; do
      local -n cmd="${prefix}_$name"
      warm
      /usr/bin/time -f "%e %U %S %M" -o "$data/time.txt" "${cmd[@]}" >/dev/null 2>"$data/stderr.txt"
      unset -n cmd
      read -r t u s r <"$data/time.txt"
      echo "$t $u $s $r" >>"$data/paired.$name"
    done
  done
  echo "-- $title: $runs interleaved rounds, ratios to $1"
  printf '%-16s %6s %8s %6s %8s %8s %8s %8s %8s\n' output min_s median_s cpu_s peak_MiB wall_med wall_min cpu_med peak
  for name in "$@"; do
    awk -v name="$name" -v base="$data/paired.$1" '
      function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return a[int((n + 1) / 2)]
      }
      function stats(file,   n, w, c, line, f) {
        n = 0; peak = 0; wmin = -1
        while ((getline line < file) > 0) {
          split(line, f, " "); n++; w[n] = f[1]; c[n] = f[2] + f[3]
          if (f[4] > peak) peak = f[4]
          if (wmin < 0 || f[1] < wmin) wmin = f[1]
        }
        close(file)
        wmed = median(w, n); cmed = median(c, n)
      }
      BEGIN {
        stats(base); bmin = wmin; bmed = wmed; bcpu = cmed; bpeak = peak
        stats(ARGV[1]); ARGV[1] = ""
        printf "%-16s %6.2f %8.2f %6.2f %8d %8.3f %8.3f %8.3f %8.3f\n", name, wmin, wmed, cmed, peak / 1024,
          wmed / bmed, wmin / bmin, cmed / bcpu, peak / bpeak
      }' "$data/paired.$name"
  done
}

for n in $sizes; do
  dir="$data/q$n"
  bigrun "$dir" "$n"
  lines=$(wc -l <"$dir/run.txt")
  echo "== $n queries, $lines run lines, $(du -m "$dir/run.txt" | cut -f1) MB"
  # The commands in interleaved rounds, so that a slow spell of a shared
  # machine falls on all of them alike; then trec_eval's median wall time
  # over each ragstat command's.
  main_eval=("$bin" eval -j "$dir/qrels.txt" --unjudged nonrelevant "${bigrun_metrics[@]}" --summary "$dir/run.txt")
  main_trec_eval_mode=("$bin" trec-eval -m all_trec "$dir/qrels.txt" "$dir/run.txt")
  names=(eval trec_eval_mode)
  if command -v trec_eval >/dev/null; then
    main_trec_eval=(trec_eval -m all_trec "$dir/qrels.txt" "$dir/run.txt")
    names+=(trec_eval)
  fi
  paired "ragstat eval, ragstat trec-eval -m all_trec and trec_eval -m all_trec, $n queries" main "${names[@]}"
  if command -v trec_eval >/dev/null; then
    for name in eval trec_eval_mode trec_eval; do
      awk '{ print $1 }' "$data/paired.$name" | sort -g | awk -v n="$name" '{ w[NR] = $1 } END { print n, w[int((NR + 1) / 2)] }'
    done | awk '{ m[$1] = $2 } END {
      printf "ratio trec_eval/ragstat eval: %.1fx, trec_eval/ragstat trec-eval: %.1fx\n", m["trec_eval"] / m["eval"], m["trec_eval"] / m["trec_eval_mode"] }'
  fi

  # Per-query output beside the summary only. json and jsonl carry every
  # query whatever the flags; the other formats are given --per-query.
  out=("$bin" eval -j "$dir/qrels.txt" --unjudged nonrelevant "${bigrun_metrics[@]}" "$dir/run.txt")
  out_summary=("${out[@]}" --summary)
  for f in table json jsonl csv tsv markdown trec; do
    declare -n cmd="out_$f"
    cmd=("${out[@]}" --per-query --format "$f")
    unset -n cmd
  done
  # json's manifest records the run's SHA-256 with or without rows: its
  # summary-only run shows that cost apart from the rows'.
  out_jsonsummary=("${out[@]}" --summary --format json)
  paired "ragstat eval, $n queries, per-query output" out summary table json jsonsummary jsonl csv tsv markdown trec
  te_summary=("$bin" trec-eval -m all_trec "$dir/qrels.txt" "$dir/run.txt")
  te_per_query=("$bin" trec-eval -q -m all_trec "$dir/qrels.txt" "$dir/run.txt")
  paired "ragstat trec-eval -m all_trec, $n queries, -q" te summary per_query
done
