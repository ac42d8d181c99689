#!/bin/bash
# What fermatad's state writes cost an SD card: the bytes that reach the block device — ext4 with its journal, on a
# loop device — while fermatad plays one long track with the default 2 s checkpoints, once per set of mount options.
# /proc/PID/io counts only the process's own data; the device also sees the journal (inode times, allocation).
# Needs root (losetup, mount) and mpc. Usage:
#   Tests/Tools/sd-writes-bench.sh [SECONDS] [FERMATAD]     (defaults: 120, .build/release/fermatad)
set -euo pipefail
seconds=${1:-120}
fermatad=$(realpath "${2:-.build/release/fermatad}")
work=$(mktemp -d /tmp/fermata-sd-writes-XXXXXX)
device=
cleanup() {
    [ -n "${pid:-}" ] && kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null
    mountpoint -q "$work/state" && umount "$work/state"
    [ -n "$device" ] && losetup -d "$device"
    rm -rf "$work"
}
trap cleanup EXIT
. "$(dirname "$0")/daemon-fixture.sh"
mkdir -p "$work/music" "$work/state"
write_silence "$work/music/long.wav" $((seconds + 30))
sectors() { awk '{ print $7 }' "/sys/block/$(basename "$device")/stat"; }
for options in noatime noatime,lazytime; do
    truncate -s 256M "$work/state.img"
    mkfs.ext4 -q -F "$work/state.img"
    device=$(losetup -f --show "$work/state.img")
    mount -o "$options" "$device" "$work/state"
    start_fermatad "$work/music" "$work/state" 16790 --checkpoint-interval 2
    play_track long.wav
    sleep 3; sync
    device_before=$(sectors) process_before=$(awk '/^write_bytes/ { print $2 }' "/proc/$pid/io")
    sleep "$seconds"; sync
    device_bytes=$(( ($(sectors) - device_before) * 512 ))
    process_bytes=$(( $(awk '/^write_bytes/ { print $2 }' "/proc/$pid/io") - process_before ))
    kill "$pid"; wait "$pid" || true; pid=
    umount "$work/state"; losetup -d "$device"; device=
    awk -v o="$options" -v s="$seconds" -v d="$device_bytes" -v p="$process_bytes" 'BEGIN {
        printf "ext4 -o %s, %d s of one track: device %d B (%.2f MB per hour), fermatad write_bytes %d B (%.2f MB per hour)\n",
               o, s, d, d * 3600 / s / 1e6, p, p * 3600 / s / 1e6 }'
done
