# Helpers for board-lab scenarios (sourced; bash). Everything a scenario prints goes to the serial console; only the
# BOARD-LAB lines are parsed by the host (board-lab.sh).

L=${BOARD_LAB_DIR:-/run/board-lab}

uptime_s() { cut -d' ' -f1 /proc/uptime; }
# mark NAME [k=v ...]: a moment; the host records t_NAME (its seconds since qemu started), the guest's uptime is added.
mark() { local n=$1; shift; echo "BOARD-LAB MARK $n uptime=$(uptime_s)${*:+ $*}"; }
# result k=v ...: figures and facts (values with spaces: quote them, k="a b").
result() { echo "BOARD-LAB RESULT $*"; }
note() { echo "BOARD-LAB NOTE $*"; }
# check NAME COMMAND...: runs COMMAND; RESULT check.NAME=ok|FAIL; a failed check makes the run's status 1.
check() {
    local n=$1; shift
    if "$@"; then result "check.$n=ok"; return 0; fi
    result "check.$n=FAIL"; echo "$n" >> "$L/failed-checks"; return 1
}
# again: power off at the end of this boot and boot once more with the same disks (BOARD_LAB_BOOT+1).
again() { touch "$L/again"; }
# host_probe: the host connects to the forwarded MPD port now and records what it got (RESULT host_probe_mpd=…).
host_probe() { echo "BOARD-LAB HOST-PROBE"; sleep 1; }
# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds (0) or SECONDS pass (1).
wait_for() {
    local limit=$1; shift
    local end; end=$(awk -v u="$(uptime_s)" -v l="$limit" 'BEGIN { printf "%.1f", u + l }')
    while :; do
        "$@" >/dev/null 2>&1 && return 0
        awk -v u="$(uptime_s)" -v e="$end" 'BEGIN { exit !(u >= e) }' && return 1
        sleep 0.1
    done
}
# lab_debs: the --deb files in the order given (paths in the guest).
lab_debs() { [ -s "$L/debs/ORDER" ] && sed "s|^|$L/debs/|" "$L/debs/ORDER"; }
lab_deb() { lab_debs | sed -n "${1}p"; }   # lab_deb N: the Nth
# lab_install FILE [APT-OPTION...]: apt-get install it offline (the image holds its dependencies; the guest's network
# reaches nothing but the host's forwarded port, so a dependency missing from the image fails the install); RESULT
# with its time. Standard input is /dev/null (the runner's): a dpkg conffile prompt fails the install instead of
# waiting. (Not --no-download: apt 3.0 then refuses a local .deb, "Internal Error, Pathname to install is not absolute".)
lab_install() {
    local deb=$1 t0 rc; shift
    t0=$(uptime_s)
    echo "board-lab: apt-get install${*:+ $*} $deb"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -o Dpkg::Use-Pty=0 "$@" "$deb" </dev/null 2>&1 | tail -15
    rc=${PIPESTATUS[0]}
    result "install.$(basename "$deb" .deb)=$([ $rc = 0 ] && echo ok || echo FAIL) install_s=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')"
    return $rc
}
# lab_boot_figures: what systemd measured of this boot (monotonic seconds since the kernel started).
lab_boot_figures() {
    local mu us ir
    us=$(systemctl show -p UserspaceTimestampMonotonic --value)
    ir=$(systemctl show -p InitRDTimestampMonotonic --value)
    mu=$(systemctl show multi-user.target -p ActiveEnterTimestampMonotonic --value)
    # The initramfs is initramfs-tools' (not systemd's): systemd starts at "userspace" (PID 1 in the real root).
    result "guest.systemd_userspace_ts_s=$(awk -v x="${us:-0}" 'BEGIN { printf "%.2f", x / 1e6 }')" \
        "guest.systemd_initrd_ts_s=$(awk -v x="${ir:-0}" 'BEGIN { printf "%.2f", x / 1e6 }')" \
        "guest.multi_user_s=$(awk -v x="${mu:-0}" 'BEGIN { printf "%.2f", x / 1e6 }')" \
        "guest.mem_total_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)" \
        "guest.mem_available_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)" \
        "guest.root=$(findmnt -no OPTIONS / | cut -d, -f1)"
}
# mpd_cmd COMMAND...: one exchange with MPD on 127.0.0.1:${MPD_PORT:-6600} (the raw protocol, exact elapsed).
mpd_cmd() {
    local port=${MPD_PORT:-6600}
    { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
    local line
    read -r -t 5 line <&3 || { exec 3<&-; return 1; }
    printf '%s\nclose\n' "$@" >&3
    while read -r -t 5 line <&3; do
        line=${line%$'\r'}
        case "$line" in OK|ACK*) [ "${line%% *}" = ACK ] && echo "$line"; break ;; *) echo "$line" ;; esac
    done
    exec 3<&-
}
# mpd_field NAME [COMMAND]: one field of `status` (or COMMAND's reply).
mpd_field() { mpd_cmd "${2:-status}" | sed -n "s/^$1: //p" | head -1; }
# mpd_playing: MPD (or Fermata, which speaks its protocol) says state: play with elapsed > 0.
mpd_playing() {
    local st; st=$(mpd_cmd status) || return 1
    printf '%s\n' "$st" | grep -qx 'state: play' || return 1
    printf '%s\n' "$st" | awk -F': ' '$1 == "elapsed" && $2 + 0 > 0 { ok = 1 } END { exit !ok }'
}
# proc_mem PID: VmRSS, RssAnon and RssFile in kB, as k=v.
proc_mem() {
    awk '/^(VmRSS|RssAnon|RssFile|VmHWM):/ { printf "%s%s_kb=%s", sep, tolower($1), $2; sep = " " }' "/proc/$1/status" | tr -d ':'
}

