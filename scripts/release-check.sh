#!/usr/bin/env bash
# What CI leaves out to stay within its time on a 2-core machine, run before a release and after a change to the
# FFmpeg shim, the readers or a sanitizer's finding (RESULTS' "The house" records each run: date, commit, minutes):
#  - the benchmarks package built (its harness compiled with the library's Benchmarks trait);
#  - the whole suite under AddressSanitizer (CI runs the hostile-input suites against an ASan binary);
#  - the suite against FFmpeg 7.1 (Debian 13) and 9.0 (Debian sid), each in a minimal Debian of that release
#    (scripts/debian-suite.sh; CI type-checks the FFmpeg-facing code against those releases' headers only);
#  - the tests that read the corpus of real media (MIXWRITE_CORPUS, default ../shared/corpus when it is there), and its
#    corrupt files against the ASan binary.
# About forty-five minutes on a quiet 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { printf 'release-check: %-22s done at %d:%02d\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)) >&2; }
if [ -z "${MIXWRITE_CORPUS:-}" ] && [ -d ../shared/corpus ]; then
    export MIXWRITE_CORPUS="$(cd ../shared/corpus && pwd)"
fi
scripts/install-deps.sh test
if [ -n "${MIXWRITE_CORPUS:-}" ]; then
    swift build --build-tests
    MIXWRITE_BIN="$(swift build --show-bin-path)/mixwrite" scripts/run-tests.sh --skip-build --filter '[Cc]orpus'
    stage "the corpus (Debian 12)"
    scripts/asan.sh --inputs
    stage "ASan: hostile input, corpus"
fi
(cd Benchmarks && swift build)
stage "benchmarks package"
MIXWRITE_CORPUS= scripts/asan.sh
stage "ASan suite"
scripts/debian-suite.sh trixie
stage "Debian 13 suite"
scripts/debian-suite.sh sid
stage "sid suite"
