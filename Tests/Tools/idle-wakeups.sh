#!/bin/bash
# How often an idle fermatad wakes: context switches per thread over SECONDS, stopped and then paused (a track
# loaded), read from /proc/PID/task/*/status. Needs mpc. Usage:
#   Tests/Tools/idle-wakeups.sh [SECONDS] [FERMATAD]     (defaults: 10, .build/release/fermatad)
set -euo pipefail
seconds=${1:-10}
fermatad=$(realpath "${2:-.build/release/fermatad}")
work=$(mktemp -d /tmp/fermata-idle-XXXXXX)
trap '[ -n "${pid:-}" ] && kill "$pid" 2> /dev/null; rm -rf "$work"' EXIT
. "$(dirname "$0")/daemon-fixture.sh"
mkdir -p "$work/music" "$work/state"
write_silence "$work/music/silence.wav" 60
start_fermatad "$work/music" "$work/state" 16791
# "TID<tab>NAME<tab>SWITCHES" per thread
switches() {
    for task in /proc/$pid/task/*; do
        printf '%s\t%s\t%s\n' "${task##*/}" "$(cat "$task/comm")" \
            "$(awk '/^(non)?voluntary_ctxt_switches/ { n += $2 } END { print n }' "$task/status")"
    done
}
# Differences summed per thread name; a thread started meanwhile counts in full, one that ended is reported.
measure() {
    sleep 2
    switches > "$work/before"; sleep "$seconds"; switches > "$work/after"
    echo "$1, $seconds s:"
    awk -F'\t' -v s="$seconds" 'FNR == NR { before[$1] = $3; next }
        { d = $3 - before[$1]; delete before[$1]; if (d > 0) { n[$2] += d; t += d } }
        END { for (k in n) printf "  %s: %d\n", k, n[k]; for (k in before) gone++
              printf "  whole process: %d (%.1f per second)%s\n", t, t / s, gone ? ", " gone " thread(s) ended" : "" }' \
        "$work/before" "$work/after"
}
measure "stopped"
play_track silence.wav && sleep 1 && mpc -q -p $port pause
measure "paused"
