#!/usr/bin/env bash
# Sets up when needed, then runs a dataflow through a local dora coordinator and daemon,
# attached: the conversation shows in this terminal. Ctrl-C stops it.
#
#   scripts/start.sh                          # the study session (dataflows/voice-chat.yml)
#   scripts/start.sh dataflows/debate.yml     # any other dataflow
#   scripts/start.sh dataflows/rehearsal-live.yml --deck my-pitch.md [--panel my-panel.yml] [--intel notes.md]
#                                             # rehearse your own pitch (the page: http://127.0.0.1:8777/)
set -euo pipefail
here="$PWD"
cd "$(dirname "$0")/.."
dataflow="dataflows/voice-chat.yml"
case "${1:-}" in -*|"") ;; *) dataflow="$1"; shift ;; esac

# Files the dataflow's nodes read (DECK, PANEL, INTEL), as absolute paths (the nodes run
# in dataflows/). The dora CLI expands `${DECK:-...}` in the YAML from its own
# environment when it reads the dataflow, so they are exported to it.
file_env() {
    local name="$1" path="$2"
    case "$path" in /*) ;; *) path="$here/$path" ;; esac
    if [[ ! -f "$path" ]]; then
        echo "start.sh: $name file not found: $path" >&2
        exit 2
    fi
    export "$name=$path"
}
while [[ $# -gt 0 ]]; do
    case "$1" in
        --deck) file_env DECK "${2:?--deck needs a Markdown file}"; shift 2 ;;
        --panel) file_env PANEL "${2:?--panel needs a YAML file}"; shift 2 ;;
        --intel) file_env INTEL "${2:?--intel needs a Markdown file}"; shift 2 ;;
        *) echo "start.sh: unknown option $1 (--deck FILE, --panel FILE, --intel FILE)" >&2; exit 2 ;;
    esac
done

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
