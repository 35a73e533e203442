#!/usr/bin/env bash
# Builds mixwrite and runs its test suite in a minimal system of another Debian release, against that release's
# FFmpeg: `scripts/debian-suite.sh trixie` (Debian 13, FFmpeg 7.1) or `scripts/debian-suite.sh sid` (FFmpeg 9.0).
# `scripts/debian-suite.sh SUITE shell` opens a shell there instead; `... SUITE -- CMD ARGS` runs one command;
# `... SUITE prepare` only makes the system and installs its packages.
# `... SUITE headers` makes no system: it fetches that release's FFmpeg -dev packages alone (apt, into a temporary
# folder) and type-checks the C shim (warnings are errors) and every Swift file of FFmpegSupport and MixWrite against
# their headers, with the plain build's CKeyKernel module map (`swift build` first). .ci/run does this for trixie and
# sid: about half a minute each, where the whole suite there is five (scripts/release-check.sh runs that).
#
# The system is made once with `debootstrap --variant=minbase` from the machine's own Debian mirror and kept in
# $MIXWRITE_SYSTEMS (default /var/cache/mixwrite/SUITE) for the next run; its packages are brought up to date
# (`apt-get upgrade`) only when MIXWRITE_SYSTEMS_UPGRADE=1. FFmpeg's -dev packages, ffmpeg and pkg-config are
# installed there by the project's own scripts/install-deps.sh, as on any machine; the rest is what the Swift
# toolchain needs to compile and link. The toolchain itself is this machine's /opt/swift (or `swift` on PATH),
# bound in read-only: it is built for Debian 12, and the few libraries of Debian 12 it links that a newer release
# no longer has (ICU 72; sid's libxml2 soname 16, not 2) are copied from this machine into
# /opt/mixwrite-toolchain-libs there and put on the toolchain's LD_LIBRARY_PATH alone (their sonames are ones
# the release lacks, so nothing of the release resolves to them).
#
# What runs there: mixwrite and its tests built without the tuning page (`--disable-default-traits`, the products
# mixwrite and mixwritePackageTests: swift-nio and Hummingbird, which no FFmpeg changes, are not compiled there, 1.5
# to 2 minutes of a new system's build) and `swift test` (into /build of the system, kept between runs, so a
# new clone rebuilds mixwrite and not its packages), with the release's ffmpeg/ffprobe as the oracle. Left to the
# Debian 12 run (`make test` on the machine itself): the Slurm tests (a one-node cluster wants its daemons, cgroups
# and a host name of a real system; in a plain chroot they hung) and the tuning page in headless chromium (a browser
# of the release's own with its sandbox, not tried in a chroot): slurm-wlm and chromium are not installed in the
# release's system, so those tests say why and are skipped. Everything else of the suite runs.
#
# Needs root (debootstrap, chroot and mounts); every mount is made in a private mount namespace (`unshare -m`), so
# nothing stays mounted when the run ends, however it ends.
set -euo pipefail
suite=${1:?usage: scripts/debian-suite.sh trixie|sid [prepare | headers | shell | -- command args]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${MIXWRITE_SYSTEMS:-/var/cache/mixwrite}
root="$cache/$suite"
# MIXWRITE_CORPUS (a folder of this machine) is bound in at /corpus, for the tests that read it; unset, they say so.
corpus=""
if [ -n "${MIXWRITE_CORPUS:-}" ]; then corpus=$(cd "$MIXWRITE_CORPUS" && pwd); fi

# The FFmpeg a release ships, its headers only, against the shim and the Swift that calls it.
check_headers() {
    local dir opts multiarch inc version mods
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' RETURN
    mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/root" "$dir/debs"
    echo "deb [trusted=yes] $mirror $suite main" >"$dir/sources.list"
    opts=(-o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$dir/lists"
          -o Dir::Cache="$dir/cache" -o Acquire::Check-Valid-Until=false -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
    apt-get "${opts[@]}" update -qq
    (cd "$dir/debs" && apt-get "${opts[@]}" download -qq libavformat-dev libavcodec-dev libavfilter-dev \
        libswresample-dev libswscale-dev libavutil-dev)
    for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
    multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
    inc=("$dir/root/usr/include/$multiarch" "$dir/root/usr/include")
    version=$(awk '/define LIBAVCODEC_VERSION_MAJOR/ { print $3 }' "${inc[0]}/libavcodec/version_major.h" 2>/dev/null \
              || awk '/define LIBAVCODEC_VERSION_MAJOR/ { print $3 }' "${inc[1]}/libavcodec/version_major.h")
    echo "debian-suite: $suite's FFmpeg headers (libavcodec $version): the shim and the Swift that calls FFmpeg" >&2
    clang -fsyntax-only -Werror -Wall -Wno-unused-function -x c -I"${inc[0]}" -I"${inc[1]}" "$here/Sources/CFFmpeg/shim.h"
    mods="$dir/modules"
    mkdir -p "$mods"
    local swift_flags=(-swift-version 6 -package-name mixwrite -I "$here/Sources/CFFmpeg" -Xcc -I"${inc[0]}" -Xcc -I"${inc[1]}")
    swiftc -emit-module -module-name FFmpegSupport "${swift_flags[@]}" -emit-module-path "$mods/FFmpegSupport.swiftmodule" \
        $(find "$here/Sources/FFmpegSupport" -name '*.swift')
    swiftc -typecheck -module-name MixWrite "${swift_flags[@]}" -I "$mods" \
        -I "$(cd "$here" && swift build --show-bin-path)/CKeyKernel.build" -Xcc -I"$here/Sources/CKeyKernel/include" \
        $(find "$here/Sources/MixWrite" -name '*.swift')
}
if [ "$(id -u)" -ne 0 ]; then
    echo "error: scripts/debian-suite.sh needs root (debootstrap, chroot, mount)" >&2
    exit 1
fi
swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
toolchain=$(cd "$swift_bin/../.." && pwd)   # /opt/swift for /opt/swift/usr/bin/swift

# The machine's own Debian mirror (its deb822 or one-line sources), else Debian's.
mirror=$(sed -n 's/^URIs: *\([^ ]*debian\)\/\?$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | awk 'NR == 1')
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
if [ "${1:-}" = headers ]; then check_headers; exit 0; fi

if ! command -v debootstrap >/dev/null; then
    echo "installing: debootstrap" >&2
    # Another apt of this machine may hold its lock a while (.ci/run prepares the systems beside other work): wait.
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap >/dev/null
fi

# What the Swift toolchain needs in the system to compile, link and resolve packages (FFmpeg's part is
# install-deps.sh's). libcurl's name differs between releases: it is looked up below.
toolchain_packages=(git gcc g++ libc6-dev binutils make libsqlite3-0 libncurses6 zlib1g libedit2 procps python3 python3-jsonschema)

make_system() {
    echo "debian-suite: making a minimal Debian $suite in $root (debootstrap, from $mirror)" >&2
    rm -rf "$root.tmp"
    mkdir -p "$cache"
    debootstrap --variant=minbase "$suite" "$root.tmp" "$mirror" >"$cache/$suite.debootstrap.log" 2>&1 || {
        tail -n 20 "$cache/$suite.debootstrap.log" >&2
        echo "error: debootstrap $suite failed (log: $cache/$suite.debootstrap.log)" >&2
        exit 1
    }
    # sid's Release file on a snapshot mirror is past its Valid-Until; the archive is still the one asked for.
    echo 'Acquire::Check-Valid-Until "false";' >"$root.tmp/etc/apt/apt.conf.d/99mixwrite-valid-until"
    # No daemon of a package starts in the system.
    printf '#!/bin/sh\nexit 101\n' >"$root.tmp/usr/sbin/policy-rc.d"
    chmod 755 "$root.tmp/usr/sbin/policy-rc.d"
    mv "$root.tmp" "$root"
}

[ -x "$root/usr/bin/apt-get" ] || make_system
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
cp /etc/gitconfig "$root/etc/gitconfig" 2>/dev/null || true   # where git finds the packages' copies, if it says
mkdir -p "$root/src" "$root$toolchain" "$root/opt/swift-packages" "$root/opt/mixwrite-toolchain-libs"

# Runs a command in the system: a private mount namespace, the tree at /src, the toolchain and the packages'
# copies read-only, the toolchain's own libraries (below) on LD_LIBRARY_PATH.
enter() {
    root="$root" here="$here" toolchain="$toolchain" corpus="$corpus" unshare --mount --propagation private -- /bin/bash -c '
        set -e
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount --rbind /sys "$root/sys"
        mount --bind "$here" "$root/src"
        mount --bind "$toolchain" "$root$toolchain"; mount -o remount,bind,ro "$root$toolchain"
        if [ -n "$corpus" ]; then mkdir -p "$root/corpus"; mount --bind "$corpus" "$root/corpus"; fi
        if [ -d /opt/swift-packages ]; then
            mount --bind /opt/swift-packages "$root/opt/swift-packages"; mount -o remount,bind,ro "$root/opt/swift-packages"
        fi
        exec chroot "$root" /usr/bin/env -i PATH="$toolchain/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin" HOME=/root \
            LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" DEBIAN_FRONTEND=noninteractive \
            LD_LIBRARY_PATH=/opt/mixwrite-toolchain-libs MIXWRITE_CORPUS="${corpus:+/corpus}" /bin/bash -c "cd /src && exec \"\$@\"" inner "$@"
    ' inner "$@"
}

# The toolchain's packages, then the project's own install-deps.sh (FFmpeg's), as on any machine.
stamp="$root/.mixwrite-packages"
want="${toolchain_packages[*]} | $(sha1sum "$here/scripts/install-deps.sh" | cut -c1-12)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || [ "${MIXWRITE_SYSTEMS_UPGRADE:-0}" = 1 ]; then
    enter apt-get update -qq
    [ "${MIXWRITE_SYSTEMS_UPGRADE:-0}" = 1 ] && enter apt-get upgrade -y -qq >/dev/null
    enter apt-get install -y -qq --no-install-recommends "${toolchain_packages[@]}" >/dev/null
    # libcurl's package is libcurl4 or libcurl4t64 (the 64-bit time_t transition), whichever the release has.
    curl_pkg=libcurl4
    enter apt-cache show libcurl4t64 >/dev/null 2>&1 && curl_pkg=libcurl4t64
    enter apt-get install -y -qq --no-install-recommends "$curl_pkg" >/dev/null
    enter scripts/install-deps.sh
    echo "$want" >"$stamp"
fi

# Libraries the toolchain's programs link that the release lacks: copied from this machine, with theirs, until
# none is missing.
libs="$root/opt/mixwrite-toolchain-libs"
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
for _ in 1 2 3 4; do
    missing=$(enter bash -c 'for b in "$0"/usr/bin/swift-build "$0"/usr/bin/swift-frontend "$0"/usr/bin/swift-driver \
                                 "$0"/usr/bin/clang "$0"/usr/bin/ld.lld "$0"/usr/bin/ld.gold; do
                                 [ -e "$b" ] && ldd "$b"; done | awk "/not found/ { print \$1 }" | sort -u' "$toolchain")
    [ -n "$missing" ] || break
    for so in $missing; do
        # awk reads ldconfig's whole list (no `exit` at the first match): a reader that stops early kills ldconfig
        # with SIGPIPE, which pipefail and set -e turn into the end of the run (exit 141, seen on a new machine).
        src=$(ldconfig -p | awk -v so="$so" -v ma="$multiarch" '!found && $1 == so && index($NF, ma) { print $NF; found = 1 }')
        [ -n "$src" ] || { echo "error: the toolchain needs $so, which neither $suite nor this machine has" >&2; exit 1; }
        echo "debian-suite: $so for the toolchain, from this machine ($src)" >&2
        cp -L "$src" "$libs/$so"
    done
done

# The build folder lives in the system, not in this tree (/build there), so that a new clone (CI's) rebuilds only
# mixwrite and not its packages; `-- CMD` finds the binary at /build/debug/mixwrite.
scratch=/build
# The skips this system may have beyond .ci/allowed-skips: what it does not install (the browser, the scheduler, python's
# jsonschema and numpy: the keyers' ground truth, zsh and fish: their completion, espeak-ng and scipy: the sync's truth
# set) and cannot do (mount a tmpfs inside the namespace): those tests run in the Debian 12 suite.
allowed="chromium and chromium-driver;slurm-wlm (slurmctld;python3 with jsonschema is not installed;python3-numpy is not installed;opentimelineio is not installed;cannot mount a small tmpfs here;zsh and fish are not installed;espeak-ng"
# What does not depend on the release's FFmpeg, left to the Debian 12 run (CI's time: RESULTS): the keyer's C kernel
# against its scalar reference at every level and its whole pictures level by level (the same compiler, the same
# code, plain memory), the sources' rules, the description of the jobs (schema, --help) and MediaTime's arithmetic;
# and the twelve transitions against the CLI's xfade (the transitions are mixwrite's own C, the same on every FFmpeg;
# every other transition test runs here; the CLI of 7.1 and 9.0 agreed with them on 2026-11-27, `scripts/debian-suite.sh
# SUITE -- swift test --scratch-path /build --filter againstTheCLI` asks again); and the keyers' own arithmetic over
# decoded pictures (GPUImage's edges, the key's tuning, the fine keyer's controls) and the tuning server against a
# hostile peer (HTTP framing and limits): the decoding, scaling and encoding they pass through is each release's in the
# goldens, the blend, alpha, codec and colour tests that run here; the OTIO reader's fuzzing (JSON, not media); and smart
# rendering's reasons, bad packets, an excerpt's spans and a layer on GOP boundaries (its own planning; the copies, their decoding
# and seeking, a concat's, a render's and the parts' are tested here); where the AAC segments end (the cutter's arithmetic);
# job files fuzzed, writers racing for an output, hostile numbers, closed pipes and signals, a batch's order, a track's name
# and bash's completion (the process's and the job file's logic, no FFmpeg of theirs).
# The tuning page is not built here (above): its tests (the server, each kind's page, a render's) are the Debian 12
# run's; the pictures it shows are the previews' and `--frame`'s code, whose renders run here.
same_everywhere='CKeyKernelTests|JobFileFuzzTests|AttackTests/(racingWriters|appearedMeanwhile|racingBatches|hostileNumbers|inflationBomb|pipesAndHangups|newlineInName)|NewUserTests/(missingTrack|dependentJobs|bashCompletionAsTyped)|SmartRenderTests/(reasons|excerpt|onBoundaries|badPackets)|AudioMixTests/endsInPostRoll|KernelLevelTests/levelsAgree|GoldenTests/everyLevel|SourceRulesTests|DescriptionTests|MediaTimeTests|TransitionTests/againstTheCLI|KeyEdgeTests|KeyTuningTests|FineKeyerTests|TuneHardeningTests|OTIOFuzzTests|TuneServerTests|TuneKindsTests|TunePageTests|TuneLayerPageTests|TuneCaptionPageTests|RenderTests/page'
case "${1:-}" in
    prepare) exit 0 ;;
    shell) inner=(bash -l) ;;
    --) shift; inner=("$@") ;;
    "") inner=(bash -c "set -e
        sed 's/^/debian-suite: Debian /' /etc/debian_version
        ffmpeg -hide_banner -version | sed -n '1s/^/debian-suite: /p'
        swift build --disable-default-traits --scratch-path $scratch --build-tests
        MIXWRITE_BIN=$scratch/debug/mixwrite MIXWRITE_ALLOWED_SKIPS=\"$allowed\" scripts/run-tests.sh --skip-build --disable-default-traits --scratch-path $scratch \
            --skip '$same_everywhere'") ;;
    *) echo "usage: scripts/debian-suite.sh trixie|sid [prepare | headers | shell | -- command args]" >&2; exit 2 ;;
esac

enter "${inner[@]}"
