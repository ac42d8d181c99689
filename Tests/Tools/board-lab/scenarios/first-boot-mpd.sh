# MPD (Debian's arm64 mpd) on the emulated board: first boot to music on command, then boot to music at the saved position.
# Boot 1: MPD is enabled in the image (mpd.service at boot, its socket on 6600 forwarded to the host). The scenario
# waits for MPD to answer, scans the music disk, queues it, plays into snd-aloop and reports when MPD says
# `state: play` with elapsed > 0 (mark mpd_playing: the host's seconds since qemu started), that ALSA's loopback
# substream is RUNNING, MPD's memory; then seeks to 0:10, stops MPD (its state file, on the state disk, says play) and
# asks for a second boot.
# Boot 2: MPD restores the queue and plays by itself. The first poll's elapsed E and uptime U give the moment audio
# started: U - (E - saved). Reported as mpd.boot_to_music_s (guest clock, from kernel start) and, on the host's
# clock, boot2.t_mpd_playing minus (E - saved) (RESULT mpd.music_start_host_offset_s).

kernel_facts() {
    local cfg=/boot/config-$(uname -r)
    opt() { local v; v=$(sed -n "s/^CONFIG_$1=//p" "$cfg"); echo "${v:-n}"; }
    # n: not in trixie's kernel; the lab's image then has it as an out-of-tree module (build-modules.sh), if loaded.
    result "kernel.gpio_sim=$(opt GPIO_SIM)" "kernel.snd_aloop=$(opt SND_ALOOP)" "kernel.snd_dummy=$(opt SND_DUMMY)" \
        "kernel.uinput=$(opt INPUT_UINPUT)" "kernel.virtio_input=$(opt VIRTIO_INPUT)"
    result "modules.out_of_tree=\"$(ls /lib/modules/$(uname -r)/updates/board-lab 2>/dev/null | tr '\n' ' ')\"" \
        "kernel.tainted=$(cat /proc/sys/kernel/tainted)"
    result "loaded=$(lsmod | awk 'NR > 1 && $1 ~ /^(snd_aloop|snd_dummy|gpio_sim|uinput)$/ { printf "%s%s", s, $1; s = "," }')"
    echo "--- /proc/asound/cards"; cat /proc/asound/cards
    ls -l /dev/uinput /dev/input/ 2>&1 | head
    chip=$(gpio_sim_setup 8) && gpiodetect 2>&1
    if [ -n "$chip" ]; then
        # The outside world pulls line 3 up, then down; the GPIO character device reads it (libgpiod's gpioget).
        sim=/sys/bus/platform/devices/$(cat /sys/kernel/config/gpio-sim/board-lab/dev_name)/$(basename "$chip")/sim_gpio3
        echo pull-up > "$sim/pull"; up=$(gpioget -c "$(basename "$chip")" --numeric 3 2>&1)
        echo pull-down > "$sim/pull"; down=$(gpioget -c "$(basename "$chip")" --numeric 3 2>&1)
        result "gpio_sim.line3_up=$up gpio_sim.line3_down=$down"
        check gpio_sim_line_follows test "$up/$down" = "1/0"
    fi
}

if [ "$BOARD_LAB_BOOT" = 1 ]; then
    mark scenario_start
    kernel_facts
    check mpd_answers wait_for 60 mpd_cmd ping
    mark mpd_answers
    result "mpd.version=$(dpkg-query -W -f='${Version}' mpd)" "mpd.active=$(systemctl is-active mpd.service)"
    t0=$(uptime_s)
    mpc -q update --wait
    result "mpd.scan_s=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.2f", b - a }')" \
        "mpd.songs=$(mpd_field songs stats)"
    mpc -q clear; mpc -q add /; mpc -q repeat on
    mark mpd_play_command
    t0=$(uptime_s)
    mpc -q play
    check mpd_playing wait_for 30 mpd_playing
    mark mpd_playing
    result "mpd.play_to_playing_s=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.2f", b - a }')"
    mpc status
    # The loopback's playback substream runs: MPD's audio reaches the ALSA device.
    sleep 1
    check aloop_running grep -qs 'state: RUNNING' /proc/asound/card0/pcm0p/sub0/status
    grep -E 'state|owner_pid|hw_ptr' /proc/asound/card0/pcm0p/sub0/status
    host_probe
    mpc -q seek 0:10
    sleep 2
    pid=$(systemctl show -p MainPID --value mpd.service)
    result "mpd.$(proc_mem "$pid" | sed 's/ / mpd./g')"
    result "guest.mem_available_playing_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)"
    free -m
    systemctl stop mpd.service mpd.socket
    saved=$(sed -n 's/^time: //p' /var/lib/mpd/state)
    echo "$saved" > "$BOARD_LAB_DIR/mpd-saved-elapsed"
    result "mpd.saved_elapsed=$saved mpd.saved_state=$(sed -n 's/^state: //p' /var/lib/mpd/state)"
    check state_on_state_disk findmnt -n /var/lib/mpd
    again
else
    # As early as this runner starts (after multi-user.target): is MPD already playing the restored queue?
    mark scenario_start
    check mpd_resumed wait_for 60 mpd_playing
    st=$(mpd_cmd status); u=$(uptime_s)
    mark mpd_playing
    e=$(printf '%s\n' "$st" | sed -n 's/^elapsed: //p')
    saved=$(cat "$BOARD_LAB_DIR/mpd-saved-elapsed")
    result "mpd.elapsed_at_first_poll=$e mpd.saved_elapsed=$saved" \
        "mpd.boot_to_music_s=$(awk -v u="$u" -v e="$e" -v s="$saved" 'BEGIN { printf "%.2f", u - (e - s) }')" \
        "mpd.music_start_host_offset_s=$(awk -v e="$e" -v s="$saved" 'BEGIN { printf "%.2f", -(e - s) }')"
    check resumed_at_saved_position awk -v e="$e" -v s="$saved" 'BEGIN { exit !(e >= s) }'
    journalctl -b -u mpd.service --no-pager | tail -5
    pid=$(systemctl show -p MainPID --value mpd.service)
    result "mpd.after_boot.$(proc_mem "$pid" | sed 's/ / mpd.after_boot./g')"
fi
