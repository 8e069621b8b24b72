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
echo "== roundtable moderator decision time (no dora)"
target/release/moderator --bench 2000
echo "== voice pipeline components"
target/release/voice-bench micro
echo "== offline spoken session (95 s, a talkative scripted human): dead air and barge-in"
bench_flow=dataflows/.bench-voice-chat.yml
sed 's|scripts/voice-chat-human.yml|scripts/bench-human.yml|' dataflows/voice-chat.yml > "$bench_flow"
session=$(mktemp -d)
SESSION_DIR="$session" timeout 300 .venv/bin/dora run "$bench_flow" --stop-after 95s >/dev/null 2>&1 || true
rm -f "$bench_flow"
target/release/voice-bench session "$session"
echo "== pitch rehearsal: Q&A trigger (slide change on the moderator's control input) → first moderator audio"
# Three offline runs of dataflows/rehearsal.yml (two section breaks each). The moderator
# logs each trigger's latency to its first playback_started in rehearsal-events.jsonl.
latencies=()
for run in 1 2 3; do
  session=$(mktemp -d)
  SESSION_DIR="$session" OFFLINE_WORD_DELAY_MS=30 ESPEAK_SPEED=320 AUDIO_OUTPUT=none \
    timeout 300 .venv/bin/dora run dataflows/rehearsal.yml --stop-after 60s >/dev/null 2>&1 || true
  while read -r ms; do latencies+=("$ms"); done < <(
    grep '"event":"qa_first_audio"' "$session/rehearsal-events.jsonl" 2>/dev/null |
      sed 's/.*"latency_ms":\([0-9.]*\).*/\1/')
  chmod -R u+w "$session" && rm -rf "$session"
done
printf '%s\n' "${latencies[@]}" | sort -n | awk '{ v[NR] = $1 } END {
  if (NR == 0) { print "no Q&A trigger measured"; exit }
  printf "Q&A trigger → first moderator audio: median %.1f ms, max %.1f ms (%d triggers)\n", v[int((NR + 1) / 2)], v[NR], NR }'
echo "== organic auction: resolution time per micro-turn (3, 16, 64 agents)"
target/release/auction-bench 20000
