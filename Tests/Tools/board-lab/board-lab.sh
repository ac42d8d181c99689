#!/usr/bin/env bash
# The board lab: an emulated arm64 board (qemu-system-aarch64 -M virt) running Debian 13 (trixie) arm64 with its own
# kernel and systemd as PID 1, ALSA through snd-aloop/snd-dummy, GPIO through gpio-sim (trixie's kernel lacks it and
# snd-dummy: build-modules.sh builds both out of tree), input through a virtio keyboard and uinput, the music and the
# state on virtio disks, MPD's port forwarded to the host, the serial console for the rest. README.md has the figures.
#
#   board-lab.sh image [--rebuild] [--mirror URL]     build or bring up to date the cached image (make-image.sh)
#   board-lab.sh SCENARIO [options]                   boot, install the --deb packages, run the scenario, print its
#                                                     figures, power off. SCENARIO: a name in scenarios/ (NAME.sh) or
#                                                     a path to a shell file
#   board-lab.sh shell [options]                      boot to a root shell on the serial console (Ctrl-a x quits)
#   board-lab.sh list                                 the scenarios, with their first comment line
#
# Options:
#   --release TAG    the package of that released version (release-deb.sh builds it once from the git tag), before
#                    any --deb: `upgrade --release v1.0.0 --deb NEW.deb` upgrades from what owners run
#   --deb FILE       copy FILE into the guest (repeatable, order kept); unless the scenario says
#                    `# board-lab: no-auto-install`, each is installed with `apt-get install -y ./FILE`
#                    before the scenario runs (offline: the guest's network reaches only the host's forwarded port)
#   --file FILE      copy FILE into the guest as $BOARD_LAB_DIR/files/NAME (repeatable), e.g. deploy/fermata.service
#   --state FILE     use FILE (an ext4 image, label state) as the state disk and keep it; default: a fresh copy of the
#                    image's empty state disk for every run
#   --port N         host port forwarded to the guest's 6600 (MPD clients), on 127.0.0.1 (default $BOARD_LAB_PORT or 6660)
#   --timeout SEC    limit for each boot (default $BOARD_LAB_TIMEOUT or 1200); exit 124 when reached
#   --append ARGS    more kernel command-line arguments (every boot)
#   --smp N --mem MB guest CPUs and memory (default 2 and 1024, the most this lab uses)
#   --cpu MODEL      qemu CPU model (default cortex-a72: cheaper under TCG than `max`, whose pointer authentication
#                    is emulated)
#   --keep           keep the run's disks (root overlay, state, lab) beside its logs
#   -v, --verbose    copy the whole serial console to stderr (default: only BOARD-LAB lines and boot milestones)
#   -e NAME=VALUE    environment variable for the scenario (repeatable)
#
# A scenario is a bash script run as root in the guest after multi-user.target, with lib.sh sourced (guest/lib.sh:
# mark, result, wait_for, mpd_status, again, …). It reports on the console with lines
#   BOARD-LAB MARK NAME [k=v …]   a moment: the host notes its own time since qemu started (t_NAME)
#   BOARD-LAB RESULT k=v …        a figure or a check, printed at the end
# and may ask for another boot (`again`: the same disks, BOARD_LAB_BOOT=2, …). Scenario header lines:
#   # board-lab: no-auto-install            the scenario installs the --deb files itself (lab_debs, lab_install)
#   # board-lab-append: ARGS                kernel arguments for every boot
#   # board-lab-append-bootN: ARGS          kernel arguments for boot N only (e.g. `ro` for a read-only root)
#
# The host times each serial line as it arrives (seconds since qemu was started) and reports per boot:
# t_kernel (the first console line, with earlycon), t_multi_user (systemd's "Reached target multi-user.target"),
# t_<mark> for every MARK, and the scenario's RESULT lines. Everything is also in the run folder:
# $BOARD_LAB_CACHE/runs/SCENARIO-UTCSTAMP/{serial.log (timed), results.txt, qemu.log}.
#
# Needs root (for `image`), qemu-system-aarch64 (apt-get install qemu-system-arm), qemu-utils, e2fsprogs. Every
# CPU-heavy step runs under `nice -n 19`; at most one guest runs at a time (a lock in the cache folder).
set -euo pipefail
shopt -s extglob
here=$(cd "$(dirname "$0")" && pwd)
cache=${BOARD_LAB_CACHE:-/var/tmp/fermata-board-lab}
port=${BOARD_LAB_PORT:-6660} timeout_s=${BOARD_LAB_TIMEOUT:-1200}
smp=2 mem=1024 cpu=cortex-a72 keep=0 verbose=0 state_file="" extra_append=""
debs=() envs=() files=()

