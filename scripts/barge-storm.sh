#!/usr/bin/env bash
# Randomized barge-ins (a bench, not a test): runs the offline voice-chat, cuts into it
# COUNT times at random moments through its console, then checks the session folder
# (tools/barge-storm): no voice after an interrupt that made it stale, no two voices at
# once, no turn handed out twice, the conversation going on after the last one.
#
#   scripts/barge-storm.sh [COUNT] [SEED]     (default 1000 barge-ins, seed 7)
set -euo pipefail
cd "$(dirname "$0")/.."
# The dataflow's build step then finds nothing to do, and the storm starts on time.
cargo build --release --workspace --quiet
count=${1:-1000}
seed=${2:-7}
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
session=$(mktemp -d)
# Long enough for the storm (about 2.8 s per barge-in on average) and its aftermath.
secs=$(( count * 3 + 60 ))
SESSION_DIR="$session" CONSOLE_PORT="$port" AUDIO_OUTPUT=none LLM_BACKEND="${LLM_BACKEND:-scripted}" \
    .venv/bin/dora run dataflows/voice-chat.yml --stop-after "${secs}s" >"$session.log" 2>&1 &
run=$!
# Whatever happens to the storm, the conversation is stopped with it.
trap 'kill -INT "$run" 2>/dev/null || true' EXIT
target/release/barge-storm drive "ws://127.0.0.1:$port/ws" "$count" "$seed"
# Stop the conversation the way a user does (Ctrl-C), and let the session freeze.
kill -INT "$run" 2>/dev/null || true
wait "$run" || true
target/release/barge-storm check "$session"
echo "session folder: $session (dora's log: $session.log)"
