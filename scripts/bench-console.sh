#!/usr/bin/env bash
# The console's cost (run by scripts/bench.sh; runs alone after scripts/setup.sh):
# WebSocket messages per second it sustains, and the offline spoken session's dead air and
# barge-in without a console, with the console and no page, and with pages open.
#
#   scripts/bench-console.sh
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== console: WebSocket messages per second (the node's loop and server in process, pages as WebSocket clients that listen)"
target/release/console-bench throughput 5

echo "== console: dead air and barge-in of the offline spoken session (95 s, a talkative scripted human)"
with=dataflows/.bench-console.yml
without=dataflows/.bench-no-console.yml
trap 'rm -f "$with" "$without"' EXIT
sed 's|scripts/voice-chat-human.yml|scripts/bench-human.yml|' dataflows/voice-chat.yml > "$with"
# The same dataflow without the console node and the inputs it feeds.
awk '/^  # The live console/ { exit } /console\// { next } { print }' "$with" > "$without"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

session_run() { # flow, label, [pages]
    local flow=$1 label=$2 pages=${3:-no} port session pids=()
    port=$(free_port)
    session=$(mktemp -d)
    if [ "$pages" = yes ]; then
        # A real page in headless Chromium watching, and four pages listening to the voices.
        chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
            --user-data-dir="$(mktemp -d)" "http://127.0.0.1:$port/" >/dev/null 2>&1 &
        pids+=($!)
        for i in 1 2 3 4; do
            target/release/console-bench page "ws://127.0.0.1:$port/ws" 200 --listen > "$session.page$i" 2>&1 &
            pids+=($!)
        done
    fi
    SESSION_DIR="$session" CONSOLE_PORT="$port" timeout 300 .venv/bin/dora run "$flow" --stop-after 95s >/dev/null 2>&1 || true
    # The pages end when the console closes them; Chromium is stopped.
    [ "$pages" = yes ] && kill "${pids[0]}" 2>/dev/null
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    echo "-- $label"
    target/release/voice-bench session "$session"
    if [ "$pages" = yes ]; then cat "$session".page* 2>/dev/null || true; rm -f "$session".page*; fi
    chmod -R u+w "$session" && rm -rf "$session"
}
session_run "$without" "without a console"
session_run "$with" "with the console, no page open"
session_run "$with" "with the console, a Chromium page watching and four pages listening" yes
