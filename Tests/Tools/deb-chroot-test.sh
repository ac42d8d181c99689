#!/usr/bin/env bash
# Installs a Fermata .deb (deploy/make-deb.sh) into a fresh Debian chroot with apt and walks its life cycle: install,
# reinstall, remove (the state and the configuration stay), reinstall, purge (everything goes), reinstall. Prints one
# PASS/FAIL line per check (INFO lines are facts, not checks) and exits 1 when any check failed.
#
#   Tests/Tools/deb-chroot-test.sh DEB [--suite trixie] [--arch ARCH] [--with DEB]... [--cache DIR] [--mirror URL]
#                                      [--lintian] [--keep]
#
# --suite S     the Debian release of the chroot (default trixie)
# --arch ARCH   the chroot's architecture (default: the package's). Another architecture than this machine's runs
#               under qemu-user (qemu-user-static and binfmt-support, binfmt_misc mounted) and is slow
# --with DEB    another local package handed to the same `apt install` (a stand-in for a library the release lacks)
# --cache DIR   where the debootstrapped base root is kept between runs (default $FERMATA_DEB_CHROOT_CACHE, else
#               /tmp/fermata-deb-chroot); every run works on a fresh copy of it
# --mirror URL  Debian mirror (default http://deb.debian.org/debian)
# --lintian     also install the release's lintian in the chroot and print its verdict on DEB
# --keep        keep the run's chroot (its path is printed)
#
# No systemd runs in a chroot: the package's scripts must not start anything there (checked), and they still enable
# the units (the wants/ links are checked). Needs root and debootstrap; the first run takes a few minutes.
set -uo pipefail
deb="" suite=trixie arch="" extra=() cache=${FERMATA_DEB_CHROOT_CACHE:-/tmp/fermata-deb-chroot}
mirror=http://deb.debian.org/debian lintian=0 keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --suite) suite=$2; shift 2 ;;
        --arch) arch=$2; shift 2 ;;
        --with) extra+=("$2"); shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        --mirror) mirror=$2; shift 2 ;;
        --lintian) lintian=1; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "deb-chroot-test.sh: unknown option $1" >&2; exit 2 ;;
        *) deb=$1; shift ;;
    esac
done
[ -n "$deb" ] && [ -f "$deb" ] || { echo "deb-chroot-test.sh: give the .deb to test (see --help)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "deb-chroot-test.sh: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "deb-chroot-test.sh: apt-get install debootstrap" >&2; exit 2; }
for file in "${extra[@]}"; do [ -f "$file" ] || { echo "deb-chroot-test.sh: no $file" >&2; exit 2; }; done

passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
info() { echo "INFO: $*"; }
check() {  # check DESCRIPTION COMMAND...: PASS when COMMAND (run here, on the chroot's files) succeeds
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then pass "$what"; else fail "$what"; fi
}

# 1. The base root (made once), and a fresh copy of it for this run.
arch=${arch:-$(dpkg-deb -f "$deb" Architecture)}
if [ "$arch" != "$(dpkg --print-architecture)" ] && [ ! -e "/proc/sys/fs/binfmt_misc/qemu-${arch/arm64/aarch64}" ]; then
    echo "deb-chroot-test.sh: $arch programs do not run here: apt-get install qemu-user-static binfmt-support" \
        "(and mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc)" >&2
    exit 2
fi
base=$cache/$suite-$arch-base
if [ ! -f "$base.done" ]; then
    info "debootstrap --variant=minbase $suite $arch into $base (once)"
    rm -rf "$base"; mkdir -p "$cache"
    debootstrap --arch="$arch" --variant=minbase "$suite" "$base" "$mirror" > "$cache/debootstrap-$suite-$arch.log" 2>&1 || {
        echo "deb-chroot-test.sh: debootstrap failed; see $cache/debootstrap-$suite-$arch.log" >&2; exit 2; }
    touch "$base.done"
