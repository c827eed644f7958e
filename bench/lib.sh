# Shared by the bench scripts (sourced, not run): here is the bench folder
# and root the checkout; options reads a script's arguments; build_ragstat
# checks for GNU time, makes the data folder $data and builds the command
# there as $bin; bigrun makes the synthetic TREC run, with the generator
# $gen, that bigrun_metrics are measured on.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
gen="$root/../shared/bench/gen_bigrun.py"
# options NAMES ARGS...: each --NAME VALUE in ARGS sets the variable NAME
# to VALUE; a name not among the words of NAMES is an error.
options() {
  local known=" $1 " name
  shift
  while [ $# -gt 0 ]; do
    name=${1#--}
    case "$known" in
      *" $name "*) [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; } ;;
      *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
    printf -v "$name" '%s' "$2"
    shift 2
  done
}

build_ragstat() {
  command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
  mkdir -p "$data"
  bin="$data/ragstat"
  (cd "$root" && go build -o "$bin" ./cmd/ragstat)
}

# bigrun DIR QUERIES: the synthetic run of QUERIES queries, DIR/run.txt
# with DIR/qrels.txt, made by the generator $gen unless it is there.
bigrun() {
  [ -s "$1/run.txt" ] || python3 "$gen" --out "$1" --queries "$2"
}

# The measures `ragstat eval` computes on the synthetic run.
bigrun_metrics=(-m R@10 -m R@100 -m R@1000 -m RR@10 -m nDCG@10 -m nDCG@100 -m P@10 -m AP)
