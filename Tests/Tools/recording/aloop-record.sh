#!/bin/bash
# Recording yourself, proven in the kernel lab (issue 38): fermatad plays into snd-aloop and records what comes out
# of the loopback's other side. Runs guest.sh in the VM, then judges on the host with analyse.py.
#
#   Tests/Tools/recording/aloop-record.sh align [--bin DIR] [--work DIR] [--delay FRAMES]
#       The alignment and the restart: round trips measured with `fermata audio latency` (before any playback, and
#       after a play and a stop), takes recorded over the loop 1.000-3.000 s of a click track through the direct
#       loopback and through a relay adding DELAY frames (default 4800: 100 ms), each take's clicks against the
#       original's (offset in frames and ms, length), and the takes listed again after a SIGTERM and a new start.
#   Tests/Tools/recording/aloop-record.sh cut [--cuts N] [--bin DIR] [--work DIR]
#       Power cuts mid-take: N sessions (default 5) each cut ($KL_POWER_CUT) at a different instant while recording,
#       the state folder on ext4 on a virtual disk; each next boot lists the takes; every listed take must decode
#       whole to its duration, no take file may be left unlisted, and a take listed before the cut must still be.
#
# --bin: the folder with fermatad and fermata (default the project's .build/debug; copied into WORK first).
# WORK defaults to /tmp/fermata-recproof-MODE (emptied first). Exit 0 when every check passed, 1 when one failed,
# 77 when the lab cannot run here, 2 when a run did not happen as planned.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
project=$(readlink -f "$here/../../..")
lab=$(readlink -f "$project/../shared/kernel-lab/run-in-kernel.sh")
mode=${1:-}; shift || true
bin=$project/.build/debug work= delay=4800 cuts=5
while [ $# -gt 0 ]; do
    case $1 in
    --bin) bin=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --cuts) cuts=$2; shift 2 ;;
    *) echo "aloop-record.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
case $mode in align|cut) ;; *) echo "aloop-record.sh: align or cut (see the top of the script)" >&2; exit 64 ;; esac
if why=$("$lab" --check); then :; else echo "SKIP: $why"; exit 77; fi
work=${work:-/tmp/fermata-recproof-$mode}
rm -rf "$work" && mkdir -p "$work/bin" "$work/music"
cp "$bin/fermatad" "$bin/fermata" "$work/bin/"
clicks=$(python3 "$here/mksignal.py" "$work/clicks.wav")
flac -s -f -o "$work/music/clicks.flac" "$work/clicks.wav"
failed=0
# count FILE: the takes a `takes` answer lists.
count() { if [ -f "$1" ]; then grep -c '^take:' "$1" || true; else echo 0; fi; }

# judge DIR LABEL: each take file of DIR against the loop 1.000-3.000 s (frames 48000-144000): its clicks within 1 ms
# of the original's (analyse.py), and at least two takes.
# With STRICT=1 (the campaign's rule) every take must be within 1 ms; without it (the CI slice, run beside the other
# suites on a loaded machine) at least two takes of the path must be, and the others are reported: a host starved
# while the clock lines are fitted can place one take late (12.3 ms once, with a build on both cores), which is the
# figure docs/recording.md gives, not a test that passes only on a quiet machine.
judge() {
    local f raw line within=0 off=0
    for f in "$1"/take-*.flac; do
        [ -e "$f" ] || { echo "$2: no take"; failed=1; return; }
        raw=${f%.flac}.raw
        if ! flac -s -d -f --force-raw-format --endian=little --sign=signed -o "$raw" "$f"; then
            echo "$2 $(basename "$f"): does not decode"; failed=1; continue
        fi
        if line=$(python3 "$here/analyse.py" "$raw" 48000 144000 $clicks); then
            echo "$2 $(basename "$f"): $line"
            within=$((within + 1))
        else
            off=$((off + 1))
            if [ "${STRICT:-0}" = 1 ]; then
                echo "$2 $(basename "$f"): $line  FAIL: not within 1 ms"; failed=1
            else
                echo "$2 $(basename "$f"): $line  not within 1 ms (counted, not failed: STRICT=1 fails it)"
            fi
        fi
    done
    echo "$2: $within takes within 1 ms, $off not"
    [ "$within" -ge 2 ] || { echo "$2: FAIL: fewer than 2 takes within 1 ms"; failed=1; }
}

