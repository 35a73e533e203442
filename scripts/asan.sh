#!/usr/bin/env bash
# The whole test suite against an AddressSanitizer build of mixwrite (the library in the tests and the
# binary they run), tests side by side as the plain suite runs them (one at a time took 27 minutes of CI's 45; no
# test's limit counts its siblings' time: HangGuard). MIXWRITE_ASAN_SERIAL=1 runs one test at a time, to read a
# report without others' output between its lines. Leak reports are off: the only ones seen are XCTest's own runner
# objects at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests --sanitize=address --scratch-path .build-asan
export MIXWRITE_BIN="$(swift build --sanitize=address --scratch-path .build-asan --show-bin-path)/mixwrite"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
# The pages in chromium, the Slurm cluster and the shells' completion are left to the plain build: what they add under
# ASan is the browser's, the scheduler's and the shells' time (the server's and the previews' code runs here through the
# raw-HTTP tests); so are the fine keyer's scores, two minutes of numpy and the CLI's peers (its C runs here in
# FineKeyerCheckTests and the other FineKeyerTests), and the twelve transition kinds against the CLI's xfade (285 s here,
# most of it the CLI's own renders; the transitions' kernel runs here in every other TransitionTests test). Left out
# too, to keep CI within its time (RESULTS: "CI's time"): what checks bytes, not memory, over work the rest repeats:
# every kernel level's whole pictures and recorded renders (the kernel's rows at every width, where a read past a row
# would be, run here: KernelLevelTests' row ends, CKeyKernelTests), a 5-minute render's sync, the byte-identical reruns, the six ProRes profiles
# (each codec runs here), and the tuning server against a hostile peer (HTTP framing and limits, mostly waiting out its
# timeouts; its requests' own checks run here in TuneServerTests). And what measures the keyers' quality, not memory:
# GPUImage's edges against its formula (KeyEdgeTests), the fine keyer's controls, feather and colour (the kernels' rows,
# planes and plates run here at every level in CKeyKernelTests, a whole fine blend in FineKeyerTests), the
# recorded renders' pictures (the same six renders run here for their recorded sound), and render's tests but its
# dissolve-and-gap render, its bad timelines and its fuzzing (its layers are the Compositor's, its parts the parts'
# and its page the pages', each run here; the round trip of `--otio` is eight lossless renders compared).
order=(); [ "${MIXWRITE_ASAN_SERIAL:-0}" = 1 ] && order=(--no-parallel)
swift test --skip-build --sanitize=address --scratch-path .build-asan "${order[@]}" \
    --skip 'TunePageTests|TuneLayerPageTests|TuneKindsTests/((concat|concatTransition|still|remix|render)Page|layoutAtWidths)|SlurmTests|FineKeyerTests/scores|ScriptingTests/(bashCompletion|zshAndFishCompletion)|TransitionTests/againstTheCLI|KernelLevelTests/levelsAgree|GoldenTests/everyLevel|ReliabilityTests/(sync|deterministic)|CodecTests/proresProfilesTagged|TuneHardeningTests|KeyEdgeTests|FineKeyerTests/(controls|featherShowsNoScreen|keepsSubjectColour)|GoldenTests/golden\(|RenderTests/(roundTrip|upperTrackAndAudioTrack|otherFormats|page|renderInParts)' "$@"