die() { echo "board-lab: $*" >&2; exit 2; }
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

[ $# -ge 1 ] || { usage; exit 2; }
mode=$1; shift
case "$mode" in
    -h|--help) usage; exit 0 ;;
    image) exec "$here/make-image.sh" --cache "$cache" "$@" ;;
    list)
        for f in "$here"/scenarios/*.sh; do
            printf '%-18s %s\n' "$(basename "$f" .sh)" "$(sed -n '1s/^# *//p' "$f")"
        done
        exit 0 ;;
esac
while [ $# -gt 0 ]; do
    case "$1" in
        --deb) [ -f "$2" ] || die "--deb $2: no such file"; debs+=("$(realpath "$2")"); shift 2 ;;
        --release) released=$("$here/release-deb.sh" "$2") || die "--release $2: no package"
                   debs=("$released" ${debs[@]+"${debs[@]}"}); shift 2 ;;
        --file) [ -f "$2" ] || die "--file $2: no such file"; files+=("$(realpath "$2")"); shift 2 ;;
        --state) state_file=$(realpath -m "$2"); shift 2 ;;
        --port) port=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --append) extra_append="$extra_append $2"; shift 2 ;;
        --smp) smp=$2; shift 2 ;;
        --mem) mem=$2; shift 2 ;;
        --cpu) cpu=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        -v|--verbose) verbose=1; shift ;;
        -e) envs+=("$2"); shift 2 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
[ "$smp" -le 2 ] && [ "$mem" -le 1024 ] || die "this machine is shared: --smp 2 --mem 1024 at most"

if [ "$mode" = shell ]; then
    scenario_file="" name=shell
elif [ -f "$mode" ]; then
    scenario_file=$(realpath "$mode") name=$(basename "$mode" .sh)
elif [ -f "$here/scenarios/$mode.sh" ]; then
    scenario_file=$here/scenarios/$mode.sh name=$mode
else
    die "no scenario $mode (board-lab.sh list)"
fi

command -v qemu-system-aarch64 >/dev/null || die "needs qemu-system-aarch64 (apt-get install qemu-system-arm)"
command -v qemu-img >/dev/null || die "needs qemu-img (apt-get install qemu-utils)"
for f in root.img vmlinuz initrd.img music.img state.img; do
    [ -f "$cache/$f" ] || die "no $cache/$f: run \`sudo $0 image\` first (BOARD_LAB_CACHE=$cache)"
done

# One guest at a time on this machine.
exec 9>"$cache/.lock"
flock -n 9 || { echo "board-lab: another guest is running (lock $cache/.lock); waiting" >&2; flock 9; }

run=$cache/runs/$name-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
echo "board-lab: run folder $run" >&2
cleanup() {
    if [ $keep = 0 ]; then rm -f "$run/root.qcow2" "$run/lab.img" "$run/state.img"; fi
}
trap cleanup EXIT

# The disks: a throw-away overlay of the image's root, the music disk (read-only), the state disk, the lab disk.
qemu-img create -q -f qcow2 -F raw -b "$cache/root.img" "$run/root.qcow2"
if [ -n "$state_file" ]; then
    [ -f "$state_file" ] || cp --sparse=always "$cache/state.img" "$state_file"
    state_disk=$state_file
else
    cp --sparse=always "$cache/state.img" "$run/state.img"
    state_disk=$run/state.img
fi
lab=$run/lab
mkdir -p "$lab/debs" "$lab/files"
for f in ${files[@]+"${files[@]}"}; do cp "$f" "$lab/files/"; done
cp "$here/guest/run.sh" "$here/guest/lib.sh" "$lab/"
: > "$lab/debs/ORDER"
for deb in ${debs[@]+"${debs[@]}"}; do
    cp "$deb" "$lab/debs/"
    basename "$deb" >> "$lab/debs/ORDER"
