#!/usr/bin/env bash
# Installs what a fresh machine lacks and builds every binary. Idempotent: a second run
# only checks. Safe to call from other scripts.
#
#   scripts/setup.sh
#
# Installs: a C toolchain, Python venv support, espeak-ng, alsa-utils and pocketsphinx
# (apt, when missing), the dora CLI 1.1.0
# into .venv (matching dora-node-api 1.1), and the workspace in the release profile that
# the dataflows and the tests share.
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
# espeak-ng (the offline voice), alsa-utils (aplay, the sound device) and pocketsphinx
# with its en-us model (the offline speech recognizer).
missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v aplay >/dev/null 2>&1 || missing+=(alsa-utils)
command -v pocketsphinx_continuous >/dev/null 2>&1 || command -v pocketsphinx >/dev/null 2>&1 || missing+=(pocketsphinx)
[ -d /usr/share/pocketsphinx/model/en-us ] || missing+=(pocketsphinx-en-us)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
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

# Every node binary and tool, once, in the profile the dataflows run.
log "building the workspace (release)"
cargo build --release --workspace --quiet
log "ready: binaries in target/release, dora CLI at .venv/bin/dora"
