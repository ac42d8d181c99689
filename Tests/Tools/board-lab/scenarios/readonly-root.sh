# A read-only root: installed on a writable root (boot 1), then booted with the root mounted ro from the kernel command line and the state on its own disk (boot 2); it boots and plays.
# board-lab: no-auto-install
# board-lab-append-boot2: ro systemd.mask=systemd-remount-fs.service
# Needs --deb fermata_<version>_arm64.deb. Boot 1 installs, queues and plays (the state goes to the state disk, mounted
# at /srv/state and bound to /var/lib/fermata by the image's fstab). Boot 2 has `ro` on the kernel command line, and
# systemd-remount-fs masked so that fstab's `defaults` does not make / writable again: / stays ro all along. Checks:
# / is ro and cannot be written, /var/lib/fermata is writable, fermatad resumes playing, `fermata doctor`, the warnings
# in fermatad's journal, and the units that failed because the root is read-only.

if [ "$BOARD_LAB_BOOT" = 1 ]; then
    mark scenario_start
    mpd_off
    lab_install "$(lab_deb 1)" || exit 3
    check service_active wait_for 60 fermata_active
    check playing fermata_play_music
    sleep 3
    e=$(mpd_field elapsed)
    echo "$e" > "$BOARD_LAB_DIR/saved-elapsed"
    result "rw.elapsed_before_poweroff=$e"
    again
else
    mark scenario_start
    result "ro.root_options=$(findmnt -no OPTIONS /)" "ro.state_options=$(findmnt -no OPTIONS /var/lib/fermata)" \
        "ro.cmdline=\"$(cat /proc/cmdline)\""
    check root_is_ro sh -c 'findmnt -no OPTIONS / | grep -q "^ro"'
    check root_not_writable sh -c '! touch /usr/board-lab-probe 2>/dev/null'
    check state_writable sh -c 'touch /var/lib/fermata/.probe && rm /var/lib/fermata/.probe'
    check service_active wait_for 60 fermata_active
    check resumed wait_for 60 mpd_playing
    st=$(mpd_cmd status); u=$(uptime_s)
    mark fermata_playing
    e=$(printf '%s\n' "$st" | sed -n 's/^elapsed: //p'); saved=$(cat "$BOARD_LAB_DIR/saved-elapsed")
    result "ro.elapsed_at_first_poll=$e ro.saved_elapsed=$saved" \
        "ro.boot_to_music_s=$(awk -v u="$u" -v e="$e" -v s="$saved" 'BEGIN { printf "%.2f", u - (e - s) }')"
    fermata doctor; result "ro.doctor_exit=$?"
    result "ro.failed_units=\"$(systemctl list-units --failed --no-legend --plain | awk '{ print $1 }' | tr '\n' ' ')\""
    journalctl -b -u fermata.service -p warning --no-pager | tail -10
fi
