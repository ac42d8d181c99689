#!/usr/bin/env bash
# Makes a Swift SDK for cross-building Fermata to a Debian release and architecture, from Debian packages only, and
# runs commands with it. Everything lives under one cache folder and is re-made only when its inputs change.
#
#   deploy/make-swift-sdk.sh [--arch arm64|amd64] [--release trixie] [--cache DIR] [--mirror URL]
#                                                   make (or bring up to date) the SDK; prints how to use it
#   deploy/make-swift-sdk.sh [same options] --run -- COMMAND...
#                                                   run COMMAND in the toolchain root, in this project's folder, with
#                                                   the SDK's pkg-config environment (e.g. -- swift build
#                                                   --swift-sdks-path "$FERMATA_SDKS" --swift-sdk "$FERMATA_SDK" ...)
#   deploy/make-swift-sdk.sh [same options] --print-paths
#
# What it makes, under DIR (default: $FERMATA_SDK_CACHE, else ~/.cache/fermata-swift-sdk):
#   debs/                    downloaded .debs, kept between runs (debootstrap --cache-dir)
#   toolchain-sid-amd64/     a Debian sid amd64 root with sid's `swiftlang` (the compiler, which runs natively here)
#   sysroot-RELEASE-ARCH/    the target's files: a minbase root unpacked without running anything in it (no
#                            emulation needed), Fermata's -dev packages, and the Swift runtime for ARCH taken from the
#                            very same sid `swiftlang`/`libswiftlang` version as the compiler (they must match)
#   swift-sdks/fermata-RELEASE-ARCH.artifactbundle/
#                            info.json, sdk/swift-sdk.json (schema 4.0, paths relative to it), sdk/toolset.json
#                            (`-use-ld=lld`, llvm-ar)
#   fermata-RELEASE-ARCH.env the pkg-config environment (PKG_CONFIG_SYSROOT_DIR/_LIBDIR/_PATH into the sysroot)
#
# Supported: trixie × arm64 and trixie × amd64, compiled by sid's Swift (6.2.x: the mirrored dependencies need tools
# 6.1–6.2; trixie's own swiftlang 6.0.3 is too old). Not supported here: bookworm (glibc 2.36; sid's runtime is built
# for a newer glibc — use swift-sdk-generator with a swift.org toolchain, README "Building for a board"), armhf.
# Known gap: sid's swiftlang ships _Testing_Foundation.swiftmodule without lib_Testing_Foundation.so, so linking the
# test bundle needs a stub (issue 14, Build 4); the programs do not.
#
# Needs root (debootstrap, chroot, bind mounts), debootstrap, and the Debian archive keyring. The mirror defaults to
# the first Debian URI in this machine's APT sources.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=$(dirname "$here")

arch=arm64 release=trixie cache=${FERMATA_SDK_CACHE:-$HOME/.cache/fermata-swift-sdk} mirror="" mode=make
toolchain_suite=sid
run_command=()
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch=$2; shift 2 ;;
        --release) release=$2; shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        --mirror) mirror=$2; shift 2 ;;
        --print-paths) mode=paths; shift ;;
        --run) mode=run; shift; [ "${1:-}" != "--" ] || shift; run_command=("$@"); break ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "make-swift-sdk.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$arch" in
    arm64) triple=aarch64-unknown-linux-gnu multiarch=aarch64-linux-gnu ;;
    amd64) triple=x86_64-pc-linux-gnu multiarch=x86_64-linux-gnu ;;  # Debian names its amd64 Swift modules so
    *) echo "make-swift-sdk.sh: --arch $arch: only arm64 and amd64" >&2; exit 2 ;;
esac
case "$release" in
    trixie) gcc_version=14 ;;
    *) echo "make-swift-sdk.sh: --release $release: only trixie (bookworm: see --help)" >&2; exit 2 ;;
