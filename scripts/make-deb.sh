#!/usr/bin/env bash
# Builds dist/mixwrite_VERSION_ARCH.deb: the release binary with the Swift runtime linked in
# (--static-swift-stdlib), so that it needs only the FFmpeg runtime libraries of the Debian it was built on (5.1's
# libavformat59 … on Debian 12, 7.1's libavformat61 … on 13, 9.0's on sid: each package and version read from dpkg),
# with the man page (argument-parser's generate-manual) and the bash, zsh and fish completions. Run by `make deb`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh deb
command -v dpkg-deb >/dev/null || { echo "make deb needs dpkg-deb (Debian or Ubuntu)" >&2; exit 2; }
swift build -c release --product mixwrite --static-swift-stdlib --scratch-path .build-static
bin=.build-static/release/mixwrite
if ldd "$bin" | grep libswift >/dev/null; then echo "the binary still needs the Swift runtime: $(ldd "$bin" | grep libswift)" >&2; exit 1; fi
swift package --allow-writing-to-package-directory generate-manual >/dev/null
version=$("$bin" --version | awk 'NR == 1 { print $NF }')   # "mixwrite 0.1.0", then the FFmpeg libraries
# The package and upstream version of each FFmpeg library the binary links (libavformat.so.61 → libavformat61 (>= 7:7.1)).
depends=$(for lib in avformat avcodec avfilter swresample swscale avutil; do
    so=$(ldd "$bin" | awk -v l="lib$lib.so" '!found && index($1, l) == 1 { print $3; found = 1 }')
    pkg=$(dpkg -S "$(readlink -f "$so")" 2>/dev/null | awk -F: 'NR == 1 { print $1 }')
    [ -n "$pkg" ] || { echo "cannot tell which package holds $so" >&2; exit 1; }
    upstream=$(dpkg-query -W -f='${Version}' "$pkg" | sed 's/-[^-]*$//')
    printf '%s (>= %s), ' "$pkg" "$upstream"
done)
arch=$(dpkg --print-architecture)
root=.build-static/deb/mixwrite_${version}_${arch}
rm -rf "$root"
install -D -m 755 "$bin" "$root/usr/bin/mixwrite"
strip --strip-unneeded "$root/usr/bin/mixwrite"
install -d "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d" "$root/DEBIAN"
gzip -9n < .build/plugins/GenerateManual/outputs/mixwrite/mixwrite.1 > "$root/usr/share/man/man1/mixwrite.1.gz"
"$bin" --generate-completion-script bash > "$root/usr/share/bash-completion/completions/mixwrite"
"$bin" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_mixwrite"
"$bin" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/mixwrite.fish"
cat > "$root/DEBIAN/control" <<CONTROL
Package: mixwrite
Version: ${version}
Architecture: ${arch}
Maintainer: mixwrite developers <mixwrite@localhost>
Depends: ${depends}libc6, libstdc++6, libgcc-s1
Section: video
Priority: optional
Description: writes a movie from several sources without losing any of their sound
 Chroma-key blends a green-screen clip over a base clip as GPUImage draws it, and mixes every audio track of
 every input; concat, still, remix, probe and batch job files. Built with the Swift runtime linked in.
CONTROL
mkdir -p dist
dpkg-deb --build --root-owner-group "$root" "dist/mixwrite_${version}_${arch}.deb" >/dev/null
echo "dist/mixwrite_${version}_${arch}.deb"
