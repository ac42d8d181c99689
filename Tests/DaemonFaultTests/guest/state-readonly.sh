#!/bin/bash
# The state filesystem goes read-only while fermatad plays, the way it does when an SD card fails: ext4 mounted with
# errors=remount-ro on a loop device, and an error raised through /sys/fs/ext4/DEV/trigger_fs_error. (A plain
# `mount -o remount,ro` is refused with EBUSY while fermatad holds its database open for writing, and after an error
# ext4 keeps refusing fsync even after `remount,rw`: only fsck and a fresh mount bring it back, as after a reboot.)
# So: play on through the fault, then stop, fsck, mount and start again. Prints "key value" lines to
# $out/state-readonly.txt for the Swift test to judge.
#   state-readonly.sh OUT FERMATAD MODULES   (MODULES: a folder with loop.ko, ext4.ko and their dependencies)
set -u
out=$1 fermatad=$2 modules=$3 log=$1/daemon.log
. "$(dirname "$0")/common.sh"
result=$out/state-readonly.txt
state=/mnt/state db=/mnt/state/library.sqlite
queue() { sqlite3 "$db" "SELECT uri FROM queue_entry ORDER BY sort_key" | tr '\n' ','; }
remounted() { dmesg | grep -q "Remounting filesystem read-only"; }
for module in crc16 mbcache crc32c_generic jbd2 ext4 loop; do
    grep -q "^$module " /proc/modules || insmod "$modules/$module.ko" || exit 1
done
truncate -s 16M /tmp/state.img && mkfs.ext4 -q -O ^has_journal /tmp/state.img || exit 1
device=$(losetup -f --show /tmp/state.img) || exit 1
mkdir -p $state && mount -o errors=remount-ro "$device" $state || exit 1
start_daemon $state null || exit 1
mpc -q update --wait && mpc -q add a.wav && mpc -q play || exit 1
wait_for 40 elapsed_at_least 1 || { echo "never played: $(mpd status)" >&2; exit 1; }

echo "fermata test: simulated media error" > "/sys/fs/ext4/$(basename "$device")/trigger_fs_error"
wait_for 5 remounted && echo "kernel remounted_ro" >> "$result"
mpc -q add b.wav && mpc -q move 2 1 || echo "edit refused" >> "$result"
e1=$(field elapsed); sleep 3; e2=$(field elapsed)
echo "ro_elapsed $e1 $e2 $(field state)" >> "$result"
echo "ro_playlist $(mpc -f %file% playlist | tr '\n' ',')" >> "$result"
echo "ro_db_queue $(queue)" >> "$result"
echo "ro_integrity $(sqlite3 "$db" 'PRAGMA integrity_check')" >> "$result"
stop_daemon > /tmp/stopped && echo "ro_$(cat /tmp/stopped)" >> "$result"

# What a reboot does: fsck, a fresh mount, fermatad again with what was saved before the fault.
umount $state && e2fsck -fy "$device" > /dev/null 2>&1; echo "fsck $?" >> "$result"
mount -o errors=remount-ro "$device" $state || exit 1
start_daemon $state null || exit 1
echo "restart_playlist $(mpc -f %file% playlist | tr '\n' ',')" >> "$result"
echo "restart_integrity $(sqlite3 "$db" 'PRAGMA integrity_check')" >> "$result"
stop_daemon >> "$result"