# --- MPD and Fermata on the same board -------------------------------------------------------------------------------
# mpd_off: MPD stopped and disabled (its socket too), so that Fermata gets port 6600 and the sound card.
mpd_off() { systemctl disable --now mpd.socket mpd.service >/dev/null 2>&1 || true; }
# toml_set FILE SECTION KEY VALUE: sets KEY in [SECTION] (replacing a `KEY =` or commented `#KEY =` line there), or
# adds it. VALUE is written as given (quote strings: '"0.0.0.0:6600"').
toml_set() {
    local file=$1 section=$2 key=$3 value=$4 tmp
    tmp=$(mktemp)
    awk -v s="[$section]" -v k="$key" -v v="$value" '
        function flush() { if (in_s && !done) { print k " = " v; done = 1 } }
        /^\[/ { flush(); in_s = ($0 == s); seen = seen || in_s }
        in_s && !done && $0 ~ "^#? *" k " *=" { print k " = " v; done = 1; next }
        { print }
        END { flush(); if (!seen) { print ""; print s; print k " = " v } }' "$file" > "$tmp" && cat "$tmp" > "$file"
    rm -f "$tmp"
}
fermatad_pid() { systemctl show -p MainPID --value fermata.service; }
fermata_active() { systemctl is-active --quiet fermata.service; }
# fermata_play_music: scans the music disk, queues it and plays; RESULT with the times; 0 when playing.
fermata_play_music() {
    local t0; t0=$(uptime_s)
    fermata scan 2>&1 | tail -3
    result "fermata.scan_s=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')"
    fermata queue clear >/dev/null 2>&1 || true
    fermata queue add "Board Lab" 2>&1 | tail -2
    fermata play 2>&1 | tail -2
    wait_for 60 mpd_playing
}
# gpio_sim_setup [LINES]: one simulated GPIO chip (label board-lab, LINES lines) through configfs, when the kernel
# has gpio-sim; RESULT gpio_sim=…; prints the chip's /dev name.
gpio_sim_setup() {
    local n=${1:-8} d=/sys/kernel/config/gpio-sim/board-lab
    modprobe gpio-sim 2>/dev/null
    mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config 2>/dev/null
    if [ ! -d /sys/kernel/config/gpio-sim ]; then result "gpio_sim=absent" >&2; return 1; fi
    if [ ! -d "$d" ]; then
        mkdir "$d" "$d/bank0" && echo "$n" > "$d/bank0/num_lines" && echo board-lab > "$d/bank0/label" &&
            echo 1 > "$d/live" || { result "gpio_sim=setup-failed" >&2; return 1; }
    fi
    local chip; chip=$(cat "$d/bank0/chip_name" 2>/dev/null)
    wait_for 20 test -c "/dev/$chip"   # (not `udevadm settle`: under TCG it waits ~20 s for unrelated events)
    result "gpio_sim=ok gpio_sim_chip=/dev/$chip" >&2
    echo "/dev/$chip"
}

# gpio_sim_pull CHIP OFFSET pull-up|pull-down: sets the simulated line's pull from sysfs, as a button wired to ground
# (active-low) is released or pressed; the consumer's bias request sets the same attribute.
gpio_sim_pull() {
    local f; f=$(ls -d /sys/devices/platform/gpio-sim.*/"$(basename "$1")/sim_gpio$2" 2>/dev/null | head -1)
    [ -n "$f" ] && echo "$3" > "$f/pull"
}

# --- A unit's sandbox, seen from inside -------------------------------------------------------------------------------
# unit_probe UNIT USER WHAT EXPECT SHELL-COMMAND: runs SHELL-COMMAND in UNIT's own cgroup (DevicePolicy=/DeviceAllow=
# are a cgroup device filter) and its main process's mount namespace (ProtectSystem=, ReadWritePaths=, …), as USER with
# USER's groups (`-`: as root, so that only the device filter can refuse). RESULT sandbox.[root_]WHAT=ok|denied and a
# check that it is EXPECT.
unit_probe() {
    local unit=$1 user=$2 what=$3 expect=$4 cmd=$5 pid cg got drop=""
    pid=$(systemctl show -p MainPID --value "$unit")
    cg=/sys/fs/cgroup$(systemctl show -p ControlGroup --value "$unit")
    [ "$user" = - ] && what=root_$what || drop="setpriv --reuid=$user --regid=$user --init-groups --"
    if bash -c "echo \$\$ > '$cg/cgroup.procs' && exec nsenter -t $pid -m -- $drop sh -c '$cmd'" >/dev/null 2>&1
    then got=ok; else got=denied; fi
    result "sandbox.$what=$got"
    check "sandbox_$what" test "$got" = "$expect"
}
# unit_probes UNIT USER GPIOCHIP INPUTDEV: the probes hardened.sh and hardened-unit.sh share.
unit_probes() {
    local unit=$1 user=$2 chip=$3 input=$4
    unit_probe "$unit" "$user" snd_control_rw ok 'exec 3<>/dev/snd/controlC0'
    unit_probe "$unit" "$user" snd_pcm_rw ok 'exec 3<>/dev/snd/pcmC0D1p'    # Loopback device 1
    [ -z "$chip" ] || unit_probe "$unit" "$user" gpiochip_rw ok "exec 3<>$chip"
    if [ -n "$input" ]; then
        unit_probe "$unit" "$user" input_read ok "exec 3<$input"
        unit_probe "$unit" "$user" input_write denied "exec 3>$input"
    fi
    unit_probe "$unit" "$user" disk_read denied 'exec 3</dev/vda'
    unit_probe "$unit" "$user" etc_write denied 'touch /etc/board-lab-probe'
    unit_probe "$unit" "$user" usr_write denied 'touch /usr/board-lab-probe'
    unit_probe "$unit" "$user" state_write ok 'touch /var/lib/fermata/.board-lab-probe && rm /var/lib/fermata/.board-lab-probe'
    unit_probe "$unit" "$user" music_read ok 'ls /srv/music/ >/dev/null'
    # As root in the unit's cgroup: file permissions would allow these, so only the device filter decides.
    unit_probe "$unit" - disk_read denied 'exec 3</dev/vda'
    unit_probe "$unit" - snd_control_rw ok 'exec 3<>/dev/snd/controlC0'
    [ -z "$input" ] || unit_probe "$unit" - input_write denied "exec 3>$input"
}
