# Fermata's package on a fresh board: installed with apt, the service active, `fermata doctor` clean, music from the second disk plays; then boot to music at the saved position (boot 2).
# board-lab: no-auto-install
# Needs --deb fermata_<version>_arm64.deb. MPD (in the image for comparison) is stopped and disabled first: both
# speak on port 6600 and play into the same card.
# Boot 1: install (apt-get install ./fermata_*.deb, offline), the service active, its MPD port opened to the host
# (mpd.listen = "0.0.0.0:6600", the forwarded port), `fermata doctor`, scan + queue + play, ALSA's substream RUNNING,
# fermatad's memory and the package's sizes; seeks to 0:10 and asks for a second boot.
# Boot 2: fermatad resumes by itself (playback.resume = playing): fermata.boot_to_music_s as first-boot-mpd measures
# MPD's.

deb=$(lab_deb 1)
if [ "$BOARD_LAB_BOOT" = 1 ]; then
    [ -n "$deb" ] || { result "error=no --deb given"; exit 2; }
    mark scenario_start
    mpd_off
    gpio_sim_setup 8 >/dev/null
    lab_install "$deb" || exit 3
    mark installed
    check service_active wait_for 60 fermata_active
    mark fermata_active
    systemctl status fermata.service --no-pager -n 5
    result "fermata.version=$(dpkg-query -W -f='${Version}' fermata)" \
        "fermata.installed_size_kb=$(dpkg-query -W -f='${Installed-Size}' fermata)" \
        "fermata.fermatad_bytes=$(stat -c %s /usr/bin/fermatad)" "fermata.fermata_bytes=$(stat -c %s /usr/bin/fermata)"
    check user_groups sh -c 'id fermata | grep -q audio && id fermata | grep -q gpio && id fermata | grep -q input'
    check conffile sh -c "dpkg-query -W -f='\${Conffiles}\n' fermata | grep -q '^ */etc/fermata/fermata.toml '"
    # The forwarded port reaches the guest's network address, not 127.0.0.1.
    toml_set /etc/fermata/fermata.toml mpd listen '"0.0.0.0:6600"'
    systemctl restart fermata.service
    check service_active_after_restart wait_for 60 fermata_active
    echo "--- fermata doctor"
    fermata doctor; rc=$?
    result "fermata.doctor_exit=$rc"
    check doctor_clean test "$rc" = 0
    t0=$(uptime_s)
    check fermata_playing fermata_play_music
    mark fermata_playing
    result "fermata.scan_queue_play_s=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.2f", b - a }')"
    fermata status
    sleep 1
    check aloop_running grep -qs 'state: RUNNING' /proc/asound/card0/pcm0p/sub0/status /proc/asound/card0/pcm0p/sub1/status
    grep -H -E 'state|owner_pid' /proc/asound/card0/pcm0p/sub*/status
    host_probe
    fermata seek 10 >/dev/null 2>&1 || mpc -q seek 0:10
    sleep 3
    pid=$(fermatad_pid)
    result "fermatad.$(proc_mem "$pid" | sed 's/ / fermatad./g')"
    saved=$(mpd_field elapsed)
    systemctl stop fermata.service
    echo "$saved" > "$BOARD_LAB_DIR/fermata-saved-elapsed"
    result "fermata.saved_elapsed=$saved"
    ls -la /var/lib/fermata/
    check state_on_state_disk findmnt -n /var/lib/fermata
    again
else
    mark scenario_start
    check fermata_resumed wait_for 60 mpd_playing
    st=$(mpd_cmd status); u=$(uptime_s)
    mark fermata_playing
    e=$(printf '%s\n' "$st" | sed -n 's/^elapsed: //p')
    saved=$(cat "$BOARD_LAB_DIR/fermata-saved-elapsed")
    result "fermata.elapsed_at_first_poll=$e fermata.saved_elapsed=$saved" \
        "fermata.boot_to_music_s=$(awk -v u="$u" -v e="$e" -v s="$saved" 'BEGIN { printf "%.2f", u - (e - s) }')" \
        "fermata.music_start_host_offset_s=$(awk -v e="$e" -v s="$saved" 'BEGIN { printf "%.2f", -(e - s) }')"
    # Within the checkpoint interval (2 s) of the saved position, or exactly at it.
    check resumed_near_saved_position awk -v e="$e" -v s="$saved" -v u="$u" 'BEGIN { exit !(e + 0 >= s - 2.5) }'
    fermata doctor; result "fermata.doctor_exit_boot2=$?"
    journalctl -b -u fermata.service --no-pager | tail -8
    pid=$(fermatad_pid)
    result "fermatad.after_boot.$(proc_mem "$pid" | sed 's/ / fermatad.after_boot./g')"
fi
