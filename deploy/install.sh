#!/usr/bin/env bash
# Installs Fermata on a Debian 12/13 or Raspberry Pi OS (64-bit) machine, arm64 or amd64. Idempotent.
#
#   deploy/install.sh [--board NAME] [--binaries DIR | --from-artifact FILE] [--music DIR] [--no-ffmpeg] [--dry-run] [--root DIR]
#   deploy/install.sh --uninstall [--purge-state] [--dry-run] [--root DIR]
#
# --board NAME     board profile from boards/ (default: `fermatad --detect-board`, the daemon's own detector, on
#                  /proc/device-tree/model; else generic-40pin)
# --binaries DIR   install fermata (the one program; fermatad is a link to it) from DIR instead of building it here
# --from-artifact FILE   install from a tarball made by deploy/build-for-board.sh (binaries, boards, unit); it must
#                  match this system's Debian release and architecture
# --music DIR      music directory written into a new config (default /srv/music)
# --dry-run        print every action, change nothing
# --no-ffmpeg      leave out FFmpeg's libraries (AAC and ALAC in M4A then wait for them; everything else plays)
# --root DIR       install into DIR as if it were / (no packages, users or services: for tests and images)
# --uninstall      remove Fermata; keeps the music and, unless --purge-state, /var/lib/fermata
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=$(dirname "$here")
root="" dry=0 uninstall=0 purge=0 board="" binaries="" music="/srv/music" artifact="" with_ffmpeg=1
while [ $# -gt 0 ]; do
    case "$1" in
        --root) root=${2%/}; shift 2 ;;
        --dry-run) dry=1; shift ;;
        --no-ffmpeg) with_ffmpeg=0; shift ;;
        --uninstall) uninstall=1; shift ;;
        --purge-state) purge=1; shift ;;
        --board) board=$2; shift 2 ;;
        --binaries) binaries=$2; shift 2 ;;
        --music) music=$2; shift 2 ;;
        --from-artifact) artifact=$2; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

run() { echo "+ $*"; [ $dry -eq 1 ] || "$@"; }
system() { if [ -n "$root" ]; then echo "skip (--root): $*"; else run "$@"; fi; }
write() { # write DEST MODE < content
    local dest=$1 mode=$2 tmp
    tmp=$(mktemp); cat > "$tmp"
    echo "+ install -m $mode -D <content> $root$dest"
    [ $dry -eq 1 ] || install -m "$mode" -D "$tmp" "$root$dest"
    rm -f "$tmp"
}

if [ $uninstall -eq 1 ]; then
    system systemctl disable --now fermata.service fermata-poweroff.path
    run rm -f "$root/etc/systemd/system/fermata.service" "$root/usr/local/bin/fermatad" "$root/usr/local/bin/fermata" \
        "$root/etc/udev/rules.d/99-fermata-gpio.rules" "$root/etc/udev/rules.d/99-fermata-input.rules" \
        "$root/etc/systemd/system/fermata-poweroff.path" \
        "$root/etc/systemd/system/fermata-poweroff.service"
    run rm -rf "$root/etc/fermata" "$root/usr/local/share/doc/fermata"
    [ $purge -eq 1 ] && run rm -rf "$root/var/lib/fermata"
    system systemctl daemon-reload
    system userdel fermata
    echo "Fermata removed. The music was not touched$([ $purge -eq 1 ] || echo "; the state is kept in /var/lib/fermata")."
    exit 0
fi

