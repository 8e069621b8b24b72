#!/usr/bin/env bash
# Conversation quality (a bench, not a test): runs each shipped dataflow offline, as
# shipped, with each language model, then scores every session with
# target/release/conversation-quality against the flow's agenda
# (dataflows/agendas/<flow>.yml) and prints one Markdown table.
#
#   scripts/quality-bench.sh
#
# Environment:
#   QUALITY_MINUTES    minutes per run (default 10)
#   QUALITY_MODELS     space-separated GGUF paths, each given to the dataflows as
#                      LLM_MODEL_PATH (default: the default model,
#                      models/qwen2.5-coder-0.5b-instruct.gguf)
#   QUALITY_FLOWS      space-separated dataflow names (default: voice-chat debate panel
#                      roundtable rehearsal auction-debate); `roundtable-zh` is the
#                      roundtable with the scenario dataflows/scenarios/roundtable-zh.yml
#                      (in Mandarin, every voice espeak-ng's `cmn`)
#   QUALITY_OUT        keep the sessions (and dora's logs) in this folder; without it they
#                      go to a temporary folder, deleted at the end
#   QUALITY_SKIP_SECS  score only lines after this many seconds of each run (default 0)
#   QUALITY_EXPLAIN    1: list every failing line and why on stderr
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${QUALITY_MINUTES:-10}
models=${QUALITY_MODELS:-models/qwen2.5-coder-0.5b-instruct.gguf}
flows=${QUALITY_FLOWS:-voice-chat debate panel roundtable rehearsal auction-debate}
skip_secs=${QUALITY_SKIP_SECS:-0}
explain=()
[ "${QUALITY_EXPLAIN:-0}" = 1 ] && explain=(--explain)

if ! [[ "$minutes" =~ ^[1-9][0-9]*$ ]]; then
    echo "QUALITY_MINUTES=$minutes: expected a whole number of minutes" >&2
    exit 2
fi
scripts/setup.sh

# Sessions go to QUALITY_OUT (kept) or a temporary folder (deleted). A session folder
# belongs to one run, so every run of this script gets its own subfolder.
if [ -n "${QUALITY_OUT:-}" ]; then
    mkdir -p "$QUALITY_OUT"
    out=$(cd "$QUALITY_OUT" && pwd)/$(date +%Y%m%d-%H%M%S)
    mkdir -p "$out"
else
    out=$(mktemp -d)
    # Session folders may be frozen read-only at the end of a run.
    trap 'chmod -R u+w "$out" 2>/dev/null; rm -rf "$out"' EXIT
fi

absolute() {
    case "$1" in
        /*) echo "$1" ;;
        *) echo "$PWD/$1" ;;
    esac
}

# A free port for each run's console page, so that another dataflow on the machine
# (on the default 8777) does not stop this one.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The dataflow file of a flow name: the flow itself, or for a roundtable scenario
# (`roundtable-zh`) the roundtable.
dataflow_of() {
    if [ -f "dataflows/$1.yml" ]; then
        echo "dataflows/$1.yml"
    elif [[ "$1" == roundtable-* ]] && [ -f "dataflows/scenarios/$1.yml" ]; then
        echo "dataflows/roundtable.yml"
    fi
}

# Runs one flow with one model into its session folder; dora's output goes to a log.
run_flow() {
    local flow=$1 model=$2 session=$3
    local scenario=()
    if [ "$(dataflow_of "$flow")" != "dataflows/$flow.yml" ]; then
        scenario=(ROUNDTABLE_SCENARIO="scenarios/$flow.yml")
        [ "$flow" = roundtable-zh ] && scenario+=(
            ROUNDTABLE_HUMAN=scripts/silent-human.yml
            ROUNDTABLE_VOICES="moderator=espeak:cmn, economist=espeak:cmn+f3, engineer=espeak:cmn+m3, ethicist=espeak:cmn+f4")
    fi
    echo "== $flow with $(basename "$model"): ${minutes} min" >&2
    env "${scenario[@]}" SESSION_DIR="$session" AUDIO_OUTPUT=none LLM_MODEL_PATH="$model" \
        CONSOLE_PORT="$(free_port)" timeout --kill-after=30 $(( minutes * 60 + 180 )) \
        .venv/bin/dora run "$(dataflow_of "$flow")" --stop-after "${minutes}m" \
        >"$session.log" 2>&1 || true
}

# The models that exist, as absolute paths (the dataflows resolve paths from dataflows/).
model_paths=()
for model in $models; do
    model=$(absolute "$model")
    if [ -f "$model" ]; then
        model_paths+=("$model")
    else
        echo "$model: no such model file, skipped" >&2
    fi
done

rows=""
header=()
for flow in $flows; do
    if [ -z "$(dataflow_of "$flow")" ] || [ ! -f "dataflows/agendas/$flow.yml" ]; then
        echo "$flow: no dataflows/$flow.yml or dataflows/agendas/$flow.yml, skipped" >&2
        continue
    fi
    for model in "${model_paths[@]}"; do
        name=$(basename "$model" .gguf)
        session="$out/$flow--$name"
        mkdir -p "$session"
        run_flow "$flow" "$model" "$session"
        if row=$(target/release/conversation-quality "$session" \
            --agenda "dataflows/agendas/$flow.yml" --templates templates \
            --label "$flow / $name" --skip-secs "$skip_secs" "${header[@]}" "${explain[@]}"); then
            rows+="$row"$'\n'
            header=(--no-header)
        else
            echo "$flow with $name: not scored (dora's log: $session.log)" >&2
        fi
    done
done

if [ -z "$rows" ]; then
    echo "no session scored" >&2
    exit 1
fi
printf '%s' "$rows"
if [ -n "${QUALITY_OUT:-}" ]; then
    echo "sessions and dora's logs: $out" >&2
fi
