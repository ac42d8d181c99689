# The hardened unit on a real systemd: `systemd-analyze security fermata.service` on the running unit, and what fermatad reaches under its sandbox (ALSA, GPIO, input).
# board-lab: no-auto-install
# Needs --deb fermata_<version>_arm64.deb. Besides the exposure score it checks, for the running fermatad: its open
# device files (/proc/PID/fd: the ALSA PCM it plays into), and, for a probe process placed in fermata.service's own
# cgroup (DevicePolicy=closed + DeviceAllow are a cgroup device filter) and mount namespace (ProtectSystem=strict, …)
# and run as the fermata user with its groups: /dev/snd (read/write), the gpio-sim chip (read/write), an input event
# device (read allowed, write refused: `char-input r`), a disk (/dev/vda: refused), and that / and /etc are read-only
# while /var/lib/fermata is writable. The input device is the board's virtio keyboard (/dev/input/event0).

mark scenario_start
mpd_off
chip=$(gpio_sim_setup 8)
lab_install "$(lab_deb 1)" || exit 3
check service_active wait_for 60 fermata_active
check fermata_playing fermata_play_music
pid=$(fermatad_pid)
echo "--- systemd-analyze security fermata.service"
systemd-analyze security --no-pager fermata.service > /tmp/security.txt 2>&1
tail -3 /tmp/security.txt
score=$(sed -n 's/.*Overall exposure level for fermata.service: \([0-9.]*\) \(.*\)/\1 \2/p' /tmp/security.txt)
result "security.exposure=\"$score\""
grep -E '^✗' /tmp/security.txt | head -25
echo "--- fermatad's device files"
ls -l "/proc/$pid/fd" 2>/dev/null | awk '{ print $NF }' | grep '^/dev/' | sort | uniq -c
check fermatad_holds_pcm sh -c "ls -l /proc/$pid/fd | grep -q '/dev/snd/pcmC'"
result "fermatad.dev_files=\"$(ls -l /proc/$pid/fd | awk '{ print $NF }' | grep '^/dev/' | sort -u | tr '\n' ' ')\""

input=$(ls /dev/input/event* 2>/dev/null | head -1)
result "input_device=${input:-none}" "gpio_chip=${chip:-none}"
unit_probes fermata.service fermata "$chip" "$input"
echo "--- fermata doctor (GPIO and input as the daemon's user sees them)"
fermata doctor
fermata input list 2>&1 | head
