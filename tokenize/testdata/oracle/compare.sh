#!/bin/sh
# Runs the Go benchmark and npm tiktoken on the same passages, one after the
# other, so their o200k_base throughputs can be compared side by side.
# Needs npm (installs the pinned oracle packages here if missing) and Go.
set -e
cd "$(dirname "$0")"
[ -d node_modules/tiktoken ] || npm install --no-audit --no-fund --silent
(cd ../.. && go test -run '^$' -bench '^BenchmarkCount$' -benchtime 3s .) | grep Benchmark
node bench.mjs 3