esac
[ "$(uname -m)" = x86_64 ] || { echo "make-swift-sdk.sh: runs on an x86-64 (amd64) machine" >&2; exit 2; }

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
toolroot=$cache/toolchain-$toolchain_suite-amd64
sysroot=$cache/sysroot-$release-$arch
sdk_name=fermata-$release-$arch
sdks=$cache/swift-sdks
bundle=$sdks/$sdk_name.artifactbundle
envfile=$cache/$sdk_name.env

# What Fermata links (deploy/build-deps.sh's build packages) plus the C/C++ runtime files the linker needs.
target_packages=(
    libasound2-dev libflac-dev libvorbis-dev libgpiod-dev libsqlite3-dev libsoxr-dev libsoundtouch-dev
    libmpg123-dev libopusfile-dev libavformat-dev libavcodec-dev
    libespeak-ng-dev libcurl4-openssl-dev
    libc6-dev "libstdc++-$gcc_version-dev" "libgcc-$gcc_version-dev" linux-libc-dev zlib1g-dev
)
# What the toolchain root needs to compile: the compiler (with clang), the linker, pkg-config, git for SwiftPM, and
# the host's C library headers (SwiftPM compiles Package.swift for the host; swiftlang does not depend on them).
toolchain_packages=(ca-certificates swiftlang lld pkg-config git libc6-dev)

log() { echo "make-swift-sdk: $*" >&2; }

if [ "$mode" = paths ]; then
    printf 'cache=%s\ntoolchain=%s\nsysroot=%s\nswift_sdks=%s\nswift_sdk=%s\nenv=%s\n' \
        "$cache" "$toolroot" "$sysroot" "$sdks" "$sdk_name" "$envfile"
    exit 0
fi

if [ -z "$mirror" ]; then
    mirror=$(grep -hsE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
        /etc/apt/sources.list | grep -v -- '-security' | grep -oE 'https?://[^ ]+/debian/?' | head -1 || true)
    [ -n "$mirror" ] || { echo "make-swift-sdk.sh: no Debian mirror in the APT sources; pass --mirror URL" >&2; exit 2; }
