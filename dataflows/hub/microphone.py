"""A microphone in dora node-hub style (as `dora-microphone` sends it): Float32 blocks of
16 kHz mono audio on `audio`, no metadata, one block per `tick`.

Offline stand-in for a sound card: it "hears" SPEAK (espeak-ng's voice) after
SPEAK_AFTER_SECS of silence, then silence again. Swap it for the real node-hub microphone
by editing the dataflow (see docs/ARCHITECTURE.md, "dora node-hub conventions").
"""

import os

import numpy as np
import pyarrow as pa
from dora import Node

from espeak import speak

RATE = 16_000


def speech(text: str) -> np.ndarray:
    samples, rate = speak(text)
    # To 16 kHz, as a microphone node delivers it.
    positions = np.arange(0, len(samples), rate / RATE)
    return np.interp(positions, np.arange(len(samples)), samples).astype(np.float32)


def main() -> None:
    text = os.environ.get("SPEAK", "Can you show me a derivative with actual numbers?")
    after = float(os.environ.get("SPEAK_AFTER_SECS", "1"))
    block = RATE // 50  # 20 ms per tick
    silence = np.zeros(int(RATE * after), dtype=np.float32)
    stream = np.concatenate([silence, speech(text)])
    position = 0
    node = Node()
    for event in node:
        if event["type"] == "STOP":
            break
        if event["type"] != "INPUT" or event["id"] != "tick":
            continue
        chunk = stream[position : position + block]
        position += block
        if len(chunk) < block:
            chunk = np.concatenate([chunk, np.zeros(block - len(chunk), dtype=np.float32)])
        node.send_output("audio", pa.array(chunk, type=pa.float32()))


if __name__ == "__main__":
    main()
