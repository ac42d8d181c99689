# The hardened unit as shipped (no drop-in) reaches the devices: fermatad plays into the lab's ALSA card, a gpio-sim line wired as a button pauses and plays, a uinput pedal plugged in after the start pauses and plays; `systemd-analyze security` and the unit's settings as shipped.
# board-lab: no-auto-install
# Needs --deb fermata_<version>_arm64.deb. The gpio-sim chip (label board-lab, 8 lines) is made before the install, so
# that the package's udev rule gives it to the gpio group. Then, all through fermata.service as the package ships it
# (/usr/lib/systemd/system/fermata.service, no drop-in: checked), each part a RESULT and checks:
# (a) ALSA: fermatad plays the music disk; /proc/PID/fd holds /dev/snd/pcmC*, and /proc/asound/card*/pcm*p/sub*/status
#     says RUNNING with owner_pid one of fermatad's threads.
# (b) GPIO: a board profile /etc/fermata/boards/board-lab.toml (model: this machine's /proc/device-tree/model, one
#     button `play` on "board-lab:3", press = play-pause; bias and active-low left at their defaults, pull-up and
#     active-low: fermatad's line request sets the sim's pull to pull-up, the line reads 1, released). First with the
#     package's `board = "auto"`: fermatad reads /proc/device-tree/model from inside the sandbox, and must find the
#     profile (checked when the machine has a model; the unit's /proc mount options are reported); when it does not,
#     with `board = "board-lab"`. A press is the sim's sysfs `pull` set to pull-down for 0.3 s, then pull-up (a button
#     to ground): MPD's state goes play -> pause, and a second press back to play.
# (c) Input: [input-pedal] name = "Board Lab Pedal", [button-pedal] key = KEY_B, press = play-pause, configured and the
#     service restarted BEFORE the pedal exists (the journal says it waits for it); then a virtual USB pedal made
#     through /dev/uinput (perl: the image has perl-base, not python3; raw struct uinput_setup and struct input_event),
#     fermatad opens it by itself (hot-plug), a press pauses, a second plays; the pedal unplugged.
# (d) `systemd-analyze security fermata.service` (the overall exposure line), and `systemctl show` of the sandbox's
#     settings against the unit file's text (DeviceAllow= with the char-rtc r that ProtectClock=yes adds).
# Then the sandbox probes that hardened-unit.sh makes around `sleep` (unit_probes in lib.sh), here around fermatad.

unit=/usr/lib/systemd/system/fermata.service conf=/etc/fermata/fermata.toml
since_now() { date '+%Y-%m-%d %H:%M:%S'; }
journal_since() { journalctl -u fermata.service --since "$1" --no-pager -o cat; }
state_is() { [ "$(mpd_field state)" = "$1" ]; }
fd_links() { ls -l "/proc/$1/fd" 2>/dev/null | awk '{ print $NF }'; }
restart_fermata() {  # restart_fermata: restarts, waits until active and playing again (playback.resume = playing)
    systemctl restart fermata.service
    wait_for 60 fermata_active && wait_for 60 mpd_playing
}
mark scenario_start
mpd_off
chip=$(gpio_sim_setup 8)
lab_install "$(lab_deb 1)" || exit 3
check service_active wait_for 60 fermata_active
result "unit.fragment=$(systemctl show -p FragmentPath --value fermata.service)" \
    "unit.dropins=\"$(systemctl show -p DropInPaths --value fermata.service)\""
