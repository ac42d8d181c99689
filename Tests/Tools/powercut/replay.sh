#!/bin/bash
# Every crash state of the disk: fermatad's state file system sits on dm-log-writes, which records every write the
# file system hands to the disk and every flush, in order, while the campaign's client does what owners do and marks
# the log after each answer. replay.py then replays the log onto a copy of the disk up to each flush (with
# --every-write, up to each write between flushes too: a card that kept only part of what it was handed since its
# last flush) and checks each prefix against what was acknowledged by then (see replay.py).
#
#   Tests/Tools/powercut/replay.sh [--seed S] [--bin DIR] [--work DIR] [--seconds SEC] [--every-write] [--limit N]
#                                  [--keep-failing]
#
# Three steps, each reusable: a kernel-lab run makes the starting state (a scan, a queue, playing; a clean stop), a
# second records a session of --seconds (default 8) with dm-log-writes between ext4 and the state disk (log on a third
# virtual disk), then replay.py checks the crash states on the host (e2fsck, debugfs, sqlite3; no VM needed).
# --work default /tmp/fermata-powercut/replay-seedS. Exit status: 0 no failure, 1 a prefix failed, 2 a run failed.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
project=$(readlink -f "$here/../../..")
lab=$(readlink -f "$project/../shared/kernel-lab/run-in-kernel.sh")
seed=1 daemon=fermatad bin=$project/.build/debug work= seconds=8 replay_flags=()
while [ $# -gt 0 ]; do
    case $1 in
    --seed) seed=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --every-write|--keep-failing) replay_flags+=("$1"); shift ;;
    --limit) replay_flags+=(--limit "$2"); shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "replay.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
work=${work:-/tmp/fermata-powercut/replay-seed$seed}
. "$here/common.sh"
prepare_work

# 1. The starting state, stopped cleanly.
mkdir -p "$work/setup"
"$lab" -s "$work" -t 300 --disk "$work/state.img" --disk "$work/music.img" \
    "$here/guest.sh" "$work" "$work/setup" "$daemon" "$((seed * 1000))" FIRST NOSESSION 0 0 \
    > "$work/setup/lab.out" 2> "$work/setup/lab.err" || { echo "replay.sh: the set-up run failed ($work/setup)" >&2; exit 2; }
cp --sparse=always "$work/state.img" "$work/base.img"

# 2. The recorded session.
truncate -s 2G "$work/log.img"
mkdir -p "$work/record"
started=$SECONDS
"$lab" -s "$work" -t 300 --disk "$work/state.img" --disk "$work/music.img" --disk "$work/log.img" \
    "$here/guest-record.sh" "$work" "$work/record" "$daemon" "$((seed * 1000 + 1))" "$seconds" \
    > "$work/record/lab.out" 2> "$work/record/lab.err" || { echo "replay.sh: the recording failed ($work/record)" >&2; exit 2; }
echo "replay.sh: recorded $seconds s of session in $((SECONDS - started)) s: $(cat "$work/record/dm-status.txt")" >&2

# 3. Every crash state, on the host.
python3 "$here/replay.py" "$work" "${replay_flags[@]+"${replay_flags[@]}"}"
