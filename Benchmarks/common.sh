# Shared by the benchmark scripts (sourced, not run): the repository root as the working folder, the work
# folder, /usr/bin/time, a release build and its binary (or $MIXWRITE_BIN), and ff (the ffmpeg CLI, quiet).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=Benchmarks/out
mkdir -p "$work"
command -v /usr/bin/time >/dev/null || { apt-get install -y -qq time >/dev/null; }
# MIXWRITE_BIN measures another build (e.g. the previous commit's, to compare before and after in one run).
if [ -n "${MIXWRITE_BIN:-}" ]; then
    bin="$MIXWRITE_BIN"
else
    swift build -c release >/dev/null
    bin="$(swift build -c release --show-bin-path)/mixwrite"
fi
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
# One run of a command: wall seconds, CPU seconds (user + system), peak resident memory in MB.
measure() { /usr/bin/time -f "%e %U %S %M" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024}'; }
