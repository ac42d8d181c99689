#!/bin/bash
# Fermata beside MPD on MP3, AAC (M4A) and Opus, in one run (issue 23): first scan and no-change rescan of a
# generated 20,000-track MP3 library and a 5,000-track M4A library, CPU per audio second playing a long file of each
# format (with the command-line decoders beside as the floor), and the daemons' RSS in each; one table at the end.
#
#   Tests/Tools/lossy-bench.sh                   # the full run: about 5 min, plus 2-3 min the first time (making files)
#   Tests/Tools/lossy-bench.sh --tracks 2000 --m4a 500 --cpu-seconds 60 --reps 1   # a quick look
#
# Options (the rest go to lossy-bench.py; `Tests/Tools/lossy-bench.sh --help` lists them all):
#   --bin DIR        where fermatad is (default .build/release when it has one, else .build/debug)
#   --work DIR       generated libraries (kept and reused), state dirs, results (default /tmp/fermata-lossy-bench)
#   --tracks N --m4a N     library sizes (default 20000 and 5000)
#   --cpu-seconds N  length of the long files played for CPU (default 600)
#   --reps N --rescans N --cpu-reps N     repetitions (default 3 each)
#   --paced-window S also CPU on the paced null output, S seconds per play
#   --tests scan,cpu,floor    a subset (gen: only make the libraries and long files)
#   --mpd-mp3 mpg123 MPD with its mad plugin off, so it decodes MP3 with libmpg123 as Fermata does
# Needs: ./deploy/build-deps.sh --bench (mpd, mpc, python3-mpd, python3-mutagen, lame, mpg123, ffmpeg, opus-tools).
# Uses ../shared/bench/mpd-compare (bench.py's daemons, MPD configuration, ALSA null PCM and /proc readers;
# gen-library.py's names). Nothing is built: build fermatad first (swift build -c release --product fermatad).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=""
mpd_compare="$repo/../shared/bench/mpd-compare"
pass=()
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --mpd-compare) mpd_compare=$2; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; echo; /usr/bin/python3 "$here/lossy-bench.py" --help; exit 0 ;;
        *) pass+=("$1"); shift ;;
    esac
done
if [ -z "$bin" ]; then
    if [ -x "$repo/.build/release/fermatad" ]; then bin="$repo/.build/release"; else bin="$repo/.build/debug"; fi
fi
[ -x "$bin/fermatad" ] || { echo "lossy-bench: no fermatad in $bin (build it first, or give --bin DIR)" >&2; exit 2; }
case "$(realpath "$bin/fermatad")" in
    */debug/*) echo "lossy-bench: WARNING: $bin/fermatad is a debug build; its figures say little" >&2 ;;
esac
[ -f "$mpd_compare/bench.py" ] || { echo "lossy-bench: no $mpd_compare/bench.py (--mpd-compare DIR)" >&2; exit 2; }
missing=()
for tool in mpd mpc lame mpg123 ffmpeg opusenc opusdec; do
    command -v "$tool" > /dev/null || missing+=("$tool")
done
/usr/bin/python3 -c 'import mpd, mutagen' 2> /dev/null || missing+=("python3-mpd/python3-mutagen")
if [ ${#missing[@]} -gt 0 ]; then
    echo "lossy-bench: missing ${missing[*]}: run ./deploy/build-deps.sh --bench" >&2
    exit 2
fi
export PYTHONDONTWRITEBYTECODE=1  # mpd-compare is read-only; keep no caches beside this script either
exec /usr/bin/python3 "$here/lossy-bench.py" --fermatad "$bin/fermatad" --mpd-compare "$mpd_compare" "${pass[@]}"