# 1. Which Debian, which board; a prebuilt artifact is unpacked (also for --dry-run: reading it changes nothing) and
#    used in place of this checkout.
codename=$( . "${root:-}/etc/os-release" 2>/dev/null && echo "${VERSION_CODENAME:-bookworm}" || echo bookworm)
if [ -n "$artifact" ]; then
    unpacked=$(mktemp -d)
    trap 'rm -rf "$unpacked"' EXIT
    echo "+ tar -xzf $artifact -C <temporary folder>"
    tar -xzf "$artifact" -C "$unpacked"
    top=$(find "$unpacked" -mindepth 1 -maxdepth 1 -type d | head -n 1)
    [ -n "$top" ] && [ -x "$top/bin/fermatad" ] && [ -f "$top/TARGET" ] || {
        echo "install.sh: $artifact is not a build-for-board.sh artifact (no bin/fermatad or TARGET)" >&2; exit 2; }
    read -r built_release built_arch built_version < "$top/TARGET"
    host_arch=$(dpkg --print-architecture 2>/dev/null || echo unknown)
    if [ "$built_release" != "$codename" ] || { [ -z "$root" ] && [ "$built_arch" != "$host_arch" ]; }; then
        echo "install.sh: $artifact was built for $built_release/$built_arch, this system is $codename/$host_arch" \
            "(libFLAC and libgpiod differ between releases): use the matching artifact" >&2
        exit 2
    fi
    echo "artifact: Fermata $built_version for $built_release/$built_arch"
    project=$top here=$top/deploy binaries=$top/bin
fi
[ -z "$board" ] || [ -f "$project/boards/$board.toml" ] || {
    echo "install.sh: no board profile boards/$board.toml" >&2; exit 2; }

# 2. Runtime packages (libFLAC and libgpiod sonames differ between bookworm and trixie).
case "$codename" in
    trixie|forky|sid) packages="libasound2t64 libflac14 libvorbisfile3 libgpiod3 libsoxr0 libsqlite3-0 libsoundtouch1 libespeak-ng1 libmpg123-0t64 libopusfile0 alsa-utils"
                      ffmpeg="libavformat61 libavcodec61" ;;
    *) packages="libasound2 libflac12 libvorbisfile3 libgpiod2 libsoxr0 libsqlite3-0 libsoundtouch1 libespeak-ng1 libmpg123-0 libopusfile0 alsa-utils"
       ffmpeg="libavformat59 libavcodec59" ;;
esac
# FFmpeg's libraries play AAC and ALAC (M4A); they are loaded at run time, so --no-ffmpeg leaves them out on a board
# short of space: everything else plays, and `fermata doctor` names the M4A files that wait for them.
[ "$with_ffmpeg" = 0 ] || packages="$packages $ffmpeg"
system apt-get install -y --no-install-recommends $packages

# 3. Binaries: built here with the Swift runtime linked in, or taken from --binaries / --from-artifact. Replacing
#    installed ones is an upgrade: the running daemon is restarted at the end to run the new version.
upgrade=0
[ ! -e "$root/usr/local/bin/fermatad" ] || upgrade=1
if [ -z "$binaries" ]; then
    binaries="$project/.build/release"
    run swift build --package-path "$project" -c release --static-swift-stdlib -j 2 --product fermata
fi
# fermatad ARGS...: the daemon's side of the one program (fermata called as fermatad).
fermatad() { (exec -a fermatad "$binaries/fermata" "$@"); }
# The board: --board, else what fermatad's detector (the daemon's own `board = "auto"` rule: the profile whose
# `model` prefixes match /proc/device-tree/model) picks from boards/, else generic-40pin.
if [ -z "$board" ]; then
    model_file=${root:-}/proc/device-tree/model
    detect=(fermatad --detect-board --boards "$project/boards" --model-file "$model_file")
    if [ -x "$binaries/fermata" ]; then
        status=0
        board=$("${detect[@]}" 2>/dev/null) || status=$?
        case $status in
            0) how="detected by fermatad --detect-board" ;;
            1) board=generic-40pin how="no profile's model matches, said fermatad --detect-board" ;;
            *) echo "install.sh: $binaries/fermata as fermatad --detect-board could not run (status $status): pass --board" >&2
               exit 2 ;;
        esac
    else
        board=generic-40pin how="fermatad is not built yet (dry run); the install asks fermatad --detect-board"
    fi
    model=$(tr -d '\0' 2>/dev/null < "$model_file" || true)
    echo "board: ${model:-unknown model} → $board ($how; override with --board)"
fi
# One program: fermata, and fermatad a link to it (fermata called as fermatad is the daemon).
run install -m 0755 -D "$binaries/fermata" "$root/usr/local/bin/fermata"
run ln -sfn fermata "$root/usr/local/bin/fermatad"

