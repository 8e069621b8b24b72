#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser that reads outside input (libFuzzer through
# cargo-fuzz on the nightly toolchain). A benchmark, not a test: each target runs for
# SECONDS (default 60); figures go to docs/RELIABILITY.md.
#
#   scripts/fuzz.sh [SECONDS] [TARGET ...]
#
# Seeds are fuzz/corpus/<target>/ (read only); what libFuzzer learns goes to
# target/fuzz-corpus/<target>/, crashes to fuzz/artifacts/<target>/. A crash found is
# copied into fuzz/corpus/<target>/ once fixed: the test command replays that folder.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
if ! rustup toolchain list | grep -q '^nightly'; then
    echo "fuzz.sh needs a nightly toolchain (rustup toolchain install nightly)" >&2
    exit 1
fi
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list)
cargo +nightly fuzz build --release >/dev/null
printf '%-18s %12s %10s %8s %8s  %s\n' target execs exec/s cov corpus result
for target in "${targets[@]}"; do
    learned=target/fuzz-corpus/$target
    mkdir -p "$learned"
    log=$(mktemp)
    status=ok
    cargo +nightly fuzz run --release "$target" "$learned" "fuzz/corpus/$target" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 >"$log" 2>&1 || status="CRASH (see fuzz/artifacts/$target)"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    printf '%-18s %12s %10s %8s %8s  %s\n' "$target" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${corp:-?}" "$status"
    [ "$status" = ok ] || tail -40 "$log"
    rm -f "$log"
done
