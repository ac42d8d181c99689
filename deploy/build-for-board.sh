#!/usr/bin/env bash
# Builds fermatad and fermata for a board and packs one artifact per Debian release and architecture:
#   dist/fermata-<git describe>-<bookworm|trixie>-<arm64|amd64>.tar.gz   (bin/, boards/, deploy/, docs/, README.md)
# One per release because the binaries link that release's sonames (libFLAC 12 vs 14, libgpiod v1 vs v2 API).
#
#   deploy/build-for-board.sh [--dry-run] [--out DIR]                  on the board (or any machine of that release
#                                                                       and architecture): a native release build
#   deploy/build-for-board.sh --swift-sdk NAME --release trixie --arch arm64 [--dry-run] [--out DIR]
#                             [--sdk-cache DIR] [--scratch-path DIR]   cross-build with a Swift SDK (README: "Building
#                                                                       for a board"). NAME fermata-RELEASE-ARCH is the
#                                                                       one deploy/make-swift-sdk.sh makes: it is made
#                                                                       or brought up to date first (in --sdk-cache,
#                                                                       default $FERMATA_SDK_CACHE or its own default)
#                                                                       and swift runs in its toolchain root, with its
#                                                                       --swift-sdks-path and pkg-config environment
#                                                                       (needs root). Any other NAME is an SDK the host
#                                                                       swift already has (swift-sdk-generator).
#                                                                       Scratch path: .build-cross-RELEASE-ARCH.
#   deploy/build-for-board.sh --check-alignment FILE...                 only the 16 KiB page check below
#   deploy/build-for-board.sh --check-target RELEASE ARCH [--sysroot DIR] FILE...   only the target checks below
#
# Every binary is checked before it is packed: each PT_LOAD segment must be aligned to at least 16 KiB (0x4000), or
# the Raspberry Pi 5's 16 KiB-page kernel refuses to run it. Package.swift links fermatad and fermata with
# `-z max-page-size=16384`; the check makes sure the build really did. Then what was built is checked against the
# target: the ELF machine is the architecture asked for, no symbol needs a newer glibc than the release has (2.36
# bookworm, 2.41 trixie: a binary linked against a newer Debian fails on the board with "GLIBC_2.xx not found"), and
# the programs start (`--help`) — natively, or under qemu-user for a foreign architecture when qemu-aarch64 or
# qemu-x86_64 is installed and the sysroot (--sysroot, the Swift SDK's) holds the libraries they link.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=$(dirname "$here")
dry=0 sdk="" release="" arch="" out="$project/dist" check_only=0 sysroot="" sdk_cache="" scratch=""

# check_alignment FILE...: fails (status 1) naming every LOAD segment aligned below 16 KiB.
check_alignment() {
    local file bad=0 align
    for file in "$@"; do
        local loads
        loads=$(readelf -lW "$file" 2>/dev/null | awk '$1 == "LOAD" { print $NF }') || true
        if [ -z "$loads" ]; then echo "alignment: $file: not an ELF program with LOAD segments" >&2; bad=1; continue; fi
        for align in $loads; do
            if [ $((align)) -lt $((0x4000)) ]; then
                echo "alignment: $file: LOAD segment aligned to $align, below 0x4000: it will not run on a" \
                    "16 KiB-page kernel (Raspberry Pi 5); link with -Xlinker -z -Xlinker max-page-size=16384" >&2
                bad=1
            fi
        done
        [ $bad -eq 1 ] || echo "alignment: $file: every LOAD segment aligned to >= 0x4000 (16 KiB pages ok)"
    done
    return $bad
}