check shipped_unit_no_override sh -c "[ \"\$(systemctl show -p FragmentPath --value fermata.service)\" = $unit ] &&
    [ -z \"\$(systemctl show -p DropInPaths --value fermata.service)\" ] && [ ! -e /etc/systemd/system/fermata.service ]"
check unit_file_as_packaged sh -c '! dpkg -V fermata | grep -q "fermata.service"'

# --- (a) ALSA
echo "--- (a) ALSA"
check fermata_playing fermata_play_music
sleep 2
pid=$(fermatad_pid)
cat /proc/asound/cards
echo "fermatad $pid device files:"; fd_links "$pid" | grep -E '^/dev/|^anon_inode:' | sort | uniq -c
pcm=$(fd_links "$pid" | grep '^/dev/snd/pcmC' | sort -u | tr '\n' ' ')
running="" owner=""
for s in /proc/asound/card*/pcm*p/sub*/status; do
    grep -q 'state: RUNNING' "$s" 2>/dev/null || continue
    o=$(awk '$1 == "owner_pid" { print $3 }' "$s")
    [ -d "/proc/$pid/task/$o" ] && { running=$s owner=$o; grep -H -E 'state|owner_pid' "$s"; cat "${s%status}hw_params"; }
done
result "alsa.fermatad_pcm=\"$pcm\" alsa.running=${running:-none} alsa.owner_tid=${owner:-none}"
check alsa_fermatad_holds_pcm test -n "$pcm"
check alsa_substream_running_by_fermatad test -n "$running"

# --- (b) GPIO, (c) the pedal's configuration: one restart, the pedal not plugged in yet
echo "--- (b) GPIO: a board profile with one button on $chip line 3"
model=$(tr -d '\0' < /proc/device-tree/model 2>/dev/null)
result "gpio.chip=${chip:-none} gpio.machine_model=\"${model:-none}\""
mkdir -p /etc/fermata/boards
cat > /etc/fermata/boards/board-lab.toml <<EOF
# The board lab's emulated board (qemu virt) with a gpio-sim chip labelled board-lab.
[board]
id = "board-lab"
name = "Board lab (qemu virt, gpio-sim)"
model = [$( [ -n "$model" ] && printf '"%s"' "$model")]
alsa_device = "default"

[button-play]
line = "board-lab:3"
press = "play-pause"
EOF
cat >> "$conf" <<'EOF'

[input-pedal]
name = "Board Lab Pedal"

[button-pedal]
input = "pedal"
key = "KEY_B"
press = "play-pause"
EOF
since=$(since_now)
check restart_with_controls restart_fermata
pid=$(fermatad_pid)
journal_since "$since" | grep 'controls:'
board_auto=not-found
journal_since "$since" | grep -q 'controls: board profile /etc/fermata/boards/board-lab.toml' && board_auto=found
result "gpio.board_auto=$board_auto gpio.unit_proc=\"$(findmnt -N "$pid" -no OPTIONS /proc)\"" \
    "gpio.unit_sees_device_tree_model=$(nsenter -t "$pid" -m test -e /proc/device-tree/model && echo yes || echo no)"
# The package keeps `board = "auto"`: on a board whose device tree names it, the profile must be found from inside the
# unit's sandbox (fermatad reads /proc/device-tree/model).
[ -z "$model" ] || check gpio_board_auto_detected_in_sandbox test "$board_auto" = found
if [ "$board_auto" != found ]; then
    # Not found (or no model to match): the owner names the profile, as an owner of an unknown board does.
    toml_set "$conf" controls board '"board-lab"'
    since=$(since_now)
    check restart_with_board_named restart_fermata
    pid=$(fermatad_pid)
    journal_since "$since" | grep 'controls:'
fi
check gpio_line_ready wait_for 10 sh -c "journalctl -u fermata.service --since '$since' --no-pager -o cat | grep -q 'controls: 1 of 1 lines ready'"
gpioinfo -c "$(basename "$chip")" 2>&1 | sed -n '1p;/line *3:/p'
pullf=$(ls -d /sys/devices/platform/gpio-sim.*/"$(basename "$chip")"/sim_gpio3 2>/dev/null | head -1)/pull
result "gpio.line3_pull_after_request=$(cat "$pullf" 2>/dev/null) gpio.fermatad_fds=\"$(fd_links "$pid" | grep -E 'gpio' | sort | uniq -c | awk '{ printf "%s%sx%s", s, $1, $2; s = " " }')\""
check gpio_line_held_by_fermata sh -c "gpioinfo -c $(basename "$chip") 2>/dev/null | grep -E 'line *3:' | grep -q 'consumer=\"*fermata'"
press_gpio() { gpio_sim_pull "$chip" 3 pull-down; sleep 0.3; gpio_sim_pull "$chip" 3 pull-up; }
check gpio_playing_before_press wait_for 20 state_is play
press_gpio
check gpio_press_pauses wait_for 5 state_is pause
mpc status | tail -2
press_gpio
check gpio_second_press_plays wait_for 5 state_is play
mpc status | tail -2

# --- (c) the pedal, plugged in after the service started
echo "--- (c) input: a uinput pedal plugged in after fermatad started"
check input_waits_for_pedal sh -c "journalctl -u fermata.service --since '$since' --no-pager -o cat | grep -q 'input pedal .*not present; waiting'"
cat > /tmp/pedal.pl <<'EOF'
# A virtual USB foot pedal through /dev/uinput with one key: pedal.pl NAME CODE; stdin: `press [MS]`, `quit`.
use strict; use warnings;
my ($name, $code) = ($ARGV[0], 0 + $ARGV[1]);
sysopen(my $u, "/dev/uinput", 2 | 04000) or die "pedal: /dev/uinput: $!\n";       # O_RDWR | O_NONBLOCK
sub io { my ($req, $arg) = @_; defined(ioctl($u, $req, $arg)) or die sprintf("pedal: ioctl 0x%x: %s\n", $req, $!); }
io(0x40045564, 1);                                   # UI_SET_EVBIT EV_KEY
io(0x40045565, $code);                               # UI_SET_KEYBIT
# struct uinput_setup: struct input_id { bustype, vendor, product, version } (u16), char name[80], u32 ff_effects_max
io(0x405c5503, pack("S S S S a80 L", 0x03, 0x1209, 0x0001, 1, $name, 0));   # UI_DEV_SETUP, BUS_USB
io(0x5501, 0);                                       # UI_DEV_CREATE
# struct input_event on a 64-bit kernel: struct timeval (2 x 64 bit), u16 type, u16 code, s32 value
sub ev { syswrite($u, pack("q q S S l", 0, 0, @_)) == 24 or die "pedal: write: $!\n"; }
sub key { ev(1, $code, $_[0]); ev(0, 0, 0); }        # EV_KEY, then SYN_REPORT
$| = 1;
print "pedal: created\n";
while (my $line = <STDIN>) {
    if ($line =~ /^press\s*(\d*)/) {
        my $ms = length $1 ? $1 : 150;
        key(1); select(undef, undef, undef, $ms / 1000); key(0);
        print "pedal: pressed $ms ms\n";
    } elsif ($line =~ /^quit/) { last; }
}
io(0x5502, 0);                                       # UI_DEV_DESTROY
print "pedal: removed\n";
EOF
pedal_node() {
    local e
    for e in /sys/class/input/event*; do
        [ "$(cat "$e/device/name" 2>/dev/null)" = "Board Lab Pedal" ] && { echo "/dev/input/${e##*/}"; return 0; }
    done
    return 1
}
rm -f /tmp/pedal.in; mkfifo /tmp/pedal.in
since_plug=$(since_now)
perl /tmp/pedal.pl "Board Lab Pedal" 48 < /tmp/pedal.in > /tmp/pedal.log 2>&1 &
pedal=$!
exec 7> /tmp/pedal.in
t_plug=$(uptime_s)
check input_pedal_created wait_for 10 pedal_node
node=$(pedal_node)
opened() { fd_links "$pid" | grep -qx "$node"; }
check input_fermatad_opens_hotplugged_pedal wait_for 15 opened
t_open=$(uptime_s)
ls -l "$node"
journal_since "$since_plug" | grep 'input pedal'
result "input.node=$node input.mode=\"$(stat -c '%A %U:%G' "$node")\" input.plug_to_open_s=$(awk -v a="$t_plug" -v b="$t_open" 'BEGIN { printf "%.2f", b - a }')"
check input_playing_before_press wait_for 10 state_is play
echo press >&7
check input_press_pauses wait_for 5 state_is pause
mpc status | tail -2
echo press >&7
check input_second_press_plays wait_for 5 state_is play
mpc status | tail -2
echo quit >&7; exec 7>&-
wait "$pedal"; cat /tmp/pedal.log
sleep 1
journal_since "$since_plug" | grep 'input pedal' | tail -3

# --- (d) systemd-analyze security and the unit's settings as shipped
echo "--- (d) systemd-analyze security fermata.service"
systemd-analyze security --no-pager fermata.service > /tmp/security.txt 2>&1
overall=$(grep 'Overall exposure level' /tmp/security.txt)
echo "$overall"
score=$(sed -n 's/.*Overall exposure level for fermata.service: \([0-9.]*\) \(.*\)/\1 \2/p' /tmp/security.txt)
result "security.exposure=\"$score\""
check security_exposure_reported test -n "$score"
grep -E '^✗' /tmp/security.txt | head -25
echo "--- systemctl show fermata.service against $unit"
# Compared as words in any order (systemd lists address families its own way), yes/true/on/1 alike; a setting the
# unit does not have is only shown.
norm() { case "$1" in yes|true|on|1) echo yes ;; no|false|off|0) echo no ;; *) echo "$1" | tr ' ' '\n' | sort | tr '\n' ' ' ;; esac; }
mismatch=""
for p in Type NotifyAccess User Group SupplementaryGroups DevicePolicy ProtectSystem ProtectHome PrivateTmp \
        NoNewPrivileges ProtectKernelTunables ProtectKernelModules ProtectKernelLogs ProtectControlGroups ProtectClock \
        ProtectHostname ProtectProc ProcSubset RestrictNamespaces RestrictSUIDSGID LockPersonality \
        MemoryDenyWriteExecute RestrictAddressFamilies UMask LimitRTPRIO RemoveIPC KeyringMode PrivateUsers \
        SystemCallArchitectures CapabilityBoundingSet AmbientCapabilities; do
    got=$(systemctl show -p "$p" --value fermata.service)
    if ! grep -q "^$p=" "$unit"; then printf '  %-24s (not in the unit)        running %s\n' "$p" "${got:-(empty)}"; continue; fi
    want=$(sed -n "s/^$p=//p" "$unit" | tail -1)
    printf '  %-24s shipped %-24s running %s\n' "$p" "${want:-(empty)}" "${got:-(empty)}"
    [ "$(norm "$want")" = "$(norm "$got")" ] || mismatch="$mismatch $p"
