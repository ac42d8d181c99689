#!/usr/bin/env bash
# Builds (or brings up to date) the board lab's image: a Debian 13 (trixie) arm64 root made with debootstrap under
# qemu-user, Debian's own arm64 kernel, and the disks the lab boots. Called by `board-lab.sh image`; see README.md.
#
#   make-image.sh [--cache DIR] [--mirror URL] [--rebuild]
#
# Under DIR (default $BOARD_LAB_CACHE, else /var/tmp/fermata-board-lab):
#   debs/            downloaded .debs, kept between builds (debootstrap --cache-dir, and APT's archive folder)
#   rootfs/          the root as a folder (the source of root.img; kept so a package list change only runs apt)
#   root.img         raw ext4 image of rootfs (label fermata-root); each run boots a qcow2 overlay of it
#   vmlinuz, initrd.img, config   the kernel (an uncompressed arm64 Image, as qemu -kernel takes it), its initramfs,
#                    and its build configuration, from rootfs/boot
#   music.img        ext4 (label music): a few short WAV and FLAC files made with sox or ffmpeg on this machine
#   state.img        empty ext4 (label state); each run copies it unless board-lab.sh --state FILE is given
#   kmod-src/, kbuild/   build-modules.sh's linux-source package and build folders (gpio-sim.ko, snd-dummy.ko: trixie's
#                    arm64 kernel has neither; they go to rootfs/lib/modules/KVER/updates/board-lab; BOARD_LAB_MODULES=0
#                    skips them)
#   packages.txt     `dpkg-query -W` of the root;  kernel-features.txt  what the kernel config says about the lab's
#                    devices (gpio-sim, snd-aloop, snd-dummy, uinput)
#
# Every CPU-heavy step runs under `nice -n 19`. Needs root, debootstrap, qemu-user-static with binfmt (qemu-aarch64
# registered with flag F), e2fsprogs (mkfs.ext4 -d), qemu-utils.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${BOARD_LAB_CACHE:-/var/tmp/fermata-board-lab} mirror="" rebuild=0
while [ $# -gt 0 ]; do
    case "$1" in
        --cache) cache=$2; shift 2 ;;
        --mirror) mirror=$2; shift 2 ;;
        --rebuild) rebuild=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "make-image.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
log() { echo "board-lab image: $*" >&2; }
die() { echo "board-lab image: $*" >&2; exit 2; }
N="nice -n 19"

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot)"
for tool in debootstrap mkfs.ext4 qemu-img chroot; do command -v $tool >/dev/null || die "needs $tool"; done
if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "cannot mount binfmt_misc"
fi
if ! grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
    [ -x /usr/sbin/update-binfmts ] && update-binfmts --enable qemu-aarch64 2>/dev/null || true
    grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 ||
        die "qemu-aarch64 is not registered with binfmt_misc: apt-get install qemu-user-static binfmt-support"
