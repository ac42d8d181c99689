#!/bin/sh
# Guest side of ControlsKernelTests.realDaemonPlayButtonStartsAStoppedQueue, run inside ../shared/kernel-lab with the
# Raspberry Pi profile's line names (as controls-scenario.sh):
#   play-button-scenario.sh OUT BOARDS FERMATAD
# OUT/music holds a.wav and b.wav. fermatad runs with `--resume off` twice on one state folder:
#   1. the queue added over the protocol, stopped: PLAY starts it; the next+previous chord stops it; PLAY again;
#   2. restarted (SIGTERM while playing, so the saved state says playing): the saved queue is back, stopped, and
#      PLAY starts it.
# The driver (drive.py steps) logs `mpc status; mpc playlist` after each step into OUT/drive1.log and OUT/drive2.log;
# the daemon's logs go to OUT/daemon1.log and OUT/daemon2.log. The host-side test judges them.
set -eu
out=$1 boards=$2 fermatad=$3
here=$(cd "$(dirname "$0")" && pwd)

fail() { echo "FAIL: $*" >&2; exit 1; }

# State and socket on the guest's own tmpfs: the shared folder is 9p, where SQLite's WAL shared memory and Unix
# sockets do not work.
state=/tmp/fermata-state sock=/tmp/fermata-mpd.sock
mkdir -p "$state"
printf '[controls]\nboard = "%s"\ndebounce_ms = 30\n' "$boards/rpi-4.toml" > "$out/fermata.toml"

# start NAME: fermatad in the background, log in OUT/NAME.log; waits until its controls are ready.
start() {
	log=$out/$1.log
	"$fermatad" --config "$out/fermata.toml" --music "$out/music" --state "$state" --output null --resume off \
		--listen "" --socket "$sock" > "$log" 2>&1 &
	pid=$!
	n=0
	until grep -q 'lines ready' "$log" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -lt 900 ] || { kill "$pid"; fail "fermatad never reported its controls ready"; }
		kill -0 "$pid" 2>/dev/null || fail "fermatad exited: $(cat "$log")"
		sleep 0.1
	done
}

# stop: SIGTERM (fermatad saves its state) and wait for the exit; SIGKILL after 20 s.
stop() {
	kill "$pid" 2>/dev/null || true
	n=0
	while kill -0 "$pid" 2>/dev/null && [ "$n" -lt 200 ]; do n=$((n + 1)); sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && { echo "fermatad did not stop in 20 s" >&2; kill -9 "$pid"; }
	wait "$pid" 2>/dev/null || true
}

status="mpc -h $sock status; mpc -h $sock playlist"
start daemon1
mpc -h "$sock" update --wait > /dev/null
mpc -h "$sock" add a.wav b.wav
python3 "$here/drive.py" steps "$out/drive1.log" "$status" queued tap-play chord-stop tap-play-again
stop
start daemon2
python3 "$here/drive.py" steps "$out/drive2.log" "$status" queued tap-play
stop
echo "scenario done"
