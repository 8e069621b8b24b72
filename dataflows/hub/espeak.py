"""espeak-ng as a library for the offline stand-in nodes: text in, float32 samples out.

Text is neutralised first, by the rules of the player's `player_core::voice_text::sanitize`
(the same inputs give the same text; nodes/tts-player/tests/hub_voice_text.rs compares
them): markup tags out, control characters to spaces, `[[` phoneme escapes broken up. It is
handed over after `--`, so a leading `-` is spoken, never read as an option.
"""

import io
import subprocess
import wave


def _opens_tag(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or c in "/!?"


def _strip_markup(text: str) -> str:
    out = []
    i = 0
    while True:
        open_at = text.find("<", i)
        if open_at < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:open_at])
        after = open_at + 1
        if after >= len(text) or not _opens_tag(text[after]):
            out.append("<")
            i = after
            continue
        ends = [p for p in (text.find("<", after), text.find(">", after)) if p >= 0]
        end = min(ends) if ends else -1
        if end >= 0 and text[end] == ">":
            out.append(" ")
            i = end + 1
        else:
            out.append("< ")
            i = after


def _is_control(c: str) -> bool:
    code = ord(c)
    return code < 0x20 or 0x7F <= code <= 0x9F


def neutralise(text: str) -> str:
    """Text a voice can only read: no markup tag, no control character but newline and
    tab, no `[[` or `]]`."""
    out = []
    previous = None
    for c in _strip_markup(text):
        if _is_control(c) and c not in "\n\t":
            c = " "
        if c in "[]" and previous == c:
            continue
        out.append(c)
        previous = c
    return "".join(out)


def speak(text: str, voice: str = "en-us"):
    """Mono float32 samples in -1..1 and their sample rate."""
    import numpy as np

    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "--stdout", "--", neutralise(text)],
        check=True,
        capture_output=True,
        timeout=30,
    ).stdout
    with wave.open(io.BytesIO(wav)) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return pcm.astype(np.float32) / 32768.0, rate