case $mode in
align)
    status=0
    timeout 400 "$lab" -s "$work" -t 300 -e DELAY="$delay" "$here/guest.sh" "$work" "$work/bin" align \
        > "$work/lab.out" 2> "$work/lab.err" || status=$?
    echo "lab exit $status"
    cat "$work/results.txt" 2> /dev/null || true
    xruns=$(cat "$work"/relay-*.err 2> /dev/null | grep -c "run!!!" || true)
    echo "relay xruns: $xruns"
    [ "$status" = 0 ] || failed=2
    judge "$work/direct" direct
    if [ "$xruns" = 0 ] || [ "${STRICT:-0}" = 1 ]; then
        judge "$work/delayed" delayed
    else
        # The relay is this test's apparatus: an xrun in it changed its delay after `fermata audio latency` measured
        # it, so the takes cannot land on the measured figure (a loaded run: all six 3.9 ms off, 4 frames apart).
        # Reported, not judged; STRICT=1 (the campaign) judges it anyway.
        echo "delayed: not judged: the relay ran over $xruns times, so its delay changed after it was measured"
        for f in "$work"/delayed/take-*.flac; do
            [ -e "$f" ] || continue
            raw=${f%.flac}.raw
            flac -s -d -f --force-raw-format --endian=little --sign=signed -o "$raw" "$f" &&
                echo "delayed $(basename "$f"): $(python3 "$here/analyse.py" "$raw" 48000 144000 $clicks || true)"
        done
    fi
    echo "restart: $(count "$work/restart/takes.txt") takes listed after the restart" \
        "(before it: $(count "$work/direct/takes.txt"))"
    [ "$(count "$work/restart/takes.txt")" = "$(count "$work/direct/takes.txt")" ] &&
        [ "$(count "$work/restart/takes.txt")" -ge 2 ] || { echo "restart: FAIL: the takes listed changed"; failed=1; }
    judge "$work/restart" restart
    ;;
cut)
    truncate -s 128M "$work/state.img"
    mkfs.ext4 -q -F -b 4096 "$work/state.img"
    for i in $(seq 0 "$cuts"); do
        run=$work/run-$i
        mkdir -p "$run/music"
        cp "$work/music/clicks.flac" "$run/music/"
        cp -a "$work/bin" "$run/bin"
        [ "$i" -gt 0 ] && touch "$run/started"
        [ "$i" = "$cuts" ] && touch "$run/last"
        # Cuts after a few passes (2 s each, the first heard about 1 s after recording starts), at instants spread
        # over a pass: 6.3, 9.1, 11.7, 7.5, 13.2, 10.4, ... seconds after recording starts.
        echo "6.3 9.1 11.7 7.5 13.2 10.4" | awk -v i="$i" '{ print $((i % NF) + 1) }' > "$run/cut-at"
        status=0
        timeout 300 "$lab" -s "$run" -t 200 --disk "$work/state.img" "$here/guest.sh" "$run" "$run/bin" cut \
            > "$run/lab.out" 2> "$run/lab.err" || status=$?
        echo "run $i: lab exit $status, cut at $(cat "$run/cut-at") s"
        [ "$i" -gt 0 ] || continue
        prev=$work/run-$((i - 1))
        listed=$(count "$run/after/takes.txt")
        before=$(count "$prev/before/takes.txt")
        files=$(ls "$run/after" | grep -c '^take-.*\.flac$' || true)
        partial=$(ls -a "$run/after" | grep -c '^\.partial' || true)
        echo "  after cut $((i - 1)): $listed takes listed ($before listed just before the cut), $files take files, $partial partial files"
        [ "$listed" = "$files" ] || { echo "  FAIL: listed and files differ"; failed=1; }
        # A take listed before the cut was committed (file synced, row written): it must still be there.
        for id in $(sed -n 's/^take: //p' "$prev/before/takes.txt" 2> /dev/null); do
            grep -qx "take: $id" "$run/after/takes.txt" || { echo "  FAIL: take $id, listed before the cut, is gone"; failed=1; }
        done
        # Every listed take decodes whole: its frames = its listed duration at 48 kHz.
        python3 - "$run/after" << 'PY' || failed=1
import re, subprocess, sys
folder = sys.argv[1]
text = open(folder + '/takes.txt').read()
bad = 0
for block in re.split(r'(?m)^(?=take: )', text):
    m = re.search(r'^take: (\d+)', block, re.M)
    if not m:
        continue
    duration = float(re.search(r'^duration: ([\d.]+)', block, re.M).group(1))
    path = '%s/take-%s.flac' % (folder, m.group(1))
    try:
        raw = subprocess.run(['flac', '-s', '-d', '-c', '--force-raw-format', '--endian=little', '--sign=signed', path],
                             capture_output=True, check=True).stdout
    except Exception as e:
        print('  FAIL take %s: %s' % (m.group(1), e)); bad = 1; continue
    frames = len(raw) // 4
    ok = abs(frames - duration * 48000) <= 48
    print('  take %s: %d frames decoded, listed %.3f s: %s' % (m.group(1), frames, duration, 'whole' if ok else 'FAIL'))
    bad |= not ok
sys.exit(bad)
PY
    done
    ;;
esac
exit $failed
