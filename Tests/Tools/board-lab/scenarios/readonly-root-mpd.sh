# The read-only root with Debian's MPD (no package needed): boot 1 plays with the root writable, boot 2 has the root ro from the kernel command line and MPD resumes from the state disk.
# board-lab-append-boot2: ro systemd.mask=systemd-remount-fs.service
# The same plumbing as readonly-root.sh (which needs Fermata's package): `ro` on the kernel command line and
# systemd-remount-fs masked, so fstab's `defaults` does not make / writable again; /var/lib/mpd is the state disk's
# mpd folder (fstab bind).

if [ "$BOARD_LAB_BOOT" = 1 ]; then
    mark scenario_start
    check mpd_answers wait_for 60 mpd_cmd ping
    mpc -q update --wait; mpc -q clear; mpc -q add /; mpc -q repeat on; mpc -q play
    check playing wait_for 30 mpd_playing
    mpc -q seek 0:10; sleep 1
    systemctl stop mpd.service mpd.socket
    sed -n 's/^time: //p' /var/lib/mpd/state > "$BOARD_LAB_DIR/saved-elapsed"
    result "rw.saved_elapsed=$(cat "$BOARD_LAB_DIR/saved-elapsed")"
    again
else
    mark scenario_start
    result "ro.root_options=$(findmnt -no OPTIONS / | cut -d, -f1-3)" "ro.mpd_state_options=$(findmnt -no OPTIONS /var/lib/mpd | cut -d, -f1-3)"
    check root_is_ro sh -c 'findmnt -no OPTIONS / | grep -q "^ro"'
    check root_not_writable sh -c '! touch /usr/board-lab-probe 2>/dev/null'
    check state_writable sh -c 'touch /var/lib/mpd/.probe && rm /var/lib/mpd/.probe'
    check mpd_resumed wait_for 60 mpd_playing
    st=$(mpd_cmd status); u=$(uptime_s)
    mark mpd_playing
    e=$(printf '%s\n' "$st" | sed -n 's/^elapsed: //p'); saved=$(cat "$BOARD_LAB_DIR/saved-elapsed")
    result "ro.mpd_boot_to_music_s=$(awk -v u="$u" -v e="$e" -v s="$saved" 'BEGIN { printf "%.2f", u - (e - s) }')"
    result "ro.failed_units=\"$(systemctl list-units --failed --no-legend --plain | awk '{ print $1 }' | tr '\n' ' ')\""
fi
