#!/usr/bin/env bash
# Sets up when needed, then runs a dataflow through a local dora coordinator and daemon,
# attached: the conversation shows in this terminal. Ctrl-C stops it.
#
#   scripts/start.sh                          # the study session (dataflows/voice-chat.yml)
#   scripts/start.sh dataflows/debate.yml     # any other dataflow
set -euo pipefail
cd "$(dirname "$0")/.."
dataflow="${1:-dataflows/voice-chat.yml}"

scripts/setup.sh
dora=.venv/bin/dora
"$dora" up
trap '"$dora" down >/dev/null 2>&1 || true' EXIT
# A closed terminal (its hangup reaches dora too) still takes the coordinator and daemon
# down. A TERM sent to this script alone waits for `dora start` to end: stop with Ctrl-C.
trap 'exit 143' TERM HUP
"$dora" build "$dataflow"
# A dataflow with the console node serves its page on loopback.
if grep -q 'target/release/console$' "$dataflow"; then
    echo "console: http://127.0.0.1:${CONSOLE_PORT:-8777}/ (open it in a browser)"
fi
"$dora" start "$dataflow" --attach
