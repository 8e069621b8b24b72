#!/usr/bin/env bash
# Randomized barge-ins (a bench, not a test): runs the offline voice-chat, cuts into it
# COUNT times at random moments through its console, then checks the session folder
# (tools/barge-storm): no voice after an interrupt that made it stale, in the timeline
# and in conversation.wav itself, no two voices at once, no turn handed out twice, a next
# turn and voice after every interrupt; and counts the moments the interrupts hit
# (during generation, during synthesis, mid-word, between words, two in a row).
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
# The run uses a copy of the binaries just built and of the dataflow without its build
# steps (everything else linked), so that later builds of the same target folder neither
# hold up its start nor replace a node that restarts during it.
stage=$(mktemp -d)
for entry in *; do
    case "$entry" in dataflows | target) ;; *) ln -s "$PWD/$entry" "$stage/$entry" ;; esac
done
mkdir -p "$stage/dataflows" "$stage/target/release"
for entry in dataflows/*; do ln -s "$PWD/$entry" "$stage/$entry"; done
rm "$stage/dataflows/voice-chat.yml"
grep -v '^ *build: ' dataflows/voice-chat.yml >"$stage/dataflows/voice-chat.yml"
for node in $(sed -n 's|^ *path: \.\./target/release/||p' dataflows/voice-chat.yml | sort -u); do
    cp "target/release/$node" "$stage/target/release/"
done
# Long enough for the storm (about 2.3 s per barge-in on average) and its aftermath.
secs=$(( count * 3 + 60 ))
SESSION_DIR="$session" CONSOLE_PORT="$port" AUDIO_OUTPUT=none LLM_BACKEND="${LLM_BACKEND:-scripted}" \
    .venv/bin/dora run "$stage/dataflows/voice-chat.yml" --stop-after "${secs}s" >"$session.log" 2>&1 &
run=$!
# Whatever happens to the storm, the conversation is stopped with it.
trap 'kill -INT "$run" 2>/dev/null || true; rm -rf "$stage"' EXIT
target/release/barge-storm drive "ws://127.0.0.1:$port/ws" "$count" "$seed"
# Stop the conversation the way a user does (Ctrl-C), and let the session freeze (a
# minute at most).
kill -INT "$run" 2>/dev/null || true
for _ in $(seq 60); do
    kill -0 "$run" 2>/dev/null || break
    sleep 1
done
kill -TERM "$run" 2>/dev/null || true
wait "$run" || true
echo "LLM_BACKEND=${LLM_BACKEND:-scripted}, ended $(date -u +%Y-%m-%dT%H:%MZ)"
target/release/barge-storm check "$session"
echo "session folder: $session (dora's log: $session.log)"
