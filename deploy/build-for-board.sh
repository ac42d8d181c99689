#!/usr/bin/env bash
# Builds fermatad and fermata for a board and packs one artifact per Debian release and architecture:
#   dist/fermata-<git describe>-<bookworm|trixie>-<arm64|amd64>.tar.gz   (bin/, boards/, deploy/, README.md)
# One per release because the binaries link that release's sonames (libFLAC 12 vs 14, libgpiod v1 vs v2 API).
#
#   deploy/build-for-board.sh [--dry-run] [--out DIR]                  on the board (or any machine of that release
#                                                                       and architecture): a native release build
#   deploy/build-for-board.sh --swift-sdk NAME --release trixie --arch arm64 [--dry-run] [--out DIR]
#                                                                       cross-build with a Swift SDK made from a Debian
#                                                                       sysroot (README: "Building for a board")
#   deploy/build-for-board.sh --check-alignment FILE...                 only the 16 KiB page check below
#
# Every binary is checked before it is packed: each PT_LOAD segment must be aligned to at least 16 KiB (0x4000), or
# the Raspberry Pi 5's 16 KiB-page kernel refuses to run it. Package.swift links fermatad and fermata with
# `-z max-page-size=16384`; the check makes sure the build really did.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=$(dirname "$here")
dry=0 sdk="" release="" arch="" out="$project/dist" check_only=0

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

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) dry=1; shift ;;
        --swift-sdk) sdk=$2; shift 2 ;;
        --release) release=$2; shift 2 ;;
        --arch) arch=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --check-alignment) check_only=1; shift; break ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "build-for-board.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
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
[ -z "$sdk" ] || swift_args+=(--swift-sdk "$sdk")
echo "artifact: $out/$name.tar.gz"
for product in fermatad fermata; do
    echo "+ swift build ${swift_args[*]} --product $product"
    [ $dry -eq 1 ] || swift build "${swift_args[@]}" --product "$product"
done
[ $dry -eq 0 ] || exit 0

bin=$(swift build "${swift_args[@]}" --show-bin-path)
check_alignment "$bin/fermatad" "$bin/fermata"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/bin"
install -m 0755 "$bin/fermatad" "$bin/fermata" "$stage/$name/bin/"
# Without symbols the programs are about 40 % smaller (fermatad 114 → 70 MB on amd64); llvm-objcopy from the Swift
# toolchain strips any architecture, binutils' strip only the host's.
objcopy_tool=$(command -v llvm-objcopy || echo "$(dirname "$(readlink -f "$(command -v swift)")")/llvm-objcopy")
for program in "$stage/$name/bin/fermatad" "$stage/$name/bin/fermata"; do
    if [ -x "$objcopy_tool" ]; then "$objcopy_tool" --strip-all "$program"
    elif [ -z "$sdk" ]; then strip "$program"
    else echo "build-for-board.sh: no llvm-objcopy; $program keeps its symbols" >&2; fi
done
check_alignment "$stage/$name/bin/fermatad" "$stage/$name/bin/fermata"
cp -r "$project/boards" "$project/deploy" "$project/README.md" "$stage/$name/"
echo "$release $arch $version" > "$stage/$name/TARGET"
mkdir -p "$out"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
echo "built $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)); install it on the board with:"
echo "  sudo deploy/install.sh --from-artifact $name.tar.gz"
echo "  (or: tar xzf $name.tar.gz && sudo $name/deploy/install.sh --binaries $name/bin)"