# check_target RELEASE ARCH FILE...: fails (status 1) naming a wrong architecture, a too new glibc symbol, or a
# program that does not start.
check_target() {
    local release=$1 arch=$2 file bad=0 machine limit highest qemu=""
    shift 2
    case "$release" in bookworm) limit=2.36 ;; trixie) limit=2.41 ;; *) echo "target: unknown release $release" >&2; return 1 ;; esac
    case "$arch" in arm64) machine=AArch64 ;; amd64) machine="X86-64" ;; *) echo "target: unknown arch $arch" >&2; return 1 ;; esac
    local host
    host=$(dpkg --print-architecture 2>/dev/null || uname -m)
    case "$host" in aarch64) host=arm64 ;; x86_64) host=amd64 ;; esac
    if [ "$arch" != "$host" ]; then
        case "$arch" in arm64) qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true) ;;
                        amd64) qemu=$(command -v qemu-x86_64-static || command -v qemu-x86_64 || true) ;; esac
    fi
    for file in "$@"; do
        if ! readelf -h "$file" 2>/dev/null | grep -q "Machine:.*$machine"; then
            echo "target: $file: $(readelf -h "$file" 2>/dev/null | sed -n 's/ *Machine: *//p'), not $arch" >&2
            bad=1
            continue
        fi
        highest=$(readelf -V --wide "$file" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
        if [ -n "$highest" ] && [ "$(printf '%s\n%s\n' "$highest" "$limit" | sort -V | tail -1)" != "$limit" ]; then
            echo "target: $file: needs GLIBC_$highest, newer than $release's $limit: build against $release" >&2
            bad=1
            continue
        fi
        local started
        if [ "$arch" = "$host" ]; then
            "$file" --help >/dev/null 2>&1 && started="starts (--help)" || { echo "target: $file: does not start" >&2; bad=1; continue; }
        elif [ -n "$qemu" ] && [ -n "$sysroot" ]; then
            "$qemu" -L "$sysroot" "$file" --help >/dev/null 2>&1 && started="starts under $(basename "$qemu")" \
                || { echo "target: $file: does not start under $qemu -L $sysroot" >&2; bad=1; continue; }
        else
            started="not started (a foreign architecture needs qemu-user and --sysroot)"
        fi
        echo "target: $file: $arch, glibc symbols up to ${highest:-none} (<= $limit for $release), $started"
    done
    return $bad
}

target_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) dry=1; shift ;;
        --swift-sdk) sdk=$2; shift 2 ;;
        --release) release=$2; shift 2 ;;
        --arch) arch=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --check-alignment) check_only=1; shift; break ;;
        --sysroot) sysroot=$2; shift 2 ;;
        --check-target) target_only=1; release=$2; arch=$3; shift 3
            [ "${1:-}" != "--sysroot" ] || { sysroot=$2; shift 2; }
            break ;;
        --sdk-cache) sdk_cache=$2; shift 2 ;;
        --scratch-path) scratch=$2; shift 2 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) echo "build-for-board.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ $target_only -eq 1 ]; then
    [ $# -gt 0 ] || { echo "build-for-board.sh: --check-target needs RELEASE ARCH and files" >&2; exit 2; }
    check_target "$release" "$arch" "$@"
    exit
fi
if [ $check_only -eq 1 ]; then
    [ $# -gt 0 ] || { echo "build-for-board.sh: --check-alignment needs files" >&2; exit 2; }
    check_alignment "$@"
    exit
fi

if [ -n "$sdk" ]; then
    [ -n "$release" ] && [ -n "$arch" ] || {
        echo "build-for-board.sh: --swift-sdk needs --release bookworm|trixie and --arch arm64|amd64" >&2; exit 2; }
else
    release=${release:-$( . /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")}
    arch=${arch:-$(dpkg --print-architecture 2>/dev/null || uname -m)}
fi
case "$arch" in aarch64) arch=arm64 ;; x86_64) arch=amd64 ;; esac
case "$release" in
    bookworm|trixie) ;;
    *) echo "build-for-board.sh: release $release: only bookworm and trixie" >&2; exit 2 ;;
esac
case "$arch" in
    arm64|amd64) ;;
    *) echo "build-for-board.sh: arch $arch: only arm64 and amd64 (64-bit OS)" >&2; exit 2 ;;
