#!/usr/bin/env bash
# Builds the two lab drivers that trixie's arm64 kernel leaves out (CONFIG_GPIO_SIM and CONFIG_SND_DUMMY are not set)
# as out-of-tree modules for exactly the image's kernel, and installs them into the image's root
# (/lib/modules/KVER/updates/board-lab/{gpio-sim,snd-dummy}.ko, depmod). Called by make-image.sh; re-run only when the
# kernel changes. Same approach as shared/kernel-lab (Debian 12 amd64): the sources from the matching
# linux-source-6.12 package, irq_sim.c built into gpio-sim.ko (nothing in Debian's config selects CONFIG_IRQ_SIM) with
# the one change that lets it build as part of a module.
#
#   build-modules.sh CACHE ROOTFS
#
# The build runs in an overlay of ROOTFS (CACHE/kbuild/upper; ROOTFS itself is not changed but for the two .ko files)
# with gcc-14, make and linux-headers-KVER installed there by APT, under qemu-user, at nice 19. The modules are
# unsigned (CONFIG_MODULE_SIG=y without _FORCE: they load and taint the kernel, "module verification failed").
set -euo pipefail
cache=$1 root=$2
log() { echo "board-lab modules: $*" >&2; }
die() { echo "board-lab modules: $*" >&2; exit 2; }
N="nice -n 19"
kver=$(ls "$root/lib/modules" | sort -V | tail -1)
pkgver=$(chroot "$root" dpkg-query -W -f='${Version}' "linux-image-$kver")
series=$(echo "$kver" | cut -d. -f1-2)   # 6.12
dest=$root/lib/modules/$kver/updates/board-lab
if [ -f "$dest/gpio-sim.ko" ] && [ -f "$dest/snd-dummy.ko" ]; then
    log "already built for $kver"; exit 0
fi
kb=$cache/kbuild
src_deb=$cache/kmod-src/linux-source-${series}_${pkgver}_all.deb
mkdir -p "$cache/kmod-src" "$kb"
if [ ! -s "$src_deb" ]; then
    log "downloading linux-source-$series $pkgver (for 4 source files)"
    mirror=$(sed -n 's/^deb \([^ ]*\) .*/\1/p' "$root/etc/apt/sources.list" | head -1)
    $N curl -sSfL -o "$src_deb.part" "$mirror/pool/main/l/linux/linux-source-${series}_${pkgver}_all.deb"
    mv "$src_deb.part" "$src_deb"
fi
src=$kb/src
if [ ! -f "$src/drivers/gpio/gpio-sim.c" ]; then
    log "extracting gpio-sim.c, gpiolib.h, irq_sim.c, dummy.c"
    rm -rf "$src"; mkdir -p "$src"
    $N dpkg-deb --fsys-tarfile "$src_deb" | tar -xO "./usr/src/linux-source-$series.tar.xz" |
        $N tar -xJ -C "$src" --strip-components=1 "linux-source-$series/drivers/gpio/gpio-sim.c" \
            "linux-source-$series/drivers/gpio/gpiolib.h" "linux-source-$series/kernel/irq/irq_sim.c" \
            "linux-source-$series/sound/drivers/dummy.c"
fi

# The build folders.
rm -rf "$kb/build"; mkdir -p "$kb/build/gpio-sim" "$kb/build/snd-dummy"
cp "$src/drivers/gpio/gpio-sim.c" "$kb/build/gpio-sim/gpio-sim-main.c"
cp "$src/drivers/gpio/gpiolib.h" "$kb/build/gpio-sim/gpiolib.h"
cp "$src/kernel/irq/irq_sim.c" "$kb/build/gpio-sim/irq_sim.c"
# irq_to_desc() is not exported to modules; every simulated irq has handle_simple_irq as its flow handler, so the
# exported generic_handle_irq_safe() does the same (shared/kernel-lab/gpio-sim/prepare-sources.sh).
sed -i 's|handle_simple_irq(irq_to_desc(irqnum));|generic_handle_irq_safe(irqnum); /* board-lab: irq_to_desc() is not exported */|' \
    "$kb/build/gpio-sim/irq_sim.c"
grep -q 'generic_handle_irq_safe(irqnum)' "$kb/build/gpio-sim/irq_sim.c" || die "irq_sim.c changed: update the sed"
printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' > "$kb/build/gpio-sim/Makefile"
cp "$src/sound/drivers/dummy.c" "$kb/build/snd-dummy/dummy.c"
printf 'obj-m := snd-dummy.o\nsnd-dummy-y := dummy.o\n' > "$kb/build/snd-dummy/Makefile"

# The overlay: ROOTFS below, the compiler and headers above.
merged=$kb/merged
mkdir -p "$kb/upper" "$kb/work" "$merged"
mounted=()
cleanup() { local m; for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done; }
trap cleanup EXIT
mount -t overlay overlay -o "lowerdir=$root,upperdir=$kb/upper,workdir=$kb/work" "$merged"; mounted=("$merged")
for d in proc sys dev; do mount --bind "/$d" "$merged/$d"; mounted=("$merged/$d" "${mounted[@]}"); done
mkdir -p "$merged/build"; mount --bind "$kb/build" "$merged/build"; mounted=("$merged/build" "${mounted[@]}")
mount --bind "$cache/debs" "$merged/var/cache/apt/archives"; mounted=("$merged/var/cache/apt/archives" "${mounted[@]}")
cp /etc/resolv.conf "$merged/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' > "$merged/usr/sbin/policy-rc.d"; chmod 0755 "$merged/usr/sbin/policy-rc.d"
log "installing gcc-14, make, linux-headers-$kver in the build overlay"
$N chroot "$merged" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Use-Pty=0 \
    gcc-14 make "linux-headers-$kver" > "$kb/apt.log" 2>&1 || { tail -20 "$kb/apt.log"; die "apt-get install failed"; }
for m in gpio-sim snd-dummy; do
    log "building $m.ko for $kver"
    $N chroot "$merged" make -C "/usr/src/linux-headers-$kver" M="/build/$m" CC=aarch64-linux-gnu-gcc-14 \
        modules > "$kb/build-$m.log" 2>&1 || { tail -30 "$kb/build-$m.log"; die "building $m failed"; }
done
mkdir -p "$dest"
cp "$kb/build/gpio-sim/gpio-sim.ko" "$kb/build/snd-dummy/snd-dummy.ko" "$dest/"
cleanup; mounted=()
rm -rf "$kb/upper" "$kb/work" "$merged"
chroot "$root" depmod -a "$kver"
log "installed $(ls "$dest" | tr '\n' ' ')into $dest"
