#!/usr/bin/env bash
# Benchmarks (not tests): figures go to docs/BENCHMARKS.md.
#
#   scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== policy decision time (ns per decision)"
target/release/policy-bench
echo "== policy-sim, 1,000,000 turns (wall time)"
start=$(date +%s%N)
target/release/policy-sim --pattern "[(moderator, 3), (expert1, 2), (expert2, 2), (guest, 1)]" --turns 1000000 --json >/dev/null
end=$(date +%s%N)
echo "policy-sim 1e6 turns --json: $(( (end - start) / 1000000 )) ms"
echo "== voice pipeline components"
target/release/voice-bench micro
echo "== offline spoken session (95 s, a talkative scripted human): dead air and barge-in"
bench_flow=dataflows/.bench-voice-chat.yml
sed 's|scripts/voice-chat-human.yml|scripts/bench-human.yml|' dataflows/voice-chat.yml > "$bench_flow"
session=$(mktemp -d)
SESSION_DIR="$session" timeout 300 .venv/bin/dora run "$bench_flow" --stop-after 95s >/dev/null 2>&1 || true
rm -f "$bench_flow"
target/release/voice-bench session "$session"
