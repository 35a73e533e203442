#!/usr/bin/env bash
# Runs the test suite (its arguments go to `swift test`) and fails the run, even when every test passed, if:
#  - no test ran (a filter that matched nothing, a target that recorded nothing);
#  - a test was skipped without a reason, or for a reason .ci/allowed-skips does not list (MIXWRITE_ALLOWED_SKIPS
#    adds patterns, separated by ';': the Debian 13 and sid suites allow the browser's and the scheduler's absence).
# A skip that is right is `.enabled(if:)` with its reason; this is where the reasons CI accepts are written down.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || exit "$status"

ran=$(grep -aEo 'Test run with [0-9]+ tests?' "$log" | grep -Eo '[0-9]+' | tail -n 1)
if [ "${ran:-0}" -eq 0 ]; then
    echo "run-tests: no test ran" >&2
    exit 1
fi
allowed=$( (grep -v '^#' .ci/allowed-skips | cut -d'|' -f1; printf '%s\n' "${MIXWRITE_ALLOWED_SKIPS:-}" | tr ';' '\n') \
    | sed -e 's/[[:space:]]*$//' -e '/^$/d')
# Not root: the tests that need root (a one-node Slurm cluster, a tmpfs for the full disk) may skip; CI runs as root.
if [ "$(id -u)" -ne 0 ]; then allowed+=$'\nand root\nneeds root'; fi
bad=0
while IFS= read -r line; do
    reason=$(printf '%s' "$line" | sed -n 's/.* skipped: "\(.*\)"$/\1/p')
    if [ -z "$reason" ]; then
        echo "run-tests: skipped without a reason: $line" >&2
        bad=1
        continue
    fi
    ok=0
    while IFS= read -r p; do
        [ -n "$p" ] && case "$reason" in *"$p"*) ok=1 ;; esac
    done <<< "$allowed"
    if [ "$ok" -eq 0 ]; then
        echo "run-tests: a skip .ci/allowed-skips does not allow: $line" >&2
        bad=1
    fi
done < <(grep -aE 'Test ".*" skipped(:|\.|$)' "$log")
[ "$bad" -eq 0 ] || exit 1
echo "run-tests: $ran tests ran; every skip is one .ci/allowed-skips allows" >&2