done
if [ -n "$scenario_file" ]; then
    cp "$scenario_file" "$lab/scenario.sh"
    echo "$name" > "$lab/NAME"
    : > "$lab/env"
    for kv in ${envs[@]+"${envs[@]}"}; do printf 'export %q\n' "$kv" >> "$lab/env"; done
    grep -q '^# board-lab: no-auto-install' "$scenario_file" && touch "$lab/no-auto-install"
fi
lab_mb=$(( $(du -sm "$lab" | cut -f1) * 2 + 32 ))
nice -n 19 mkfs.ext4 -q -F -L blab -E root_owner=0:0 -d "$lab" "$run/lab.img" "${lab_mb}M"
rm -rf "$lab"

header_append() {  # header_append BOOT: the scenario's kernel arguments for that boot
    [ -n "$scenario_file" ] || return 0
    sed -n -e 's/^# board-lab-append: //p' -e "s/^# board-lab-append-boot$1: //p" "$scenario_file" | tr '\n' ' '
}

ms_since() {  # ms_since T0_US: milliseconds from T0 (microseconds, from $EPOCHREALTIME) to now, as seconds.mmm
    local now=${EPOCHREALTIME/./}
    local d=$(( (now - $1) / 1000 ))
    printf '%d.%03d' $((d / 1000)) $((d % 1000))
}