esac

version=$(git -C "$project" describe --tags --always --dirty 2>/dev/null || echo unknown)
name="fermata-$version-$release-$arch"
swift_args=(--package-path "$project" -c release -j 2 --static-swift-stdlib)
# in_sdk COMMAND...: COMMAND as it must run for this build: directly, or in the Debian SDK's toolchain root.
in_sdk() { "$@"; }
if [ -n "$sdk" ]; then
    scratch=${scratch:-$project/.build-cross-$release-$arch}
    swift_args+=(--scratch-path "$scratch")
    if [ "$sdk" = "fermata-$release-$arch" ]; then
        # deploy/make-swift-sdk.sh's SDK: (re)made incrementally, then swift runs in its toolchain root (the project
        # is mounted at the same path there, so every path below holds inside and outside).
        make_sdk=("$here/make-swift-sdk.sh" --arch "$arch" --release "$release")
        [ -z "$sdk_cache" ] || make_sdk+=(--cache "$sdk_cache")
        case "$scratch" in "$project"/*) ;; *)
            echo "build-for-board.sh: --scratch-path must be inside $project (it is what the toolchain root sees)" >&2
            exit 2 ;; esac
        if [ $dry -eq 0 ]; then
            "${make_sdk[@]}" >&2
            eval "$("${make_sdk[@]}" --print-paths | sed 's/^/sdkpath_/')"
            swift_args+=(--swift-sdks-path "$sdkpath_swift_sdks")
            sysroot=${sysroot:-$sdkpath_sysroot}
        fi
        in_sdk() { "${make_sdk[@]}" --run -- "$@"; }
    fi
    swift_args+=(--swift-sdk "$sdk")
fi
echo "artifact: $out/$name.tar.gz"
# One program: fermata is the CLI, and the daemon when called as fermatad (bin/fermatad is a link to it).
echo "+ swift build ${swift_args[*]} --product fermata"
[ $dry -eq 1 ] || in_sdk swift build "${swift_args[@]}" --product fermata
[ $dry -eq 0 ] || exit 0

bin=$(in_sdk swift build "${swift_args[@]}" --show-bin-path | tail -1)
check_alignment "$bin/fermata"
# The stage is inside the scratch path for an SDK build, so that the toolchain root's llvm-objcopy sees it.
if [ -n "$sdk" ]; then mkdir -p "$scratch"; stage=$(mktemp -d "$scratch/stage.XXXXXX"); else stage=$(mktemp -d); fi
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/bin"
install -m 0755 "$bin/fermata" "$stage/$name/bin/"
ln -s fermata "$stage/$name/bin/fermatad"
# Without symbols the programs are about 40 % smaller (fermatad 114 → 70 MB on amd64); llvm-objcopy from the Swift
# toolchain strips any architecture, binutils' strip only the host's.
objcopy_tool=$(in_sdk sh -c 'command -v llvm-objcopy || echo "$(dirname "$(readlink -f "$(command -v swift)")")/llvm-objcopy"' | tail -1)
for program in "$stage/$name/bin/fermata"; do
    if in_sdk test -x "$objcopy_tool"; then in_sdk "$objcopy_tool" --strip-all "$program"
    elif [ -z "$sdk" ]; then strip "$program"
    else echo "build-for-board.sh: no llvm-objcopy; $program keeps its symbols" >&2; fi
done
check_alignment "$stage/$name/bin/fermata"
check_target "$release" "$arch" "$stage/$name/bin/fermata"
cp -r "$project/boards" "$project/deploy" "$project/docs" "$project/README.md" "$stage/$name/"
echo "$release $arch $version" > "$stage/$name/TARGET"
mkdir -p "$out"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
echo "built $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)); install it on the board with:"
echo "  sudo deploy/install.sh --from-artifact $name.tar.gz"
echo "  (or: tar xzf $name.tar.gz && sudo $name/deploy/install.sh --binaries $name/bin)"
