#!/usr/bin/env bash
# Builds dist/mixwrite_VERSION_ARCH.deb: the release binary with the Swift runtime linked in
# (--static-swift-stdlib), so that it needs only Debian's FFmpeg 5.1 runtime libraries, with the man page
# (argument-parser's generate-manual) and the bash, zsh and fish completions. Run by `make deb`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh deb
command -v dpkg-deb >/dev/null || { echo "make deb needs dpkg-deb (Debian or Ubuntu)" >&2; exit 2; }
swift build -c release --product mixwrite --static-swift-stdlib --scratch-path .build-static
bin=.build-static/release/mixwrite
if ldd "$bin" | grep -q libswift; then echo "the binary still needs the Swift runtime: $(ldd "$bin" | grep libswift)" >&2; exit 1; fi
swift package --allow-writing-to-package-directory generate-manual >/dev/null
version=$("$bin" --version)
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
Depends: libavformat59 (>= 7:5.1), libavcodec59 (>= 7:5.1), libavfilter8 (>= 7:5.1), libswresample4 (>= 7:5.1), libswscale6 (>= 7:5.1), libavutil57 (>= 7:5.1), libc6, libstdc++6, libgcc-s1
Section: video
Priority: optional
Description: writes a movie from several sources without losing any of their sound
 Chroma-key blends a green-screen clip over a base clip as GPUImage draws it, and mixes every audio track of
 every input; concat, still, remix, probe and batch job files. Built with the Swift runtime linked in.
CONTROL
mkdir -p dist
dpkg-deb --build --root-owner-group "$root" "dist/mixwrite_${version}_${arch}.deb" >/dev/null
echo "dist/mixwrite_${version}_${arch}.deb"
