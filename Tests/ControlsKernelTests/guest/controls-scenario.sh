#!/bin/sh
# Guest side of ControlsKernelTests, run inside ../shared/kernel-lab with a gpio-sim chip whose lines carry the
# Raspberry Pi profile's names:
#   run-in-kernel.sh -s OUT --label pinctrl-bcm2711 --lines 9 \
#       --names GPIO4,GPIO5,GPIO6,GPIO12,GPIO13,GPIO17,GPIO23,GPIO24,GPIO27 -- controls-scenario.sh OUT BOARDS CMD...
# CMD... is the monitor to test (`fermata gpio monitor` of the libgpiod 1.6 build, or `fermata-controls-bench
# monitor` of the libgpiod 2 build) without --board/--config; it runs three times:
#   1. rpi-4.toml plus an override adding a button on a line that does not exist, with GPIO27 held by `gpioset`
#      (in use): press, double tap, long press, encoder spins both ways at speed, hold-repeat, loop A/B/clear, chord.
#   2. orangepi-pc.toml before its chip exists (one clear log line), then
#   3. after creating a second gpio-sim chip labelled 1c20800.pinctrl: lines by chip label and offset.
# Everything lands in OUT (monitor output and logs, the driver's log); the host-side test checks it.
#
# With CMD = `daemon FERMATAD` it runs the daemon instead: OUT/music holds the test's WAVs, fermatad loads
# rpi-4.toml through its configuration, and the driver records `mpc status` after each step (MPD on OUT/mpd.sock).
set -eu
out=$1 boards=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)

fail() { echo "FAIL: $*" >&2; exit 1; }

# start NAME ARGS...: runs the monitor in the background, output to OUT/NAME.out and .err, waits for "ready".
start() {
	name=$1
	shift
	"$@" > "$out/$name.out" 2> "$out/$name.err" &
	pid=$!
	n=0
	until grep -q ' ready ' "$out/$name.out" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -lt 900 ] || { kill "$pid"; fail "$name: the monitor never reported ready"; }
		kill -0 "$pid" 2>/dev/null || fail "$name: the monitor exited: $(cat "$out/$name.err")"
		sleep 0.1
	done
}

# stop: SIGTERM, and if the monitor has not exited 20 s later, record its threads' states in OUT/NAME.hang and kill it.
stop() {
	kill "$pid" 2>/dev/null || true
	n=0
	while kill -0 "$pid" 2>/dev/null && [ "$n" -lt 200 ]; do n=$((n + 1)); sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		for t in /proc/"$pid"/task/*; do
			echo "== $(cat "$t/comm") $(cat "$t/wchan") $(grep State "$t/status")"
			cat "$t/stack" 2>/dev/null
		done > "$out/$name.hang"
		kill -9 "$pid"
	fi
	wait "$pid" 2>/dev/null || true
}

if [ "$1" = daemon ]; then
	fermatad=$2
	# State and socket on the guest's own tmpfs: the shared folder is 9p, where SQLite's WAL shared memory and
	# Unix sockets do not work.
	state=/tmp/fermata-state sock=/tmp/fermata-mpd.sock
	mkdir -p "$state"
	# The shutdown hold, off by default, turned on over the profile; its request file in the shared folder.
	printf '[controls]\nboard = "%s"\ndebounce_ms = 30\n\n[button-ghost]\nline = "GPIO99"\npress = "announce"\n\n[button-play]\nhold = "shutdown"\n\n[system]\npoweroff_request = "%s"\n' \
		"$boards/rpi-4.toml" "$out/poweroff-request" > "$out/fermata.toml"
	"$fermatad" --config "$out/fermata.toml" --music "$out/music" --state "$state" --output null \
		--listen "" --socket "$sock" > "$out/daemon.log" 2>&1 &
	pid=$!
	name=daemon
	n=0
	until grep -q 'lines ready' "$out/daemon.log" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -lt 900 ] || { kill "$pid"; fail "fermatad never reported its controls ready"; }
		kill -0 "$pid" 2>/dev/null || fail "fermatad exited: $(cat "$out/daemon.log")"
		sleep 0.1
	done
	mpc -h "$sock" update --wait > /dev/null
	mpc -h "$sock" add a.wav b.wav
	mpc -h "$sock" play > /dev/null
	python3 "$here/drive.py" full "$out/drive.log" "mpc -h $sock status"
	python3 "$here/drive.py" hold "$out/hold.log" GPIO17 3600
	sleep 0.5
	stop
	echo "scenario done"
	exit 0
fi

# 1. The Raspberry Pi profile on the named lines.
offset27=$(gpiofind GPIO27 | cut -d' ' -f2)
gpioset --mode=signal "$GPIO_SIM_LABEL" "$offset27=1" &
holder=$!
# Debounce 30 ms instead of 10, as the profile's override (the driver no longer bounces by default: see drive.py's
# settle; a stalled write can still lengthen an edge, never add one).
printf '[controls]\ndebounce_ms = 30\n\n[button-ghost]\nline = "GPIO99"\npress = "announce"\n' > "$out/override.toml"
start pi "$@" ${RAW:+--raw} --board "$boards/rpi-4.toml" --config "$out/override.toml"
gpioinfo "$GPIO_SIM_LABEL" > "$out/gpioinfo.txt"
MONITOR_OUT="$out/pi.out" python3 "$here/drive.py" full "$out/drive.log"
sleep 1
stop
kill "$holder"

# 2. The Allwinner profile while its chip is missing.
start allwinner-missing "$@" --board "$boards/orangepi-pc.toml"
stop

# 3. The Allwinner profile on a chip labelled like the H3's pin controller, lines by offset.
gs=/sys/kernel/config/gpio-sim/allwinner
mkdir "$gs" "$gs/bank0"
echo 111 > "$gs/bank0/num_lines"
echo 1c20800.pinctrl > "$gs/bank0/label"
echo 1 > "$gs/live"
sysfs=/sys/devices/platform/$(cat "$gs/dev_name")/$(cat "$gs/bank0/chip_name")
start allwinner "$@" --board "$boards/orangepi-pc.toml"
for offset in 7 110; do  # play (PA7), then mode (PD14)
	echo pull-down > "$sysfs/sim_gpio$offset/pull"
	sleep 0.15
	echo pull-up > "$sysfs/sim_gpio$offset/pull"
	sleep 0.5
done
stop
echo "scenario done"