fi
[ "$(id -u)" -eq 0 ] || { echo "make-swift-sdk.sh: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "make-swift-sdk.sh: apt-get install debootstrap" >&2; exit 2; }

# fresh DIR STAMP: true when DIR was made from exactly STAMP (the step's inputs); the step is then skipped.
fresh() { [ -f "$1/.fermata-stamp" ] && [ "$(cat "$1/.fermata-stamp")" = "$2" ]; }
stamp() { printf '%s' "$2" > "$1/.fermata-stamp"; }

# Bind mounts for chroot; undone on exit however the script ends.
mounted=()
bind() {  # bind SOURCE TARGET-INSIDE-ROOT
    mkdir -p "$2"
    mount --bind "$1" "$2"
    mounted=("$2" "${mounted[@]}")
}
unbind_all() {
    local m
    for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
    mounted=()
}
trap unbind_all EXIT
in_toolroot() {  # in_toolroot COMMAND...: runs COMMAND in the toolchain root with /proc, /dev and the cache mounted
    bind /proc "$toolroot/proc"
    bind /dev "$toolroot/dev"
    bind /dev/pts "$toolroot/dev/pts"
    bind "$cache" "$toolroot$cache"
    cp /etc/resolv.conf "$toolroot/etc/resolv.conf" 2>/dev/null || true
    local status=0
    chroot "$toolroot" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 "$@" || status=$?
    unbind_all
    return $status
}

# 1. The toolchain root (amd64, sid): a full debootstrap, since its programs run (natively). A package added to the
#    list later is installed into the existing root with APT.
toolroot_stamp="suite=$toolchain_suite mirror=$mirror"
if ! fresh "$toolroot" "$toolroot_stamp"; then
    log "toolchain root: debootstrap $toolchain_suite amd64 into $toolroot"
    rm -rf "$toolroot"
    mkdir -p "$cache/debs/$toolchain_suite-amd64"
    debootstrap --arch=amd64 --variant=minbase --cache-dir="$cache/debs/$toolchain_suite-amd64" \
        --include="$(IFS=,; echo "${toolchain_packages[*]}")" "$toolchain_suite" "$toolroot" "$mirror"
    stamp "$toolroot" "$toolroot_stamp"
fi
# sid's Release file can be past its Valid-Until (the packages are still the signed ones); downloads land in the
# cache, which APT's unprivileged sandbox user may not write.
printf '%s\n' 'Acquire::Check-Valid-Until "false";' 'APT::Sandbox::User "root";' \
    > "$toolroot/etc/apt/apt.conf.d/99fermata-sdk"
if [ "$(cat "$toolroot/.fermata-packages" 2>/dev/null)" != "${toolchain_packages[*]}" ]; then
    log "toolchain root: apt-get install ${toolchain_packages[*]}"
    in_toolroot sh -ec "apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${toolchain_packages[*]} >/dev/null"
    printf '%s' "${toolchain_packages[*]}" > "$toolroot/.fermata-packages"
fi
swift_version=$(chroot "$toolroot" dpkg-query -W -f='${Version}' swiftlang)
log "compiler: sid swiftlang $swift_version: $(in_toolroot swift --version 2>/dev/null | head -1)"

# 2. The target's Swift runtime: the same swiftlang/libswiftlang version, for ARCH, downloaded through the toolchain
#    root's APT (multiarch) and only unpacked, never installed.
runtime_dir=$cache/debs/swift-runtime-$arch-$swift_version
if ! ls "$runtime_dir"/swiftlang_*.deb >/dev/null 2>&1; then
    log "runtime: downloading swiftlang and libswiftlang $swift_version for $arch"
    mkdir -p "$runtime_dir"
    in_toolroot sh -ec "
        dpkg --print-foreign-architectures | grep -qx $arch || [ $arch = amd64 ] || dpkg --add-architecture $arch
        apt-get update -qq
        cd '$runtime_dir'
        apt-get download -qq swiftlang:$arch=$swift_version libswiftlang:$arch=$swift_version"
fi

# 3. The sysroot: debootstrap's first stage only (--foreign: downloads and resolves, runs nothing of ARCH), then every
#    downloaded package unpacked. A sysroot needs files, not configured packages, so no emulation is involved.
sysroot_stamp="release=$release arch=$arch mirror=$mirror packages=${target_packages[*]} swift=$swift_version layout=2"
if ! fresh "$sysroot" "$sysroot_stamp"; then
    log "sysroot: $release $arch with ${target_packages[*]}"
    rm -rf "$sysroot"
    mkdir -p "$cache/debs/$release-$arch"
    debootstrap --foreign --arch="$arch" --variant=minbase --cache-dir="$cache/debs/$release-$arch" \
        --include="$(IFS=,; echo "${target_packages[*]}")" "$release" "$sysroot" "$mirror"
    for deb in "$sysroot"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
    # From the target's swiftlang only what a cross-build reads (its programs and host libraries are 1.4 GB more):
    # the runtime and module folders, and clang's builtin headers that lib/swift/clang points to.
    runtime_tmp=$(mktemp -d "$cache/runtime.XXXXXX")
    for deb in "$runtime_dir"/*.deb; do dpkg-deb -x "$deb" "$runtime_tmp"; done
    mkdir -p "$sysroot/usr/libexec/swift/lib"
    cp -a "$runtime_tmp/usr/libexec/swift/lib/swift" "$runtime_tmp/usr/libexec/swift/lib/swift_static" \
        "$runtime_tmp/usr/libexec/swift/lib/clang" "$sysroot/usr/libexec/swift/lib/"
    rm -rf "$runtime_tmp"
    # Absolute symbolic links would point into this machine's own /usr: make them relative to the sysroot.
    find "$sysroot/usr" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
        target=$(readlink "$link")
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$target")" "$link"
    done
    # The driver looks for swiftrt.o under <sysroot>/usr/lib/swift_static/linux/<cpu>/ (and the dynamic runtime
    # under usr/lib/swift); Debian keeps both under usr/libexec/swift/lib.
    for kind in swift swift_static; do
        [ -e "$sysroot/usr/lib/$kind" ] || ln -s "../libexec/swift/lib/$kind" "$sysroot/usr/lib/$kind"
    done
    [ -e "$sysroot/usr/libexec/swift/lib/swift_static/linux/${triple%%-*}/swiftrt.o" ] || {
        echo "make-swift-sdk.sh: no swiftrt.o for ${triple%%-*} in the unpacked runtime" >&2; exit 1; }
    stamp "$sysroot" "$sysroot_stamp"
fi

# 4. The bundle and the pkg-config environment (cheap: always rewritten).
#    The host triple: Debian's swift calls this machine x86_64-pc-linux-gnu, swift.org's x86_64-unknown-linux-gnu;
#    SwiftPM finds an SDK only when the bundle lists the compiler's own spelling.
llvm_ar=$(chroot "$toolroot" sh -c 'command -v llvm-ar || ls /usr/libexec/swift/bin/llvm-ar 2>/dev/null' | head -1)
[ -n "$llvm_ar" ] || { echo "make-swift-sdk.sh: no llvm-ar in the toolchain root" >&2; exit 1; }
rel_sysroot=$(realpath -m --relative-to="$bundle/sdk" "$sysroot")
mkdir -p "$bundle/sdk"
cat > "$bundle/info.json" <<EOF
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$sdk_name": {
      "type": "swiftSDK",
      "version": "$swift_version",
      "variants": [{ "path": "sdk", "supportedTriples": ["x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu"] }]
    }
  }
}
EOF
cat > "$bundle/sdk/swift-sdk.json" <<EOF
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "$triple": {
      "sdkRootPath": "$rel_sysroot",
      "swiftResourcesPath": "$rel_sysroot/usr/libexec/swift/lib/swift",
      "swiftStaticResourcesPath": "$rel_sysroot/usr/libexec/swift/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
EOF
cat > "$bundle/sdk/toolset.json" <<EOF
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] },
  "librarian": { "path": "$llvm_ar" }
}
EOF
cat > "$envfile" <<EOF
# pkg-config for $sdk_name: only the sysroot's .pc files, with their paths moved into the sysroot.
export PKG_CONFIG_SYSROOT_DIR=$sysroot
export PKG_CONFIG_LIBDIR=$sysroot/usr/lib/$multiarch/pkgconfig:$sysroot/usr/share/pkgconfig
export PKG_CONFIG_PATH=\$PKG_CONFIG_LIBDIR
export FERMATA_SDKS=$sdks
export FERMATA_SDK=$sdk_name
EOF

if [ "$mode" = make ]; then
    log "ready: $bundle"
    echo "Build with it (in the toolchain root, a scratch path of its own so it never mixes with the host's .build):"
    echo "  $0 --arch $arch --release $release --cache $cache --run -- \\"
    echo "    swift build -c release --static-swift-stdlib --scratch-path .build-$sdk_name \\"
    echo "      --swift-sdks-path $sdks --swift-sdk $sdk_name --product fermatad"
    exit 0
fi

# --run: the project (and the local package mirror, if any, with the git settings that point at it) at the same
# paths inside the toolchain root, so the bundle's, the environment's and SwiftPM's paths hold inside as outside.
[ ${#run_command[@]} -gt 0 ] || { echo "make-swift-sdk.sh: --run needs a command" >&2; exit 2; }
bind /proc "$toolroot/proc"
bind /dev "$toolroot/dev"
bind /dev/pts "$toolroot/dev/pts"
bind "$cache" "$toolroot$cache"
bind "$project" "$toolroot$project"
[ ! -d /opt/swift-packages ] || bind /opt/swift-packages "$toolroot/opt/swift-packages"
[ ! -f /etc/gitconfig ] || cp /etc/gitconfig "$toolroot/etc/gitconfig"
status=0
chroot "$toolroot" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
    bash -c '. "$1"; cd "$2"; shift 2; exec "$@"' run "$envfile" "$project" "${run_command[@]}" || status=$?
exit $status
