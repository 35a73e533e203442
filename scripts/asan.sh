#!/usr/bin/env bash
# AddressSanitizer, in two sizes.
#
# `scripts/asan.sh --inputs` (CI, after `make test`): the mixwrite binary alone built with ASan, and the suites that feed
# it hostile and damaged input run against it from the plain test build (which must be built): what an attacker broke,
# damaged fixtures, mutation fuzzing, the corrupt corpus when MIXWRITE_CORPUS is set, bad input. Every
# process those tests start is the ASan binary, so the readers, the demuxers' callbacks and the keyer's C kernels run
# under it on the inputs most likely to break them. About five minutes, where the whole suite is fourteen.
#
# `scripts/asan.sh` (the release check, scripts/release-check.sh): the whole test suite against an ASan build (the
# library in the tests and the binary they run), tests side by side as the plain suite runs them (no test's limit
# counts its siblings' time: HangGuard). MIXWRITE_ASAN_SERIAL=1 runs one test at a time, to read a report without
# others' output between its lines.
#
# Leak reports are off: the only ones seen are XCTest's own runner objects at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
if [ "${1:-}" = --inputs ]; then
    shift
    swift build --sanitize=address --scratch-path .build-asan --disable-default-traits --product mixwrite
    export MIXWRITE_BIN="$(swift build --sanitize=address --scratch-path .build-asan --disable-default-traits --show-bin-path)/mixwrite"
    # The plain build's tests; the processes they start are the ASan binary's. Left out: processes racing for an
    # output, a closed pipe and SIGHUP, and the byte-identical reruns (the processes' own renders run in the rest).
    exec scripts/run-tests.sh --skip-build --filter 'AttackTests|ReliabilityTests|ErrorTests' \
        --skip 'AttackTests/(racingWriters|appearedMeanwhile|racingBatches|pipesAndHangups)|ReliabilityTests/(sync|deterministic|signals)' "$@"
fi
# Built without the tuning page (the TuningPage trait; ARCHITECTURE.md): swift-nio and Hummingbird are not
# compiled under ASan, and the page's tests are the plain build's (below).
swift build --sanitize=address --scratch-path .build-asan --disable-default-traits --build-tests
export MIXWRITE_BIN="$(swift build --sanitize=address --scratch-path .build-asan --disable-default-traits --show-bin-path)/mixwrite"
# The tuning page is not built here: its server and its previews (the page's compositions over the library's
# previews) are tested by the plain build; the library's preview of a blend runs here through `--frame`. The Slurm
# cluster and the shells' completion are left to the plain build too: what they add under
# ASan is the scheduler's and the shells' time; so are the fine keyer's scores, two minutes of numpy and the CLI's peers (its C runs here in
# FineKeyerCheckTests and the other FineKeyerTests), and the twelve transition kinds against the CLI's xfade (285 s here,
# most of it the CLI's own renders; the transitions' kernel runs here in every other TransitionTests test). Left out
# too, to keep CI within its time (RESULTS, "The house"): what checks bytes, not memory, over work the rest repeats:
# every kernel level's whole pictures and recorded renders (the kernel's rows at every width, where a read past a row
# would be, run here: KernelLevelTests' row ends, CKeyKernelTests), a 5-minute render's sync, the byte-identical reruns, the six ProRes profiles
# (each codec runs here). And what measures the keyers' quality, not memory:
# GPUImage's edges against its formula (KeyEdgeTests), the fine keyer's controls, feather, colour and strands (the kernels' rows,
# planes and plates run here at every level in CKeyKernelTests, a whole fine blend in FineKeyerTests), the
# recorded renders' pictures (the same six renders run here for their recorded sound), and render's tests but its
# dissolve-and-gap render, its bundles, its bad timelines and its fuzzing (its layers are the Compositor's and its parts
# the parts', each run here; the round trip of `--otio` is eight lossless renders compared); and smart rendering's
# planning (its reasons, bad packets, an excerpt, GOP boundaries, parts: a placed layer's copies, a concat's and a render's run
# here); where the AAC segments end (the cutter's arithmetic over 43 s of sound; the segments' encoding runs here); and
# processes racing for an output, a closed pipe and SIGHUP, a batch's order, an FCP X library's render and the corpus's
# diamonds (each process's own renders run here in the tests of what they render). The option reference is the
# plain build's: this one has no tuning page, so no `--tune` to list.
order=(); [ "${MIXWRITE_ASAN_SERIAL:-0}" = 1 ] && order=(--no-parallel)
swift test --skip-build --sanitize=address --scratch-path .build-asan --disable-default-traits "${order[@]}" \
    --skip 'Tune(Page|LayerPage|CaptionPage|Kinds|Server|Hardening)Tests|SlurmTests|FineKeyerTests/scores|ScriptingTests/(bashCompletion|zshAndFishCompletion)|TransitionTests/againstTheCLI|KernelLevelTests/levelsAgree|GoldenTests/everyLevel|ReliabilityTests/(sync|deterministic)|CodecTests/proresProfilesTagged|KeyEdgeTests|FineKeyerTests/(controls|featherShowsNoScreen|keepsSubjectColour|strandsKeepAlpha)|GoldenTests/golden\(|RenderTests/(roundTrip|upperTrackAndAudioTrack|otherFormats|page|renderInParts)|SmartRenderTests/(reasons|excerpt|onBoundaries|parts|badPackets)|AudioMixTests/endsInPostRoll|AttackTests/(racingWriters|appearedMeanwhile|racingBatches|pipesAndHangups)|NewUserTests/(dependentJobs|fcpxLibrary|keyColorCorpusDiamonds)|DescriptionTests/optionReference' "$@"
