#!/bin/bash
# How often an idle fermatad wakes: context switches per thread over SECONDS, stopped and then paused (a track
# loaded), read from /proc/PID/task/*/status. Needs mpc. Usage:
#   Tests/Tools/idle-wakeups.sh [SECONDS] [FERMATAD]     (defaults: 10, .build/release/fermatad)
set -euo pipefail
seconds=${1:-10}
fermatad=$(realpath "${2:-.build/release/fermatad}")
port=16791
work=$(mktemp -d /tmp/fermata-idle-XXXXXX)
trap '[ -n "${pid:-}" ] && kill "$pid" 2> /dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/music" "$work/state"
python3 -c 'import sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(44100)
w.writeframes(bytes(4 * 44100 * 60)); w.close()' "$work/music/silence.wav"
"$fermatad" --music "$work/music" --state "$work/state" --output null --listen "127.0.0.1:$port" --socket "" \
    --board off 2> "$work/daemon.log" &
pid=$!
until mpc -q -p $port status > /dev/null 2>&1; do sleep 0.1; done
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
mpc -q -p $port update --wait && mpc -q -p $port add silence.wav && mpc -q -p $port play && sleep 1 && mpc -q -p $port pause
measure "paused"
