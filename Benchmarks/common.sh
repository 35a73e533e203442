# Shared by the benchmark scripts (sourced, not run): the repository root as the working folder, the work
# folder, /usr/bin/time, a release build and its binary, and ff (the ffmpeg CLI, quiet).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=Benchmarks/out
mkdir -p "$work"
command -v /usr/bin/time >/dev/null || { apt-get install -y -qq time >/dev/null; }
swift build -c release >/dev/null
bin="$(swift build -c release --show-bin-path)/mixwrite"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
