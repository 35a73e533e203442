#!/usr/bin/env bash
# The issue's two reproductions of sound out of its time, made from the corpus (MIXWRITE_CORPUS, default
# ../shared/corpus) and run through blend, concat, remix and render; where the speech is heard is read by
# cross-correlation against the speech file itself (research/audio-place.py):
#  - gap.mkv: a FLAC track whose timestamps jump 2 s at 3 s (the speech's 4.0 s should be heard at 6.0 s);
#  - off7.mkv: a voice track placed 7 s in (its first packet at 7.025 s, the movie's video starting at 0.025 s),
#    which FFmpeg states as starting at 0 (the voice's 1.0 s should be heard at 8.025 s).
# Usage: Benchmarks/timing-repro.sh
set -euo pipefail
source "$(dirname "$0")/common.sh"
corpus=${MIXWRITE_CORPUS:-../shared/corpus}
movie=$corpus/video/chaplin_360p_h264_mp3.mp4 speech=$corpus/audio/speech_22k_mono_30s.wav
dir=$work/timing
mkdir -p "$dir"
ff -t 9 -i "$movie" -t 6 -i "$speech" -filter_complex "[1:a]aresample=48000,asetpts='if(gte(T,3),PTS+2/TB,PTS)'[g]" \
    -map 0:v -map "[g]" -c:v copy -c:a flac "$dir/gap.mkv"
ff -t 12 -i "$movie" -itsoffset 7 -i "$speech" -map 0:v -map 0:a -map 1:a -c copy "$dir/off7.mkv"
fx=Fixtures/fx.mov
for case in "gap.mkv 4 6.000" "off7.mkv 1 8.025"; do
    set -- $case
    name=$1 from=$2 expected=$3
    clip=$(python3 -c "print(round(float('$(ffprobe -v error -show_entries format=duration -of csv=p=0 Fixtures/base.mov)'), 3))")
    cat > "$dir/${name%.mkv}.py" <<PY
import sys, opentimelineio as otio
T = lambda v: otio.opentime.RationalTime(v, 25)
tl = otio.schema.Timeline(name="t")
v = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
tl.tracks.append(v)
v.append(otio.schema.Clip(name="c", media_reference=otio.schema.ExternalReference(target_url="$PWD/$dir/$name"),
                          source_range=otio.opentime.TimeRange(T(0), T(225))))
otio.adapters.write_to_file(tl, sys.argv[1])
PY
    python3 "$dir/${name%.mkv}.py" "$dir/${name%.mkv}.otio"
    for kind in remix blend concat render; do
        out=$dir/${name%.mkv}-$kind.mp4 shift=0
        # off7.mkv's film music (its first track) is muted where it is read, so that the voice is read alone.
        music() { [ "$name" = off7.mkv ] && echo "--mute $1:1"; }
        case $kind in
            remix) "$bin" remix "$dir/$name" $(music movie) -o "$out" -y --progress none -q ;;
            blend) "$bin" "$fx" "$dir/$name" --mute fx $(music base) -o "$out" -y --progress none -q ;;
            concat) "$bin" concat Fixtures/base.mov "$dir/$name" --mute clip1 $(music clip2) -o "$out" -y --progress none -q; shift=$clip ;;
            render) "$bin" render "$dir/${name%.mkv}.otio" $(music clip1) -o "$out" -y --progress none -q ;;
        esac
        read -r at score < <(python3 research/audio-place.py "$speech" "$out" --from "$from" --length 0.5 \
            | python3 -c "import json,sys; p = json.load(sys.stdin); print(round(p['at'] - $shift, 4), round(p['score'], 3))")
        echo "$name $kind: the speech's $from s heard at $at s (expected $expected; correlation $score)"
    done
done
