#!/usr/bin/env bash
# The soak (a bench, not a test): the offline voice-chat with its embedded models for
# MINUTES (default 60), a scripted human speaking every ~30 s, every node's memory,
# threads and open files sampled each minute; then tools/soak checks the samples (flat
# after a 10-minute warm-up) and the session (no stall over 5 s, files complete).
#
#   scripts/soak.sh [MINUTES] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --workspace --quiet
minutes=${1:-60}
seed=${2:-7}
warmup=$(( minutes >= 20 ? 10 : minutes / 4 ))
session=$(mktemp -d)
target/release/soak script "$minutes" 30 "$seed" > "$session.human.yml"
# The dataflow as shipped but for its human, so that paths keep their meaning.
flow=dataflows/.soak-voice-chat.yml
sed "s|HUMAN_SCRIPT: .*|HUMAN_SCRIPT: $session.human.yml|" dataflows/voice-chat.yml > "$flow"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SESSION_DIR="$session" CONSOLE_PORT="$port" AUDIO_OUTPUT=none \
    .venv/bin/dora run "$flow" --stop-after "$(( minutes * 60 + 20 ))s" >"$session.log" 2>&1 &
run=$!
trap 'kill -INT "$run" 2>/dev/null || true; rm -f "$flow"' EXIT
target/release/soak sample "$session.samples.jsonl" . "$minutes"
wait "$run" || true
target/release/soak check "$session" "$session.samples.jsonl" "$warmup"
echo "session folder: $session (samples: $session.samples.jsonl, dora's log: $session.log)"
