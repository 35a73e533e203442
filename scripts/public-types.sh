#!/usr/bin/env bash
# Lists MixWrite's public types (nested ones and typealiases included; @_spi ones and those nested in them left
# out): what an embedder sees. ARCHITECTURE.md keeps the count.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import re, glob
names = []
for path in sorted(glob.glob('Sources/MixWrite/**/*.swift', recursive=True)):
    lines = open(path).read().splitlines()
    spi_depth = None   # indentation of an @_spi type we are inside
    for i, line in enumerate(lines):
        m = re.match(r'(\s*)(@_spi\(\w+\)\s+)?public (?:final class|class|struct|enum|protocol|actor|typealias) (\w+)', line)
        if not m:
            continue
        indent = len(m.group(1))
        if spi_depth is not None and indent <= spi_depth:
            spi_depth = None
        # An attribute on the line before counts when it is the line's whole text (not another declaration's).
        spi = m.group(2) or (i > 0 and re.fullmatch(r'@_spi\(\w+\)', lines[i - 1].strip()))
        if spi:
            if spi_depth is None:
                spi_depth = indent
            continue
        if spi_depth is not None and indent > spi_depth:
            continue
        names.append(m.group(3))
print(len(names), 'public types:', ' '.join(sorted(names)))
PY
