#!/usr/bin/env bash
# Benchmarks (not tests): figures go to docs/BENCHMARKS.md.
#
#   scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p policy-bench -p policy-sim --quiet
echo "== policy decision time (ns per decision)"
target/release/policy-bench
echo "== policy-sim, 1,000,000 turns (wall time)"
start=$(date +%s%N)
target/release/policy-sim --pattern "[(moderator, 3), (expert1, 2), (expert2, 2), (guest, 1)]" --turns 1000000 --json >/dev/null
end=$(date +%s%N)
echo "policy-sim 1e6 turns --json: $(( (end - start) / 1000000 )) ms"