done
# ProtectClock=yes adds DeviceAllow=char-rtc r by itself (systemd.exec(5)).
want=$( { sed -n 's/^DeviceAllow=//p' "$unit"; grep -qx 'ProtectClock=yes' "$unit" && echo 'char-rtc r'; } | sort | tr '\n' ';')
got=$(systemctl show -p DeviceAllow fermata.service | sed 's/^DeviceAllow=//' | tr ' ' '\n' | grep . |
    paste -d' ' - - | sort | tr '\n' ';')
printf '  %-24s shipped %s\n  %-24s running %s\n' DeviceAllow "$want" "" "$got"
[ "$want" = "$got" ] || mismatch="$mismatch DeviceAllow"
want=$(sed -n 's/^WatchdogSec=//p' "$unit")s got=$(systemctl show -p WatchdogUSec --value fermata.service)
printf '  %-24s shipped %-24s running %s\n' WatchdogSec "$want" "$got"
[ "$want" = "$got" ] || mismatch="$mismatch WatchdogSec"
result "unit.settings_differing=\"${mismatch# }\""
check unit_settings_as_shipped test -z "$mismatch"

# --- The sandbox probes (as hardened-unit.sh), around the running fermatad
input=$(ls /dev/input/event* 2>/dev/null | head -1)
result "input_device=${input:-none}" "gpio_chip=${chip:-none}"
unit_probes fermata.service fermata "$chip" "$input"