fi
root=$(mktemp -d "$cache/run-$suite.XXXXXX")
mounted=()
cleanup() {
    local m
    for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
    if [ $keep -eq 1 ]; then echo "kept: $root"; else rm -rf "$root"; fi
}
trap cleanup EXIT
cp -a "$base/." "$root/"
for fs in proc dev dev/pts; do
    mkdir -p "$root/$fs"; mount --bind "/$fs" "$root/$fs" && mounted=("$root/$fs" "${mounted[@]}")
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$root/tmp/debs"
cp "$deb" "$root/tmp/debs/"
deb_in=/tmp/debs/$(basename "$deb")
extra_in=()
for file in "${extra[@]}"; do cp "$file" "$root/tmp/debs/"; extra_in+=("/tmp/debs/$(basename "$file")"); done
in_root() {
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
apt_install() {  # apt_install LOG ARGS...: apt-get install in the chroot, output to LOG (inside the run folder)
    local log=$1; shift
    in_root apt-get install -y --no-install-recommends -o Dpkg::Options::=--force-confdef \
        -o Dpkg::Options::=--force-confold "$@" > "$root/tmp/$log" 2>&1
}
info "$(basename "$deb") ($(du -h "$deb" | cut -f1)) in a fresh $suite/$arch chroot: $root"
[ ${#extra_in[@]} -eq 0 ] || info "stand-ins installed with it: ${extra_in[*]}"
in_root apt-get update -qq > "$root/tmp/apt-update.log" 2>&1 || { fail "apt-get update in the chroot"; exit 1; }

# The checks run on the chroot's files from here (paths under $root) or inside it (in_root).
package_state() { in_root dpkg-query -W -f='${db:Status-Abbrev}' fermata 2>/dev/null | tr -d ' '; }
uid_of() { in_root getent passwd fermata | cut -d: -f3; }
wants=/etc/systemd/system/multi-user.target.wants
fermatad_running() {  # a fermatad whose root is this chroot (the host's own are not counted)
    local dir
    for dir in /proc/[0-9]*; do
        [ "$(cat "$dir/comm" 2>/dev/null)" = fermatad ] && [ "$(readlink "$dir/root" 2>/dev/null)" = "$root" ] && return 0
    done
    return 1
}
ldd_report() {  # ldd_report DIR [LIBRARY_PATH]: ldd on both programs inside the chroot; PASS when every library resolves
    local program missing
    for program in fermatad fermata; do
        missing=$(in_root env LD_LIBRARY_PATH="${2:-}" sh -c "ldd $1/$program 2>&1 | grep 'not found'" \
            | sed 's/^[[:space:]]*//; s/ => not found//' | paste -sd' ')
        if [ -z "$missing" ]; then pass "ldd $1/$program: every library resolves in $suite"
        else fail "ldd $1/$program in $suite: not found: $missing"; fi
    done
}
installed_checks() {  # installed_checks WHEN
    local when=$1 line groups
    check "$when: dpkg says installed (ii)" test "$(package_state)" = ii
    line=$(in_root getent passwd fermata)
    if [ -n "$line" ] && [ "$(echo "$line" | cut -d: -f3)" -lt 1000 ] && [ "$(echo "$line" | cut -d: -f6)" = /var/lib/fermata ] \
        && [ "$(echo "$line" | cut -d: -f7)" = /usr/sbin/nologin ]; then
        pass "$when: system user fermata ($line)"
    else
        fail "$when: system user fermata (getent: ${line:-none})"
    fi
    groups=$(in_root id -nG fermata 2>/dev/null)
    if [[ " $groups " == *" audio "* && " $groups " == *" gpio "* && " $groups " == *" input "* ]]; then
        pass "$when: fermata is in audio, gpio and input ($groups)"
    else
        fail "$when: fermata's groups are '$groups', not audio gpio input"
    fi
    check "$when: /usr/bin/fermatad and /usr/bin/fermata installed" test -x "$root/usr/bin/fermatad" -a -x "$root/usr/bin/fermata"
    check "$when: unit runs /usr/bin/fermatad" grep -q '^ExecStart=/usr/bin/fermatad ' "$root/usr/lib/systemd/system/fermata.service"
    check "$when: fermata-poweroff.path and .service installed" \
        test -f "$root/usr/lib/systemd/system/fermata-poweroff.path" -a -f "$root/usr/lib/systemd/system/fermata-poweroff.service"
    check "$when: udev rule /usr/lib/udev/rules.d/99-fermata-gpio.rules" test -f "$root/usr/lib/udev/rules.d/99-fermata-gpio.rules"
    check "$when: udev rule /usr/lib/udev/rules.d/99-fermata-input.rules" test -f "$root/usr/lib/udev/rules.d/99-fermata-input.rules"
    check "$when: board profiles in /usr/share/fermata/boards" test -f "$root/usr/share/fermata/boards/rpi-4.toml"
    check "$when: /etc/fermata/fermata.toml is a conffile" \
        sh -c "chroot '$root' dpkg-query -W -f='\${Conffiles}' fermata | grep -q '/etc/fermata/fermata.toml'"
    check "$when: /var/lib/fermata is fermata:fermata 0750" \
        test "$(in_root stat -c '%U:%G %a' /var/lib/fermata)" = "fermata:fermata 750"
    # (deb-systemd-helper links to /lib/systemd/system/…, the same file on a merged /usr.)
    check "$when: fermata.service enabled (wants/ link)" \
        test "$(in_root readlink -f "$wants/fermata.service")" = /usr/lib/systemd/system/fermata.service
    check "$when: fermata-poweroff.path enabled (wants/ link)" \
        test "$(in_root readlink -f "$wants/fermata-poweroff.path")" = /usr/lib/systemd/system/fermata-poweroff.path
    check "$when: not masked" test ! -L "$root/etc/systemd/system/fermata.service"
    if fermatad_running; then fail "$when: a fermatad runs (nothing may start without systemd)"
    else pass "$when: nothing started (no systemd in a chroot)"; fi
}

# 2. Install with apt (it resolves the dependencies).
if apt_install install-1.log "$deb_in" "${extra_in[@]}"; then
    pass "apt install ./$(basename "$deb") resolved and installed: $(grep -o '^Setting up [^ ]*' "$root/tmp/install-1.log" \
        | cut -d' ' -f3 | paste -sd' ')"
else
    fail "apt install ./$(basename "$deb"): $(grep -E '^(E:| [a-z].* : Depends)' "$root/tmp/install-1.log" | head -8 \
        | sed 's/^ *//' | paste -sd'|')"
    # What the programs would lack here: every dependency this release has installed, then ldd on the package's
    # programs unpacked in the chroot (with its own /usr/lib/fermata, if it carries one).
    for dependency in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/|.*//; s/[[:space:]]//g'); do
        in_root apt-get install -y -qq --no-install-recommends "$dependency" > /dev/null 2>&1 \
            || info "not installable in $suite: $dependency"
    done
    in_root dpkg-deb -x "$deb_in" /tmp/unpacked
    ldd_report /tmp/unpacked/usr/bin /tmp/unpacked/usr/lib/fermata
    echo "$passed passed, $failed failed"
    exit 1
fi
installed_checks "install"
ldd_report /usr/bin
if in_root fermatad --help > /dev/null 2>&1 && in_root fermata --help > /dev/null 2>&1; then
    pass "the installed programs run (--help)"
else
    fail "the installed programs do not run: $(in_root fermatad --help 2>&1 | tail -1)"
fi
printf 'Raspberry Pi 4 Model B Rev 1.5\0' > "$root/tmp/model"
check "fermatad --detect-board finds rpi-4 in the installed profiles" \
    test "$(in_root fermatad --detect-board --model-file /tmp/model 2>/dev/null)" = rpi-4
check "/etc/fermata/fermata.toml is fermatad's default with music = \"/srv/music\"" \
    sh -c "chroot '$root' fermatad --print-default-config | sed 's|^#music = .*|music = \"/srv/music\"|' \
        | cmp -s - '$root/etc/fermata/fermata.toml'"
# State written by the installed daemon itself, as the service would run it (the fermata user, null output).
in_root sh -c 'mkdir -p /srv/music /run/fermata && chown fermata:fermata /run/fermata'
in_root runuser -u fermata -- timeout -s TERM 4 fermatad --config /etc/fermata/fermata.toml --output null \
    --listen "" > "$root/tmp/fermatad.log" 2>&1
rm -rf "$root/run/fermata"  # the test's own stand-in for systemd's RuntimeDirectory (a tmpfs on a booted system)
state_files=$(ls "$root/var/lib/fermata" 2>/dev/null | paste -sd' ')
if [ -n "$state_files" ]; then pass "the installed fermatad ran as fermata and wrote its state: $state_files"
else fail "the installed fermatad wrote no state: $(tail -2 "$root/tmp/fermatad.log" | paste -sd'|')"; fi
# A marker beside it, so that what remove keeps is checked even when the daemon wrote nothing.
in_root runuser -u fermata -- sh -c 'echo kept > /var/lib/fermata/deb-chroot-test.marker'
echo "# edited by deb-chroot-test" >> "$root/etc/fermata/fermata.toml"
uid_before=$(uid_of)
state_files_now=$(ls "$root/var/lib/fermata" | paste -sd' ')

# 3. Reinstall over itself (postinst configure with the old version: the upgrade path).
if apt_install reinstall.log --reinstall "$deb_in"; then pass "apt install --reinstall"; else fail "apt install --reinstall"; fi
check "reinstall: the edited configuration is kept" grep -q '^# edited by deb-chroot-test' "$root/etc/fermata/fermata.toml"
check "reinstall: no .dpkg-dist/.dpkg-new configuration" sh -c "! ls '$root'/etc/fermata/*.dpkg-* 2>/dev/null | grep -q ."

# 4. Remove: programs and units go; state, configuration and user stay.
if in_root apt-get remove -y fermata > "$root/tmp/remove.log" 2>&1; then pass "apt remove fermata"; else fail "apt remove fermata"; fi
check "remove: dpkg says config-files (rc)" test "$(package_state)" = rc
check "remove: /usr/bin/fermatad is gone" test ! -e "$root/usr/bin/fermatad"
check "remove: the unit file is gone" test ! -e "$root/usr/lib/systemd/system/fermata.service"
check "remove: /var/lib/fermata and its files are kept ($(ls "$root/var/lib/fermata" 2>/dev/null | paste -sd' '))" \
    test -f "$root/var/lib/fermata/deb-chroot-test.marker" -a "$(ls "$root/var/lib/fermata" | paste -sd' ')" = "$state_files_now"
check "remove: the edited /etc/fermata/fermata.toml is kept" grep -q '^# edited by deb-chroot-test' "$root/etc/fermata/fermata.toml"
check "remove: the fermata user is kept" test -n "$(uid_of)"
info "after remove: $(ls -l "$root/etc/systemd/system/fermata.service" 2>/dev/null | sed 's|.*/etc/|/etc/|' || echo 'no mask')" \
    "(deb-systemd-helper masks the removed unit; its wants/ link stays for a reinstall)"

# 5. Reinstall after remove: the state, configuration, user and the owner's enablement come back as they were.
if apt_install install-2.log "$deb_in" "${extra_in[@]}"; then pass "apt install after remove"; else fail "apt install after remove"; fi
installed_checks "reinstall after remove"
check "reinstall after remove: the same uid ($uid_before)" test "$(uid_of)" = "$uid_before"
check "reinstall after remove: the state is still there" test -f "$root/var/lib/fermata/deb-chroot-test.marker"
check "reinstall after remove: the edited configuration is kept" \
    grep -q '^# edited by deb-chroot-test' "$root/etc/fermata/fermata.toml"

# 6. Purge: nothing of Fermata is left (the music folder and the shared gpio/input groups excepted).
if in_root apt-get purge -y fermata > "$root/tmp/purge.log" 2>&1; then pass "apt purge fermata"; else fail "apt purge fermata"; fi
check "purge: dpkg no longer knows fermata" test -z "$(package_state | grep -v '^un$')"
check "purge: /var/lib/fermata is gone" test ! -e "$root/var/lib/fermata"
check "purge: /etc/fermata is gone" test ! -e "$root/etc/fermata"
check "purge: the fermata user is gone" test -z "$(uid_of)"
check "purge: the fermata group is gone" test -z "$(in_root getent group fermata)"
check "purge: no unit links or masks left" \
    test ! -e "$root$wants/fermata.service" -a ! -L "$root$wants/fermata.service" -a ! -L "$root/etc/systemd/system/fermata.service" \
    -a ! -L "$root$wants/fermata-poweroff.path"
leftovers=$(cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./tmp -o -path ./srv/music \) -prune -o \
    -iname '*fermata*' -print 2>/dev/null | paste -sd' ')
if [ -z "$leftovers" ]; then pass "purge: no file or folder named *fermata* left outside /tmp and the music"
else fail "purge: left behind: $leftovers"; fi
info "after purge the shared groups stay: $(in_root getent group gpio input | cut -d: -f1 | paste -sd' ')"

# 7. Install after purge: a fresh start.
if apt_install install-3.log "$deb_in" "${extra_in[@]}"; then pass "apt install after purge"; else fail "apt install after purge"; fi
installed_checks "install after purge"
check "install after purge: a fresh configuration (no edit)" sh -c "! grep -q 'edited by deb-chroot-test' '$root/etc/fermata/fermata.toml'"
check "install after purge: an empty state folder" test -z "$(ls "$root/var/lib/fermata" 2>/dev/null)"

if [ $lintian -eq 1 ]; then
    if in_root apt-get install -y -qq --no-install-recommends lintian > "$root/tmp/lintian-install.log" 2>&1; then
        info "lintian $(in_root lintian --version | awk '{print $2}') ($suite) on $(basename "$deb"):"
        in_root lintian -EvIL +pedantic --tag-display-limit 0 "$deb_in" 2>&1 | grep -v '^N:' | sed 's/^/    /'
    else
        fail "installing lintian in the chroot"
    fi
fi

echo "$passed passed, $failed failed ($suite/$arch, $(basename "$deb"))"
[ $failed -eq 0 ]