# probe_mpd: the host's view through the forwarded port (an MPD client's first exchange).
probe_mpd() {
    local reply=""
    if reply=$(timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; printf 'status\nclose\n' >&3; cat <&3" 2>/dev/null); then
        printf '%s' "$reply" | tr -d '\r' | grep -E '^(OK MPD|state:|elapsed:)' | tr '\n' ' '
    else
        echo "no answer on 127.0.0.1:$port"
    fi
}

boot=1 status=0
: > "$run/results.txt"
while :; do
    append="console=ttyAMA0 earlycon=pl011,0x9000000 root=/dev/vda rw systemd.show_status=1 systemd.log_level=notice board_lab.boot=$boot"
    [ -z "$scenario_file" ] || append="$append board_lab.run=1 systemd.mask=serial-getty@ttyAMA0.service"
    boot_append="$(header_append $boot) $extra_append"
    if [[ " $boot_append " == *" ro "* ]]; then append=${append/ rw / }; fi
    append="$append $boot_append"
    qemu=(nice -n 19 qemu-system-aarch64 -M virt -accel tcg,thread=multi -cpu "$cpu" -smp "$smp" -m "$mem"
        -kernel "$cache/vmlinuz" -initrd "$cache/initrd.img" -append "$append"
        -drive "file=$run/root.qcow2,if=virtio,format=qcow2,discard=unmap"
        -drive "file=$cache/music.img,if=virtio,format=raw,readonly=on"
        -drive "file=$state_disk,if=virtio,format=raw"
        -drive "file=$run/lab.img,if=virtio,format=raw"
        -netdev "user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:6600"
        -device virtio-net-pci,netdev=net0,romfile=
        -device virtio-rng-pci -device virtio-keyboard-pci
        -display none -monitor none -no-reboot)
    echo "board-lab: boot $boot: ${qemu[*]}" >> "$run/qemu.log"
    if [ -z "$scenario_file" ]; then
        echo "board-lab: shell on the serial console (root, no password); Ctrl-a x ends qemu" >&2
        "${qemu[@]}" -serial mon:stdio
        exit $?
    fi
    echo "board-lab: boot $boot of $name (qemu-system-aarch64 -M virt -cpu $cpu -smp $smp -m $mem, TCG)" >&2
    events=$run/events-boot$boot.txt
    : > "$events"
    t0=${EPOCHREALTIME/./}
    set +e
    # GNU time (when there is one): qemu's peak RSS on the host, its wall time and its CPU seconds.
    measure=()
    [ ! -x /usr/bin/time ] || measure=(/usr/bin/time -o "$run/qemu-time-boot$boot.txt"
        -f 't_qemu_wall %e\nqemu_user_cpu_s %U\nqemu_sys_cpu_s %S\nqemu_max_rss_kb %M')
    timeout -k 10 "$timeout_s" ${measure[@]+"${measure[@]}"} "${qemu[@]}" -serial stdio </dev/null 2>>"$run/qemu.log" | {
        first=1
        while IFS= read -r line; do
            t=$(ms_since "$t0")
            line=${line%$'\r'}
            clean=${line//$'\e'\[*([0-9;:?])[a-zA-Z]/}
            printf '[%9s] %s\n' "$t" "$clean" >> "$run/serial.log"
            [ $verbose = 0 ] || printf '[%9s] %s\n' "$t" "$clean" >&2
            if [ $first = 1 ] && [ -n "$clean" ]; then
                first=0; echo "t_kernel $t" >> "$events"
                [ $verbose = 1 ] || printf '[%9s] (first console line) %s\n' "$t" "$clean" >&2
            fi
            case "$clean" in
                *"Reached target"*"multi-user.target"*|*"Reached target"*"Multi-User System"*)
                    grep -q '^t_multi_user ' "$events" || { echo "t_multi_user $t" >> "$events"
                        [ $verbose = 1 ] || printf '[%9s] %s\n' "$t" "$clean" >&2; } ;;
                *"Kernel panic"*|*"end Kernel panic"*)
                    echo "error kernel-panic" >> "$events"; [ $verbose = 1 ] || printf '[%9s] %s\n' "$t" "$clean" >&2 ;;
                "BOARD-LAB MARK "*)
                    rest=${clean#BOARD-LAB MARK }
                    echo "t_${rest%% *} $t" >> "$events"
                    [ $verbose = 1 ] || printf '[%9s] %s\n' "$t" "$clean" >&2 ;;
                "BOARD-LAB RESULT "*)
                    echo "result ${clean#BOARD-LAB RESULT }" >> "$events"
                    [ $verbose = 1 ] || printf '[%9s] %s\n' "$t" "$clean" >&2 ;;
                "BOARD-LAB HOST-PROBE"*)
                    p=$(probe_mpd)
                    echo "result host_probe_mpd=\"$p\" t_host_probe=$t" >> "$events"
                    printf '[%9s] host probe 127.0.0.1:%s -> %s\n' "$t" "$port" "$p" | tee -a "$run/serial.log" >&2 ;;
                "BOARD-LAB AGAIN"*) echo "again" >> "$events"; [ $verbose = 1 ] || printf '[%9s] %s\n' "$t" "$clean" >&2 ;;
                "BOARD-LAB END "*)
                    echo "end ${clean#BOARD-LAB END }" >> "$events"
                    [ $verbose = 1 ] || printf '[%9s] %s\n' "$t" "$clean" >&2 ;;
                "BOARD-LAB "*) [ $verbose = 1 ] || printf '[%9s] %s\n' "$t" "$clean" >&2 ;;
            esac
        done
        echo "t_qemu_exit $(ms_since "$t0")" >> "$events"
    }
    rc=${PIPESTATUS[0]}
    set -e
    [ $rc = 124 ] && { echo "board-lab: boot $boot hit the time limit (${timeout_s}s)" >&2; status=124; }
    {
        echo "# boot $boot"
        awk '/^t_/ { printf "boot%s.%s=%s\n", B, $1, $2 }' B=$boot "$events"
        [ ! -f "$run/qemu-time-boot$boot.txt" ] ||
            awk 'NF == 2 && $1 ~ /^(t_|qemu_)/ { printf "boot%s.host.%s=%s\n", B, $1, $2 }' B=$boot "$run/qemu-time-boot$boot.txt"
        sed -n "s/^result /boot$boot: /p" "$events"
        sed -n "s/^end /boot$boot.end: /p" "$events"
    } >> "$run/results.txt"
    if [ $status = 0 ] && grep -qx again "$events"; then
        boot=$((boot + 1))
        [ $boot -le 5 ] || { echo "board-lab: more than 5 boots asked for; stopping" >&2; status=1; break; }
        continue
    fi
    end=$(sed -n 's/^end status=\([0-9]*\).*/\1/p' "$events" | tail -1)
    if [ $status = 0 ]; then
        if [ -z "$end" ]; then echo "board-lab: the guest ended without BOARD-LAB END (qemu: $(tail -n 1 "$run/qemu.log"))" >&2; status=1
        else status=$end; fi
    fi
    break
done
echo "== board-lab $name: figures (seconds since qemu started, per boot) =="
cat "$run/results.txt"
echo "== serial log: $run/serial.log; exit status $status"
exit $status
