#!/usr/bin/env bash
# The OTIO reader fuzzed at length: OTIOFuzzTests' seeded mutation loop over 100,000 cases (the suite runs 3,000),
# each mutated timeline read, laid out and one in twenty planned as a render; a crash or a hang fails it.
# `scripts/fuzz-otio.sh [CASES]`. Under ASan: `MIXWRITE_FUZZ_CASES=N scripts/asan.sh` runs the same test there.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
MIXWRITE_FUZZ_CASES=${1:-100000} timeout 3600 swift test --skip-build --filter "OTIOFuzzTests|JobFileFuzzTests"
