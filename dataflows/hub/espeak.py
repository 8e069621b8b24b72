"""espeak-ng as a library for the offline stand-in nodes: text in, float32 samples out."""

import io
import subprocess
import wave

import numpy as np


def speak(text: str, voice: str = "en-us") -> tuple[np.ndarray, int]:
    """Mono float32 samples in -1..1 and their sample rate."""
    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "--stdout", "--", text],
        check=True,
        capture_output=True,
        timeout=30,
    ).stdout
    with wave.open(io.BytesIO(wav)) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return pcm.astype(np.float32) / 32768.0, rate
