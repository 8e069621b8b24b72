#!/usr/bin/env bash
# Makes the speech-recognition benchmark corpus: 20 conversational sentences spoken by
# two espeak-ng voices (16 kHz), and the scripted human's voice mixed with white noise
# 20 dB below the speech, and 10 sentences said with fillers ("um", "uh") by both voices.
# Writes DIR/clean.tsv, DIR/noisy.tsv and DIR/fillers.tsv (`path<TAB>text`).
#
#   scripts/asr-corpus.sh DIR
set -euo pipefail
dir="${1:?usage: scripts/asr-corpus.sh DIR}"
mkdir -p "$dir"
sentences=(
    "Sorry to interrupt, can you show me a derivative with actual numbers?"
    "Thanks, that helps. Why is the slope of a curve a limit?"
    "What is the slope of the tangent line at x equals two?"
    "Could you explain the chain rule one more time, please?"
    "I think the limit does not exist when the function jumps."
    "Can we try an example with a square root instead?"
    "Wait, why did the constant disappear in that step?"
    "So the derivative tells us how fast something changes."
    "I disagree, the evidence for that claim is rather weak."
    "Let me finish my point before you answer, please."
    "How much would this plan cost over the next five years?"
    "That sounds reasonable, but who pays for the cleanup?"
    "Our revenue grew by forty percent in the last quarter."
    "The main risk is that customers will not switch."
    "Can you give me one concrete reason to believe that?"
    "Good morning everyone, let us start with the first topic."
    "I would like to hear what the engineer thinks about it."
    "We should move on to the next slide now."
    "Is there any data that supports your forecast?"
    "Thank you all, that was a very useful discussion."
)
# speak NAME TEXT LIST: TEXT in both voices as DIR/NAME-<voice>.wav (16 kHz), each listed
# in DIR/LIST with its text.
speak() {
    local voice out
    for voice in en-us+m7 en-us+f3; do
        out="$dir/$1-${voice}.wav"
        espeak-ng -v "$voice" --stdout "$2" | sox -t wav - -r 16000 -c 1 -b 16 "$out"
        printf '%s\t%s\n' "$out" "$2" >> "$dir/$3"
    done
}

: > "$dir/clean.tsv"
: > "$dir/noisy.tsv"
i=0
for text in "${sentences[@]}"; do
    i=$((i + 1))
    speak "s${i}" "$text" clean.tsv
    # The scripted human's voice with noise 20 dB below the speech's RMS level.
    speech="$dir/s${i}-en-us+m7.wav"
    rms=$(sox "$speech" -n stat 2>&1 | awk '/RMS     amplitude/ { print $3 }')
    seconds=$(soxi -D "$speech")
    # Uniform white noise at volume v has an RMS of v/sqrt(3).
    volume=$(awk -v r="$rms" 'BEGIN { printf "%.6f", r * 0.1 * sqrt(3) }')
    sox -n -r 16000 -c 1 -b 16 "$dir/noise${i}.wav" synth "$seconds" whitenoise vol "$volume"
    sox -m -v 1 "$speech" -v 1 "$dir/noise${i}.wav" -b 16 "$dir/s${i}-noisy.wav" 2>/dev/null
    rm -f "$dir/noise${i}.wav"
    printf '%s\t%s\n' "$dir/s${i}-noisy.wav" "$text" >> "$dir/noisy.tsv"
done

# Hesitant speech: the fillers a coach counts, written where they are said.
hesitant=(
    "Um, our revenue grew by, uh, forty percent last quarter."
    "So, uh, the main risk is, um, that customers will not switch."
    "Uh, I think the slope is, um, two at this point."
    "We, um, we should move on to, uh, the next slide now."
    "Um, the margin is, like, twelve percent, you know."
    "Uh, could you, um, repeat the question, please?"
    "Hmm, that is, uh, a fair point about the cost."
    "The pilot, um, ran for, uh, six months in two warehouses."
    "Um, well, uh, we have not measured that yet."
    "You know, the data is, uh, from our own customers."
)
: > "$dir/fillers.tsv"
i=0
for text in "${hesitant[@]}"; do
    i=$((i + 1))
    speak "h${i}" "$text" fillers.tsv
done
