#!/usr/bin/env bash
# A first look at the jukebox: installs what Fermata needs (nothing when it is there), builds fermatad and fermata,
# and runs fermatad in the foreground with places of your own — state in ${XDG_STATE_HOME:-~/.local/state}/fermata,
# the socket in $XDG_RUNTIME_DIR/fermata (else beside the state) — playing the folder you name, else ~/Music, else a
# generated demo library (three short albums, one of them a practice piece with a BPM tag). The sound card if there is
# one, else the paced null output (real time, discarded). Controls are off unless FERMATA_BOARD names a board.
# Ctrl-C stops it cleanly (state saved); run it again and it resumes where it was.
#
#   ./deploy/try-fermata.sh [MUSIC-FOLDER]
#
# Environment: FERMATA_LISTEN (TCP address for MPD clients, default 127.0.0.1:6600; empty: none), FERMATA_BOARD,
# FERMATA_BIN_DIR (use fermatad and fermata from there instead of building; the tests use it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [ -n "${FERMATA_BIN_DIR:-}" ]; then
    bin=$FERMATA_BIN_DIR
else
    ./deploy/build-deps.sh
    swift build -c release --product fermatad >&2
    swift build -c release --product fermata >&2
    bin=$root/.build/release
fi

state=${XDG_STATE_HOME:-$HOME/.local/state}/fermata
if [ -n "${XDG_RUNTIME_DIR:-}" ]; then socket=$XDG_RUNTIME_DIR/fermata/mpd.sock; else socket=$state/mpd.sock; fi
listen=${FERMATA_LISTEN-127.0.0.1:6600}
mkdir -p "$state"

# The music: the folder named, else ~/Music when it holds audio, else the demo library (made once).
# Every format Fermata plays, by the extensions owners' files carry (fermatad itself recognises files by content).
audio_names=(-iname '*.flac' -o -iname '*.mp3' -o -iname '*.m4a' -o -iname '*.m4b' -o -iname '*.mp4' -o -iname '*.aac'
             -o -iname '*.opus' -o -iname '*.ogg' -o -iname '*.oga' -o -iname '*.wav')
has_audio() { [ -d "$1" ] && [ -n "$(find -L "$1" -type f \( "${audio_names[@]}" \) -print -quit 2>/dev/null)" ]; }
if [ $# -gt 0 ]; then
    music=$(cd "$1" && pwd)
elif has_audio "$HOME/Music"; then
    music=$HOME/Music
else
    music=$state/demo-library
    if ! has_audio "$music"; then
        echo "try-fermata: no music in ~/Music; making a demo library in $music" >&2
        python3 "$root/deploy/make-demo-library.py" "$music"
    fi
fi

# The sound card when ALSA has one, else the paced null output.
output=default
if ! aplay -l 2>/dev/null | grep -q '^card'; then
    output=null
    echo "try-fermata: no sound card found; playing to the paced null output (real time, discarded)" >&2
fi

first_run=yes
[ -f "$state/library.sqlite" ] && first_run=no

cat <<EOF
Fermata is starting: music from $music, state in $state.
From another terminal:
  $bin/fermata status                  what is playing (fermata finds this daemon by itself)
  $bin/fermata queue list              the queue;  fermata queue add FOLDER, fermata next, fermata pause
  $bin/fermata loop a  /  loop b       an A-B loop at the sample heard now;  fermata loop clear
  $bin/fermata tempo 80                slower without changing pitch;  fermata practice --chart
  MPD_HOST=$socket mpc status${listen:+
  mpc -h ${listen%:*} -p ${listen##*:} playlist        (any MPD client: ncmpcpp -h ${listen%:*} -p ${listen##*:})}
Ctrl-C stops it (state saved); run this again to resume where it was.

EOF

if [ "$first_run" = yes ]; then
    # A first start: once fermatad answers, scan the library, queue all of it and play (later starts resume the saved
    # queue and position by themselves).
    (
        for _ in $(seq 1 300); do [ -S "$socket" ] && break; sleep 0.1; done
        "$bin/fermata" scan --socket "$socket" >/dev/null
        "$bin/fermata" queue add --socket "$socket" / >/dev/null
        "$bin/fermata" play --socket "$socket" >/dev/null
    ) &
fi

# fermatad in the foreground, as this script's own process: Ctrl-C (SIGINT) reaches it and it stops cleanly.
exec "$bin/fermatad" --music "$music" --state "$state" --socket "$socket" --listen "$listen" --output "$output" \
    --board "${FERMATA_BOARD:-off}"
