"""A text-to-speech node in dora node-hub style (as `dora-kokoro-tts` and its kin do it):
Utf8 `text` in, Float32 `audio` out with `sample_rate` metadata, nothing else.

Offline stand-in: the voice is espeak-ng's. Swap it for any node-hub TTS node by editing
the dataflow (see docs/ARCHITECTURE.md, "dora node-hub conventions").
"""

import pyarrow as pa
from dora import Node

from espeak import speak


def main() -> None:
    node = Node()
    for event in node:
        if event["type"] == "STOP":
            break
        if event["type"] != "INPUT":
            continue
        text = "".join(str(t) for t in event["value"].to_pylist() if t)
        if not text.strip():
            continue
        samples, rate = speak(text, voice="en-us+f2")
        node.send_output("audio", pa.array(samples, type=pa.float32()), {"sample_rate": rate})


if __name__ == "__main__":
    main()
