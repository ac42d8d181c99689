#!/bin/bash
# aloop-record.sh's run inside the kernel lab's VM (root, the host's root read-only; snd-aloop is card 0).
#   guest.sh OUT BIN MODE
# OUT: the shared work folder (music/clicks.flac and results go there); BIN: the folder holding fermatad and fermata.
# MODE align: (1) fermatad plays into hw:Loopback,0,0 and records hw:Loopback,1,0: `fermata audio latency` with
#   playback never started, then once more after a play and a stop (the engine must have let the output go), then
#   record over the A-B loop 1.000-3.000 s of clicks.flac; the takes are copied to OUT/direct. (2) SIGTERM, start
#   again: `takes` and the files are copied to OUT/restart. (3) SIGTERM; a relay (arecord | aplay, with DELAY frames
#   of silence written first) carries hw:Loopback,1,1 to hw:Loopback,0,2, and fermatad plays into hw:Loopback,0,1
#   and records hw:Loopback,1,2: the added delay; measured, then recorded over the same loop into OUT/delayed.
# MODE cut: the state folder on /dev/vda (ext4); if it holds a state, fermatad starts on it first and the takes it
#   lists and the files it has are copied to OUT/after; then (unless OUT/last) it records over the loop and the
#   power is cut at OUT/cut-at seconds after recording starts ($KL_POWER_CUT).
# Writes "key value..." lines to OUT/results.txt; the judging is on the host (aloop-record.sh, analyse.py).
set -u
out=$1 bin=$2 mode=$3
delay=${DELAY:-4800}
log=$out/daemon.log
results=$out/results.txt
. "$(dirname "$(readlink -f "$0")")/../../DaemonFaultTests/guest/common.sh"
say() { echo "$*" >> "$results"; }

# config OUTPUT CAPTURE: fermata.toml for this phase.
config() {
    cat > "$out/fermata.toml" << TOML
[audio]
output = "$1"
format = "48000:s16:2"
period_ms = 20
loop_crossfade_ms = 0
[record]
device = "$2"
budget_mb = 64
TOML
}
start() {  # start STATE
    "$bin/fermatad" --config "$out/fermata.toml" --music "$out/music" --state "$1" \
        --listen 127.0.0.1:6600 --socket "" --resume off --board off >> "$log" 2>&1 &
    pid=$!
    # 240 s, as the other kernel-lab daemons get: a CI run under two `yes` saw this one not answer within 60 s. Whether
    # it was still starting or had died, and the log's end, go into the results.
    wait_for 240 mpd ping > /dev/null 2>&1 || {
        if kill -0 "$pid" 2>/dev/null; then say "never answered (still running)"
        else wait "$pid"; say "never answered (exited with status $?)"; fi
        tail -n 40 "$log" | sed 's/^/daemon: /' >> "$results"
        return 1
    }
}
# stop NAME: SIGTERM and the exit status; after 30 s without an exit, what its threads wait on, then SIGKILL.
stop() {
    kill -TERM "$pid"
    if ! wait_for 30 eval '! kill -0 "$pid" 2> /dev/null'; then
        say "exit_$1 hung"
        dump "$1-stop"
        kill -KILL "$pid"
    fi
    wait "$pid"
    say "exit_$1 $?"
}
# dump NAME: fermatad's threads (name, state, kernel wait channel, stack) and the loopback's streams, to OUT/NAME.txt.
dump() {
    { for t in /proc/"$pid"/task/*; do
          echo "== $(cat "$t/comm") $(awk '{print $3}' "$t/stat") $(cat "$t/wchan")"; cat "$t/stack" 2> /dev/null
      done
      grep -H . /proc/asound/card0/pcm*/sub*/status
    } > "$out/$1.txt" 2>&1
}
# cmd NAME COMMAND: an MPD command; when it gets no answer in 10 s, dump NAME.
cmd() { mpd "$2" | grep -q '^OK' || { say "no_answer $1 $2"; dump "$1"; }; }
# takes_to DIR: the takes fermatad lists and their files, as they are now.
takes_to() {
    mkdir -p "$1"
    mpd takes > "$1/takes.txt"
    cp -a "$state/takes/." "$1/" 2> /dev/null
    ls -la "$state/takes" > "$1/listing.txt" 2>&1
}
latency() {  # latency NAME: `fermata audio latency`, its answer as one result line
    local answer
    answer=$(timeout 60 "$bin/fermata" audio latency --host 127.0.0.1 2>&1)
    say "latency_$1 $? $(echo "$answer" | tr '\n' ' ')"
}
# record_loop SECONDS: record on, the loop 1-3 s, play for SECONDS, record off, stop.
record_loop() {
    cmd record-on "record on"
    cmd play "play 0"
    cmd loop-set "loop_set 1 3"
    sleep "$1"
    mpd record | tr '\n' ' ' >> "$results"; echo >> "$results"
    cmd record-off "record off"
    cmd stop stop
}

