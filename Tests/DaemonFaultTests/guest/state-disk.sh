#!/bin/bash
# The state directory fills up while fermatad plays, then gets space back: a 4 MiB tmpfs filled with dd until ENOSPC.
# Queue edits made meanwhile must reach the database once there is room again. Prints "key value" lines to
# $out/state-disk.txt for the Swift test to judge.
#   state-disk.sh OUT FERMATAD
set -u
out=$1 fermatad=$2 log=$1/daemon.log
. "$(dirname "$0")/common.sh"
result=$out/state-disk.txt
state=/mnt/state db=/mnt/state/library.sqlite
queue() { sqlite3 "$db" "SELECT uri FROM queue_entry ORDER BY sort_key" | tr '\n' ','; }
mkdir -p $state && mount -t tmpfs -o size=4m tmpfs $state || exit 1
start_daemon $state null || exit 1
mpc -q update --wait && mpc -q add a.wav && mpc -q play || exit 1
wait_for 40 elapsed_at_least 1 || { echo "never played: $(mpd status)" >&2; exit 1; }

# Full.
dd if=/dev/zero of=$state/filler bs=4k 2> /dev/null
echo "full_avail $(df --output=avail $state | tail -1 | tr -d ' ')" >> "$result"
mpc -q add b.wav && mpc -q add a.wav && mpc -q move 3 1 || echo "edit refused" >> "$result"
e1=$(field elapsed); sleep 3; e2=$(field elapsed)
echo "full_elapsed $e1 $e2 $(field state)" >> "$result"
echo "full_playlist $(mpc -f %file% playlist | tr '\n' ',')" >> "$result"
echo "full_db_queue $(queue)" >> "$result"
rm $state/filler
wait_for 15 log_count "player state saved again" 1 || echo "never saved again" >> "$result"
echo "freed_db_queue $(queue)" >> "$result"
echo "freed_integrity $(sqlite3 "$db" 'PRAGMA integrity_check')" >> "$result"

stop_daemon >> "$result"
echo "final_integrity $(sqlite3 "$db" 'PRAGMA integrity_check')" >> "$result"