# 4. User and groups (Raspberry Pi OS has a gpio group and udev rule; plain Debian gets both).
if ! getent group gpio >/dev/null 2>&1 || [ -n "$root" ]; then
    system groupadd --system gpio
    run install -m 0644 -D "$here/99-fermata-gpio.rules" "$root/etc/udev/rules.d/99-fermata-gpio.rules"
    system udevadm control --reload
    system udevadm trigger --subsystem-match=gpio
fi
# input: foot pedals, remotes, keypads and card readers (/dev/input/event*, group input on Debian and Raspberry Pi OS).
getent group input >/dev/null 2>&1 || [ -n "$root" ] || system groupadd --system input
run install -m 0644 -D "$here/99-fermata-input.rules" "$root/etc/udev/rules.d/99-fermata-input.rules"
system udevadm control --reload
if ! id fermata >/dev/null 2>&1 || [ -n "$root" ]; then
    system useradd --system --home-dir /var/lib/fermata --shell /usr/sbin/nologin --groups audio,gpio,input fermata
else
    system usermod -aG input fermata
fi

# 5. Configuration (a new file only: the user's edits are kept), board profile, unit, docs.
if [ ! -f "$root/etc/fermata/fermata.toml" ] && [ $dry -eq 1 ]; then
    # A dry run never runs the binaries: on a fresh clone they are not built yet (step 3 only printed the build).
    echo "+ fermatad --print-default-config | sed <music = \"$music\", board = \"/etc/fermata/board.toml\">" \
        "> $root/etc/fermata/fermata.toml (mode 0644)"
elif [ ! -f "$root/etc/fermata/fermata.toml" ]; then
    { "$root/usr/local/bin/fermatad" --print-default-config 2>/dev/null || fermatad --print-default-config; } \
        | sed -e "s|^#music = .*|music = \"$music\"|" -e "s|^#board = .*|board = \"/etc/fermata/board.toml\"|" \
        | write /etc/fermata/fermata.toml 0644
else
    echo "keep: $root/etc/fermata/fermata.toml (already there)"
fi
run install -m 0644 -D "$project/boards/$board.toml" "$root/etc/fermata/board.toml"
# Input device profiles (pedals, remotes, keypads, card readers) an [input-NAME] names with profile = "...".
run mkdir -p "$root/etc/fermata/boards/inputs"
run install -m 0644 "$project"/boards/inputs/*.toml "$root/etc/fermata/boards/inputs/"
run install -m 0644 -D "$here/fermata.service" "$root/etc/systemd/system/fermata.service"
for unit in fermata-poweroff.path fermata-poweroff.service; do
    run install -m 0644 -D "$here/$unit" "$root/etc/systemd/system/$unit"
done
run install -m 0644 -D "$here/asound.conf" "$root/usr/local/share/doc/fermata/asound.conf.example"
run install -m 0644 -D "$project/README.md" "$root/usr/local/share/doc/fermata/README.md"
for doc in "$project"/docs/*.md; do
    [ ! -e "$doc" ] || run install -m 0644 -D "$doc" "$root/usr/local/share/doc/fermata/$(basename "$doc")"
done
# The manual pages (man fermata, man fermatad, man fermata.toml), where the artifact or the checkout has them.
for page in "$project"/docs/man/*.[158]; do
    [ ! -e "$page" ] || run install -m 0644 -D "$page" "$root/usr/local/share/man/man${page##*.}/$(basename "$page")"
done
run install -d -m 0750 "$root/var/lib/fermata"
system chown fermata:fermata /var/lib/fermata

# 6. Start.
system systemctl daemon-reload
system systemctl enable --now fermata.service fermata-poweroff.path
[ $upgrade -eq 0 ] || system systemctl restart fermata.service
if [ $dry -eq 1 ]; then
    echo "Dry run for $board on $codename: nothing was built, installed or changed."
else
    echo "Fermata installed for $board on $codename. Check it with: fermata doctor; logs: journalctl -u fermata"
fi