state=/tmp/state
case $mode in
align)
    config hw:Loopback,0,0 hw:Loopback,1,0
    start $state || exit 1
    mpc -q update --wait && mpc -q add clicks.flac || exit 1
    latency fresh
    mpc -q play 1; sleep 2; mpc -q stop; sleep 0.5
    latency after_stop
    record_loop 16
    takes_to "$out/direct"
    stop direct
    start $state || exit 1
    takes_to "$out/restart"
    stop restart
    # The added delay: DELAY frames of silence lead the relay's stream, so everything it carries comes that late.
    # Large buffers (0.5 s) on both ends: an overrun or underrun in the relay would change the delay mid-run (the
    # emulated guest is slow); its stderr (relay.err) says whether one happened.
    # Both ends real-time (SCHED_FIFO 60, above fermatad's 40 here): an xrun in the relay changes its delay after it
    # was measured (a loaded CI-like run: 2 xruns, every delayed take 3.9 ms off), and the path is then not judged.
    rt=""; chrt -f 60 true 2> /dev/null && rt="chrt -f 60"
    { head -c $((delay * 4)) /dev/zero
      exec $rt arecord -D hw:Loopback,1,1 -f S16_LE -c 2 -r 48000 -t raw --buffer-time=500000 --period-time=50000
    } 2> "$out/relay-arecord.err" | $rt aplay -D hw:Loopback,0,2 -f S16_LE -c 2 -r 48000 -t raw --buffer-time=500000 \
        --period-time=50000 2> "$out/relay-aplay.err" &
    relay=$!
    sleep 1
    config hw:Loopback,0,1 hw:Loopback,1,2
    state=/tmp/state-delayed   # its own takes (the judge reads them alone)
    start $state || exit 1
    mpc -q update --wait && mpc -q add clicks.flac || exit 1
    latency delayed
    record_loop 16
    takes_to "$out/delayed"
    stop delayed
    kill "$relay" 2> /dev/null   # the VM ends with the run; arecord with it
    ;;
cut)
    state=/var/lib/fermata
    mkdir -p $state
    mount -o noatime,errors=remount-ro /dev/vda $state || { say "cannot mount"; exit 2; }
    ls -la "$state/takes" > "$out/raw-listing.txt" 2>&1   # as the cut left it, before fermatad tidies
    config hw:Loopback,0,0 hw:Loopback,1,0
    start $state || exit 1
    if [ -f "$out/started" ]; then
        takes_to "$out/after"
    else
        mpc -q update --wait && mpc -q add clicks.flac || exit 1
        latency fresh
        touch "$out/started"
    fi
    [ -f "$out/last" ] && { stop last; umount $state; exit 0; }
    mpd "record on" > /dev/null
    mpc -q play 1
    mpd "loop_set 1 3" > /dev/null
    sleep "$(cat "$out/cut-at")"
    takes_to "$out/before"   # what was listed just before the cut (the cut may still fall mid-copy of the next)
    $KL_POWER_CUT 0
    ;;
esac
exit 0
