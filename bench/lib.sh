# Shared by the bench scripts (sourced, not run): build_ragstat checks for
# GNU time, makes the data folder $data and builds the command there as
# $bin, from the checkout at $root.
build_ragstat() {
  command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
  mkdir -p "$data"
  bin="$data/ragstat"
  (cd "$root" && go build -o "$bin" ./cmd/ragstat)
}
