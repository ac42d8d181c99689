#!/bin/bash
# Short, deterministic reproductions of what the power-cut campaign found, two kernel-lab runs each (about a minute):
# the first sets up a state disk, does one thing an owner does, and cuts the power (or stops fermatad cleanly), the
# second mounts the same disk, starts fermatad and prints what it restored; then "PASS:" or "DEFECT:" (exit 1)
# when fermatad lost what it had acknowledged.
#
#   Tests/Tools/powercut/repro.sh SCENARIO [--bin DIR] [--delay SEC] [--work DIR]
#
#   tempo-cut      `tempo 80` answered OK while playing, power cut --delay s later (default 3): is 80 restored?
#   tempo-track    `tempo 80`, seen and saved on track 1 (3 s), then `next`, then a clean stop (SIGTERM) 3 s later:
#                  is 80 restored on track 2? (no power cut at all)
#   playlist-rm    `save pc0`, 6 s for ext4 to commit, then `rm pc0` answered OK, power cut --delay s later
#                  (default 1): is pc0 gone?
#   playlist-rename  the same with `rename pc0 pc9`: is pc9 there and pc0 gone?
#   volume-cut     control: `setvol 37` answered OK, power cut --delay s later (default 0.2): is 37 restored?
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
project=$(readlink -f "$here/../../..")
lab=$(readlink -f "$project/../shared/kernel-lab/run-in-kernel.sh")
scenario=${1:-}
[ -n "$scenario" ] && shift
bin=$project/.build/debug work= delay=
while [ $# -gt 0 ]; do
    case $1 in
    --bin) bin=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "repro.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
case $scenario in
tempo-cut) delay=${delay:-3} ;;
tempo-track) delay=${delay:-3} ;;
playlist-rm|playlist-rename) delay=${delay:-1} ;;
volume-cut) delay=${delay:-0.2} ;;
guest-1|guest-2) ;;
*) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 64 ;;
esac

if [ "$scenario" = guest-1 ] || [ "$scenario" = guest-2 ]; then
    # Inside the VM: REPRO_WORK, REPRO_WHAT, REPRO_DELAY from the environment.
    work=$REPRO_WORK what=$REPRO_WHAT delay=$REPRO_DELAY
    ip link set lo up
    mkdir -p /srv/music /var/lib/fermata
    mount -o noatime,errors=remount-ro /dev/vdb /srv/music
    mount -o noatime,errors=remount-ro /dev/vda /var/lib/fermata
    "$work/bin/fermatad" --config "$work/fermata.toml" --music /srv/music --state /var/lib/fermata --output null \
        --listen 127.0.0.1:6600 --socket "" --board off >> "$work/daemon.log" 2>&1 &
    pid=$!
    q() { python3 - "$@" << 'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", 6600), timeout=60)
f = s.makefile("rb")
f.readline()
for command in sys.argv[1:]:
    s.sendall((command + "\n").encode())
    while True:
        line = f.readline().decode().rstrip("\n")
        if line == "OK" or line.startswith("ACK"):
            if line != "OK":
                print(line)
            break
        print(line)
PY
    }
    for _ in $(seq 300); do q ping > /dev/null 2>&1 && break; sleep 0.2; done
    if [ "$scenario" = guest-1 ]; then
        q update > /dev/null; sleep 2
        q "add base/t01.flac" "add base/t03.flac" "play 0" > /dev/null
        sleep 3
        case $what in
        tempo-cut) q "tempo 80" ;;
        tempo-track) q "tempo 80"; sleep 3; q next; sleep "$delay"
                     echo "before the stop: $(q loop_status | grep tempo) on song $(q status | grep '^song:')"
                     kill -TERM $pid; wait $pid || true; sync; umount /var/lib/fermata; exit 0 ;;
        playlist-rm) q "save pc0"; sleep 6; q "rm pc0"
                     echo "before the cut: playlists [$(q listplaylists | grep '^playlist:' | tr '\n' ' ')]" ;;
        playlist-rename) q "save pc0"; sleep 6; q "rename pc0 pc9"
                     echo "before the cut: playlists [$(q listplaylists | grep '^playlist:' | tr '\n' ' ')]" ;;
        volume-cut) q "setvol 37" ;;
        esac
        sleep "$delay"
        "$KL_POWER_CUT"
    else
        sleep 4   # the practice memory is applied within a second or two of entering the track
        echo "restored: $(q status | grep -E '^(state|song|volume):' | tr '\n' ' ')$(q loop_status | grep tempo)"`
            `" playlists [$(q listplaylists | grep '^playlist:' | tr '\n' ' ')]"
        kill -TERM $pid; wait $pid || true
    fi
    exit 0
fi

daemon=fermatad
work=${work:-/tmp/fermata-powercut/repro-$scenario}
. "$here/common.sh"
prepare_work
for phase in 1 2; do
    "$lab" -s "$work" -t 200 --disk "$work/state.img" --disk "$work/music.img" \
        -e "REPRO_WORK=$work" -e "REPRO_WHAT=$scenario" -e "REPRO_DELAY=$delay" "$here/repro.sh" "guest-$phase" | tee "$work/phase-$phase.txt"
done
restored=$(grep '^restored:' "$work/phase-2.txt" || true)
case $scenario in
tempo-cut|tempo-track) want='tempo: 80' ;;
playlist-rm) want='playlists \[\]' ;;
playlist-rename) want='playlists \[playlist: pc9 \]' ;;
volume-cut) want='volume: 37' ;;
esac
if echo "$restored" | grep -q "$want"; then
    echo "PASS: $scenario: expected ${want//\\/}; $restored"
else
    echo "DEFECT: $scenario: expected ${want//\\/}; $restored"
    exit 1
fi
