#!/usr/bin/env bash
# Runs every test: formatting, lints, unit and property tests, node tests in dora's
# integration-testing mode, and end-to-end runs of the dataflows through the dora CLI.
#
#   scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
    -h | --help)
        sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    "") ;;
    *)
        echo "scripts/test.sh takes no arguments (try --help)" >&2
        exit 2
        ;;
esac

scripts/setup.sh
echo "== cargo fmt --check" >&2
cargo fmt --all --check
echo "== cargo clippy" >&2
cargo clippy --release --workspace --all-targets --quiet -- -D warnings
echo "== cargo test" >&2
cargo test --release --workspace
