#!/bin/bash
# replay.sh's recording run inside the kernel lab's VM: the state disk (/dev/vda) behind dm-log-writes, whose log goes
# to /dev/vdc, so that every write the file system hands to the disk, and every flush, is recorded in order; the
# music disk is /dev/vdb. The daemon then runs a session of SECONDS with client.py --record (a mark in the log after
# each answer), and is killed at the end.
#   guest-record.sh WORK RUN DAEMON SEED SECONDS
set -u
work=$1 run=$2 daemon=$3 seed=$4 seconds=$5
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$run"
exec 2>> "$run/guest.log"
ip link set lo up 2> /dev/null || ifconfig lo up
export DM_DISABLE_UDEV=1   # no udev in the guest: libdevmapper makes /dev/mapper/pclog itself
options=noatime,errors=remount-ro
case $daemon in
fermatad) state=/var/lib/fermata ;;
mpd) state=/var/lib/mpd ;;
esac
mkdir -p /srv/music "$state"
mount -o "$options" /dev/vdb /srv/music || exit 2
dmsetup create pclog --table "0 $(blockdev --getsz /dev/vda) log-writes /dev/vda /dev/vdc" || exit 2
dmsetup message pclog 0 mark start
mount -o "$options" /dev/mapper/pclog "$state" || exit 2
case $daemon in
fermatad)
    start=$(printf '["%s","--config","%s","--music","/srv/music","--state","%s","--output","null",'`
        `'"--listen","127.0.0.1:6600","--socket","","--board","off"]' "$work/bin/fermatad" "$work/fermata.toml" "$state")
    ;;
mpd) start=$(printf '["mpd","--no-daemon","--stderr","%s"]' "$work/mpd.conf") ;;
esac
python3 "$here/client.py" --daemon "$daemon" --start "$start" --daemon-log "$run/daemon.log" --log "$run/client.jsonl" \
    --seed "$seed" --pool "$work/pool" --session --record pclog --record-seconds "$seconds"
status=$?
umount "$state"
dmsetup status pclog > "$run/dm-status.txt"
dmsetup remove pclog
umount /srv/music
exit $status
