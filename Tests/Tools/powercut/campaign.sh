#!/bin/bash
# Real power cuts: fermatad (or Debian's mpd) plays in the kernel lab's VM with its state on ext4 on a virtual disk,
# a client does what owners do, and at a seeded random instant the guest's power is cut ($KL_POWER_CUT: no sync, no
# unmount, the page cache lost). The next run boots a new kernel on the same disk, fscks and mounts it, copies the
# state files as the cut left them, starts the daemon and reads what it restored; judge.py compares that with the
# last state the client saw acknowledged. Runs chain: run i checks cut i-1, then starts the session that ends in
# cut i (N cuts = N+1 runs). Prints the table at the end (judge.py --table WORK prints it again).
#
#   Tests/Tools/powercut/campaign.sh [--cuts N] [--seed S] [--daemon fermatad|mpd] [--bin DIR] [--work DIR]
#                                    [--cut-min SEC] [--cut-max SEC] [--timeout SEC] [--control]
#
# --cuts 5 (default), --seed 1, --daemon fermatad, --bin the project's .build/debug (fermatad is copied into WORK,
# so a rebuild during a campaign changes nothing), --work /tmp/fermata-powercut/DAEMON-seedS (emptied first), cuts
# 2-15 s after each session starts. --control: the same campaign with a clean stop (SIGTERM, sync) at each instant
# instead of the power cut, to tell what any restart loses from what a power cut loses (work folder ...-control).
# Needs root on the host only for the kernel lab's first set-up; uses flac, mkfs.ext4 and python3 on the host, and
# python3, e2fsck and (for --daemon mpd) mpd inside the VM, which sees the host's root.
# Exit status: 0 when every check passed, 1 when one failed, 2 when a run did not happen as planned.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
project=$(readlink -f "$here/../../..")
lab=$(readlink -f "$project/../shared/kernel-lab/run-in-kernel.sh")
cuts=5 seed=1 daemon=fermatad bin=$project/.build/debug work= cut_min=2 cut_max=15 timeout=300 control=
while [ $# -gt 0 ]; do
    case $1 in
    --cuts) cuts=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --daemon) daemon=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --cut-min) cut_min=$2; shift 2 ;;
    --cut-max) cut_max=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --control) control=CONTROL; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "campaign.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
case $daemon in fermatad|mpd) ;; *) echo "campaign.sh: --daemon fermatad or mpd" >&2; exit 64 ;; esac
work=${work:-/tmp/fermata-powercut/$daemon-seed$seed${control:+-control}}
. "$here/common.sh"
prepare_work

run() {  # run INDEX PHASE SESSION
    local dir=$work/$(printf 'run-%03d' "$1")
    mkdir -p "$dir"
    local started=$SECONDS status=0
    "$lab" -s "$work" -t "$timeout" --disk "$work/state.img" --disk "$work/music.img" \
        "$here/guest.sh" "$work" "$dir" "$daemon" "$((seed * 1000 + $1))" "$2" "$3" "$cut_min" "$cut_max" $control \
        > "$dir/lab.out" 2> "$dir/lab.err" || status=$?
    echo "$status $((SECONDS - started))" > "$dir/lab.rc"
    printf '%s run %d (%s %s): exit %d after %d s\n' "$daemon" "$1" "$2" "$3" "$status" \
        "$((SECONDS - started))" >&2
    return 0
}

echo "campaign: $cuts cuts of $daemon, seed $seed, in $work" >&2
run 0 FIRST SESSION
for i in $(seq 1 "$cuts"); do
    if [ "$i" -lt "$cuts" ]; then run "$i" CHECK SESSION; else run "$i" CHECK NOSESSION; fi
    python3 "$here/judge.py" --cut "$((i - 1))" "$work" >&2 || true
done
python3 "$here/judge.py" --table "$work"
