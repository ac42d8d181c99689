#!/bin/bash
# One run of the power-cut campaign inside the kernel lab's VM (campaign.sh starts it; runs as root in the guest).
# /dev/vda is the state disk, /dev/vdb the music disk, both ext4, mounted as deploy/ recommends for a board's state
# partition (README "Read-only root": defaults,noatime,errors=remount-ro; ext4's default data=ordered).
#   guest.sh WORK RUN DAEMON SEED FIRST|CHECK SESSION|NOSESSION CUT_MIN CUT_MAX [CONTROL]
# WORK: the campaign folder (the 9p share); RUN: this run's folder in it. CHECK: before anything writes to the state
# disk, fsck it as a boot would (preen, which replays the journal, then a forced read-only check) and copy the state
# files as the cut left them to RUN/raw for judge.py; then client.py starts the daemon and reads what it restored.
# FIRST: an empty state disk. SESSION: then do what owners do until client.py cuts the power; without it, stop the
# daemon cleanly (the campaign's last run).
# CONTROL: a clean stop (SIGTERM) at the instant of the cut instead of the power cut (the control experiment).
set -u
work=$1 run=$2 daemon=$3 seed=$4 phase=$5 session=$6 cut_min=$7 cut_max=$8 control=${9:-}
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$run"
exec 2>> "$run/guest.log"
ip link set lo up 2> /dev/null || ifconfig lo up
options=noatime,errors=remount-ro
case $daemon in
fermatad) state=/var/lib/fermata ;;
mpd) state=/var/lib/mpd ;;
esac
mkdir -p /srv/music "$state"
mount -o "$options" /dev/vdb /srv/music || { echo "cannot mount the music disk" >&2; exit 2; }
if [ "$phase" = CHECK ]; then
    e2fsck -p /dev/vda > "$run/fsck-preen.txt" 2>&1
    echo "$?" > "$run/fsck-preen.rc"
    e2fsck -fn /dev/vda > "$run/fsck-full.txt" 2>&1
    echo "$?" > "$run/fsck-full.rc"
fi
mount -o "$options" /dev/vda "$state" || { echo "cannot mount the state disk" >&2; exit 2; }
grep " $state " /proc/mounts > "$run/mount.txt"
if [ "$phase" = CHECK ]; then
    mkdir -p "$run/raw"
    (cd "$state" && tar -c --exclude=./lost+found .) | tar -x -C "$run/raw"
    ls -la --time-style=full-iso -R "$state" > "$run/raw-listing.txt" 2>&1
fi
case $daemon in
fermatad)
    start=$(printf '["%s","--config","%s","--music","/srv/music","--state","%s","--output","null",'`
        `'"--listen","127.0.0.1:6600","--socket","","--board","off"]' "$work/bin/fermatad" "$work/fermata.toml" "$state")
    ;;
mpd)
    if [ "$phase" = FIRST ]; then
        mkdir -p "$state/playlists" && sync   # what the package's installation leaves
    fi
    start=$(printf '["mpd","--no-daemon","--stderr","%s"]' "$work/mpd.conf")
    ;;
esac
flags=(--daemon "$daemon" --start "$start" --daemon-log "$run/daemon.log" --log "$run/client.jsonl" --seed "$seed"
       --pool "$work/pool" --cut-min "$cut_min" --cut-max "$cut_max")
[ "$phase" = FIRST ] && flags+=(--first)
[ "$phase" = CHECK ] && flags+=(--check)
[ "$session" = SESSION ] && flags+=(--session)
[ "$control" = CONTROL ] && flags+=(--control)
python3 "$here/client.py" "${flags[@]}"
status=$?
# Only a run without a session gets here (a session ends with the power cut), a control run, or a failed client.
sync
umount "$state" /srv/music
exit $status