fi
if [ -z "$mirror" ]; then
    mirror=$(grep -hsE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
        /etc/apt/sources.list | grep -v -- '-security' | grep -oE 'https?://[^ ]+/debian/?' | head -1 || true)
    mirror=${mirror:-http://deb.debian.org/debian}
fi

mkdir -p "$cache/debs"
cache=$(cd "$cache" && pwd)
root=$cache/rootfs
started=$(date +%s)

# The first stage: what debootstrap resolves itself. initramfs-tools comes before the kernel so that its
# configuration (a small MODULES=list initramfs) is in place when the kernel's postinst makes the initramfs.
base_packages=(ca-certificates systemd systemd-sysv udev kmod dbus initramfs-tools e2fsprogs procps)
# The rest, with APT inside the root. ALTERNATIVES a|b: the first name trixie has.
# Fermata's run-time libraries are what deploy/make-swift-sdk.sh links against (its target_packages, the -dev names
# of deploy/build-deps.sh) as run-time packages, so that `apt-get install ./fermata_*.deb` resolves offline.
apt_packages=(
    linux-image-arm64
    alsa-utils mpd mpc gpiod adduser sqlite3 iproute2 util-linux
    "libasound2t64|libasound2" "libgpiod3|libgpiod2" "libflac14|libflac12t64|libflac12" libvorbisfile3 libvorbis0a
    libsqlite3-0 "libsoxr0" "libsoundtouch1|libsoundtouch1t64" "libespeak-ng1" "libmpg123-0t64|libmpg123-0"
    libopusfile0 "libavformat61|libavformat59" "libavcodec61|libavcodec59" libevdev2 "libstdc++6" libgcc-s1 zlib1g
    "libcurl4t64|libcurl4"
)

# 1. debootstrap (the second stage runs arm64 programs through qemu-user).
stamp="mirror=$mirror base=${base_packages[*]}"
if [ $rebuild = 1 ] || [ "$(cat "$root/.board-lab-stamp" 2>/dev/null)" != "$stamp" ]; then
    log "debootstrap trixie arm64 (minbase + ${base_packages[*]}) into $root"
    rm -rf "$root"
    # .debs an earlier deploy/make-swift-sdk.sh run downloaded are the same files: reuse them.
    for seed in "${FERMATA_SDK_CACHE:-$HOME/.cache/fermata-swift-sdk}/debs/trixie-arm64"; do
        [ -d "$seed" ] && cp -n "$seed"/*.deb "$cache/debs/" 2>/dev/null || true
    done
    t=$(date +%s)
    $N debootstrap --arch=arm64 --variant=minbase --cache-dir="$cache/debs" \
        --include="$(IFS=,; echo "${base_packages[*]}")" trixie "$root" "$mirror"
    log "debootstrap took $(( $(date +%s) - t )) s"
    printf '%s' "$stamp" > "$root/.board-lab-stamp"
    rm -f "$root/.board-lab-packages"
fi

mounted=()
unbind_all() { local m; for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done; mounted=(); }
trap unbind_all EXIT
bind() { mkdir -p "$2"; mount --bind "$1" "$2"; mounted=("$2" "${mounted[@]}"); }
in_root() {
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive "$@"
}

# 2. Configuration files (cheap: always rewritten).
log "configuring the root"
echo fermata-board > "$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 fermata-board\n::1 localhost ip6-localhost ip6-loopback\n' > "$root/etc/hosts"
cat > "$root/etc/fstab" <<'FSTAB'
# The board lab's disks (board-lab.sh attaches them in this order: root, music, state, lab).
/dev/vda        /                   ext4  defaults,errors=remount-ro   0 1
LABEL=music     /srv/music          ext4  ro,nofail,x-systemd.device-timeout=180s  0 2
LABEL=state     /srv/state          ext4  defaults,nofail,x-systemd.device-timeout=180s  0 2
# The state of each daemon lives on the state disk (what a read-only root needs).
/srv/state/fermata  /var/lib/fermata  none  bind,nofail,x-systemd.requires-mounts-for=/srv/state  0 0
/srv/state/mpd      /var/lib/mpd      none  bind,nofail,x-systemd.requires-mounts-for=/srv/state  0 0
tmpfs           /tmp                tmpfs mode=1777,size=64M           0 0
FSTAB
mkdir -p "$root/srv/music" "$root/srv/state" "$root/var/lib/fermata" "$root/var/lib/mpd"
printf '%s\n' 'Acquire::Check-Valid-Until "false";' 'APT::Install-Recommends "false";' \
    'APT::Sandbox::User "root";' > "$root/etc/apt/apt.conf.d/90board-lab"
printf 'deb %s trixie main\n' "$mirror" > "$root/etc/apt/sources.list"
# A small initramfs: only what mounts the root from a virtio disk.
mkdir -p "$root/etc/initramfs-tools/conf.d"
echo 'MODULES=list' > "$root/etc/initramfs-tools/conf.d/board-lab.conf"
echo 'COMPRESS=gzip' >> "$root/etc/initramfs-tools/conf.d/board-lab.conf"
printf '%s\n' virtio_pci virtio_mmio virtio_blk virtio_net ext4 crc32c_generic > "$root/etc/initramfs-tools/modules"
# Sound, GPIO and input devices: snd-aloop is card 0 (Loopback), snd-dummy card 1 (Dummy); gpio-sim and uinput
# load when the kernel has them (a missing module is only a warning of systemd-modules-load).
printf '%s\n' snd-aloop snd-dummy uinput gpio-sim > "$root/etc/modules-load.d/board-lab.conf"
printf '%s\n' 'options snd-aloop index=0 enable=1 pcm_substreams=2' 'options snd-dummy index=1' \
    > "$root/etc/modprobe.d/board-lab.conf"
# The network: DHCP on qemu's user network (the forwarded MPD port).
mkdir -p "$root/etc/systemd/network"
printf '[Match]\nName=en* eth*\n[Network]\nDHCP=ipv4\n' > "$root/etc/systemd/network/20-board-lab.network"
# The serial console: root logs in without a password (an interactive `board-lab.sh shell`). A scenario run masks
# this getty on the kernel command line so that only the scenario writes to the console.
mkdir -p "$root/etc/systemd/system/serial-getty@ttyAMA0.service.d"
printf '[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin root --keep-baud 115200,57600,38400,9600 %%I $TERM\n' \
    > "$root/etc/systemd/system/serial-getty@ttyAMA0.service.d/autologin.conf"
# The scenario runner's entry: with board_lab.run on the kernel command line, mounts the lab disk (label blab) and runs
# its run.sh (which board-lab.sh puts there with the scenario and the packages) with the console as its output.
install -m 0755 "$here/guest/board-lab-boot" "$root/usr/local/sbin/board-lab-boot"
install -m 0644 "$here/guest/board-lab.service" "$root/etc/systemd/system/board-lab.service"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sfn /etc/systemd/system/board-lab.service "$root/etc/systemd/system/multi-user.target.wants/board-lab.service"
# The board boots to multi-user.target (no graphical target on a jukebox).
ln -sfn /usr/lib/systemd/system/multi-user.target "$root/etc/systemd/system/default.target"
# No time is spent waiting for a network that the lab does not need to be "online".
ln -sfn /dev/null "$root/etc/systemd/system/systemd-networkd-wait-online.service"
# MPD: the music disk, the loopback card, the state disk, every address (the forwarded port).
mkdir -p "$root/etc"
cat > "$root/etc/mpd.conf.board-lab" <<'MPD'
# The board lab's MPD: music from the music disk, sound into snd-aloop (card 0), state on the state disk.
music_directory        "/srv/music"
playlist_directory     "/var/lib/mpd/playlists"
db_file                "/var/lib/mpd/tag_cache"
state_file             "/var/lib/mpd/state"
sticker_file           "/var/lib/mpd/sticker.sql"
state_file_interval    "10"
user                   "mpd"
bind_to_address        "any"
port                   "6600"
restore_paused         "no"
auto_update            "no"
log_level              "notice"
audio_output {
    type        "alsa"
    name        "Loopback"
    device      "hw:Loopback,0,0"
    mixer_type  "software"
}
MPD

# 3. Packages with APT (their .debs kept in the cache).
resolved=()
pkg_stamp="${apt_packages[*]}"
if [ $rebuild = 1 ] || [ "$(cat "$root/.board-lab-packages" 2>/dev/null)" != "$pkg_stamp" ]; then
    bind /proc "$root/proc"; bind /sys "$root/sys"; bind /dev "$root/dev"; bind /dev/pts "$root/dev/pts"
    bind "$cache/debs" "$root/var/cache/apt/archives"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    # Nothing starts in the chroot.
    printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"; chmod 0755 "$root/usr/sbin/policy-rc.d"
    t=$(date +%s)
    $N chroot "$root" apt-get update -qq
    for alt in "${apt_packages[@]}"; do
        pick=""
        IFS='|' read -r -a names <<< "$alt"
        for name in "${names[@]}"; do
            if in_root apt-cache show --no-all-versions "$name" 2>/dev/null | grep '^Package:' >/dev/null; then pick=$name; break; fi
        done
        [ -n "$pick" ] || die "none of $alt is in trixie"
        resolved+=("$pick")
    done
    log "apt-get install ${resolved[*]}"
    $N chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Use-Pty=0 \
        "${resolved[@]}" > "$cache/apt-install.log" 2>&1 || { tail -30 "$cache/apt-install.log"; die "apt-get install failed"; }
    log "apt-get install took $(( $(date +%s) - t )) s"
    rm -f "$root/usr/sbin/policy-rc.d"
    unbind_all
    rm -f "$root/etc/resolv.conf"
    printf '%s' "$pkg_stamp" > "$root/.board-lab-packages"
fi
# The drivers trixie's arm64 kernel leaves out (gpio-sim, snd-dummy), built out of tree for its exact version.
if [ "${BOARD_LAB_MODULES:-1}" = 1 ]; then
    "$here/build-modules.sh" "$cache" "$root" ||
        log "warning: gpio-sim/snd-dummy not built (build-modules.sh failed); the lab runs without them"
fi
install -m 0644 "$root/etc/mpd.conf.board-lab" "$root/etc/mpd.conf"
# The network (systemd-networkd, DHCP from qemu's user network) comes up at boot.
in_root systemctl enable systemd-networkd.service >/dev/null 2>&1 || log "warning: could not enable systemd-networkd"
# MPD starts at boot (not only on its socket's first client), as a board's music player does.
ln -sfn /usr/lib/systemd/system/mpd.service "$root/etc/systemd/system/multi-user.target.wants/mpd.service"
mkdir -p "$root/etc/systemd/system/sockets.target.wants"
ln -sfn /usr/lib/systemd/system/mpd.socket "$root/etc/systemd/system/sockets.target.wants/mpd.socket"
: > "$root/etc/machine-id"   # systemd makes one at first boot
passwd_root=$(grep '^root:' "$root/etc/shadow" | cut -d: -f2)
[ "$passwd_root" != "*" ] || sed -i 's/^root:\*:/root::/' "$root/etc/shadow"
in_root dpkg-query -W > "$cache/packages.txt"

# 4. The kernel: Debian's arm64 vmlinuz is a compressed Image (gzip, or an EFI zboot PE holding a compressed Image);
#    qemu -kernel gets the plain Image.
kver=$(ls "$root/lib/modules" | sort -V | tail -1)
[ -n "$kver" ] || die "no kernel in the root"
cp "$root/boot/config-$kver" "$cache/config"
cp "$root/boot/initrd.img-$kver" "$cache/initrd.img"
python3 - "$root/boot/vmlinuz-$kver" "$cache/vmlinuz" <<'PY'
import gzip, lzma, struct, subprocess, sys, zlib
data = open(sys.argv[1], 'rb').read()
if data[:2] == b'\x1f\x8b':
    data = gzip.decompress(data)
elif data[:2] == b'MZ' and data[4:8] == b'zimg':        # EFI zboot: payload offset and size, then the compressor
    off, size = struct.unpack('<II', data[8:16]); comp = data[24:32].rstrip(b'\0').decode()
    payload = data[off:off + size]
    if comp == 'gzip': data = gzip.decompress(payload)
    elif comp == 'zstd': data = subprocess.run(['zstd', '-dc'], input=payload, capture_output=True, check=True).stdout
    elif comp == 'xz': data = lzma.decompress(payload)
    else: sys.exit('unknown zboot compression ' + comp)
if data[56:60] != b'ARM\x64':
    sys.exit('not an arm64 Image')
open(sys.argv[2], 'wb').write(data)
PY
{
    echo "kernel $kver"
    for opt in GPIO_SIM GPIO_MOCKUP SND_ALOOP SND_DUMMY INPUT_UINPUT INPUT_EVDEV GPIO_CDEV GPIO_CDEV_V1 CONFIGFS_FS \
               VIRTIO_BLK VIRTIO_PCI EXT4_FS WATCHDOG I6300ESB_WDT ARM_SBSA_WATCHDOG; do
        line=$(grep -E "^(# )?CONFIG_$opt[= ]" "$cache/config" || echo "CONFIG_$opt (absent)")
        echo "$line"
    done
} > "$cache/kernel-features.txt"

# 5. The disks.
log "root.img from $root"
rm -f "$cache/root.img"
size_mb=$(( $(du -sm --exclude=./proc --exclude=./sys "$root" | cut -f1) + 768 ))
$N mkfs.ext4 -q -F -L fermata-root -E root_owner=0:0 -d "$root" "$cache/root.img" "${size_mb}M"
if [ ! -f "$cache/music.img" ] || [ $rebuild = 1 ]; then
    log "music.img"
    music=$(mktemp -d); trap 'unbind_all; rm -rf "$music"' EXIT
    mkdir -p "$music/Board Lab/Tones"
    i=1
    for freq in 440 554 659 880; do
        name="$music/Board Lab/Tones/0$i - Tone $freq Hz"
        if command -v sox >/dev/null; then
            $N sox -n -r 44100 -b 16 -c 2 "$name.wav" synth 30 sine $freq vol 0.3
        else
            $N ffmpeg -loglevel error -f lavfi -i "sine=frequency=$freq:duration=30:sample_rate=44100" -ac 2 \
                -metadata title="Tone $freq Hz" -metadata artist="Board Lab" -metadata album="Tones" \
                -metadata track=$i "$name.wav"
        fi
        if [ $((i % 2)) = 0 ]; then
            $N ffmpeg -loglevel error -i "$name.wav" -metadata title="Tone $freq Hz" -metadata artist="Board Lab" \
                -metadata album="Tones" -metadata track=$i "$name.flac" && rm "$name.wav"
        fi
        i=$((i + 1))
    done
    $N mkfs.ext4 -q -F -L music -E root_owner=0:0 -d "$music" "$cache/music.img" 64M
fi
if [ ! -f "$cache/state.img" ] || [ $rebuild = 1 ]; then
    log "state.img"
    state=$(mktemp -d); mkdir -p "$state/fermata" "$state/mpd/playlists"
    # Owners as the root's passwd has them (mpd; fermata does not exist until its package makes it, and systemd's
    # StateDirectory= gives the folder to it).
    mpd_ids=$(awk -F: '$1 == "mpd" { print $3 ":" $4 }' "$root/etc/passwd")
    [ -z "$mpd_ids" ] || chown -R "$mpd_ids" "$state/mpd"
    $N mkfs.ext4 -q -F -L state -E root_owner=0:0 -d "$state" "$cache/state.img" 64M
    rm -rf "$state"
fi
log "ready in $(( $(date +%s) - started )) s: $cache ($(du -sh "$cache/root.img" | cut -f1) root image, kernel $kver)"
cat "$cache/kernel-features.txt" >&2
