#!/usr/bin/env bash
# Cross-builds Fermata's test bundle for a foreign architecture (or for another Debian release of this one) with
# deploy/make-swift-sdk.sh's Swift SDK, and runs the suites in a Debian root of that release and architecture — under
# qemu-user for arm64, natively for amd64 — then prints passed/failed per suite (issue 14, Builds 4 and 5).
#
#   Tests/Tools/arm64-test-run.sh [--arch arm64|amd64] [--release trixie] [--sdk-cache DIR] [--no-build]
#                                 [--skip REGEX]... [--filter REGEX]... [--prepare-only] [--by-target]
#
# Needs root (debootstrap, chroot, bind mounts); for arm64 also qemu-user-static and binfmt-support
# (`apt-get install -y qemu-user-static binfmt-support`; if /proc/sys/fs/binfmt_misc is empty:
# `mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc`). binfmt's F flag (Debian's default) lets the kernel
# start the emulator inside a chroot.
# The test root (SDK cache, testroot-RELEASE-ARCH/): a real debootstrap of RELEASE for ARCH (its second stage runs
# under emulation for arm64, ~10 min once), with the libraries Fermata links and the programs the tests drive (mpc,
# python3-mpd, flac, vorbis-tools, sqlite3, snapserver, git, cc, ...), plus the Swift runtime of the SDK's compiler.
# The suites run chrooted in it with /proc, /sys, /dev, /tmp and this project bound at their own paths, so every
# program a test starts (fermatad, fermata, mpc, python3) is the release's own for ARCH. --prepare-only makes the
# SDK and the test root and stops. --by-target runs one test target (module) at a time, each in a process of its own.
# Scratch path: .build-cross-RELEASE-ARCH (debug, next to build-for-board.sh's release build). Run it with
# `nice -n 19` on a shared machine.
# Excluded always: the kernel-lab suites (ControlsKernelTests, DaemonFaultTests: they boot a kernel of their own).
# Known gap worked around here: sid's swiftlang 6.2.3 ships _Testing_Foundation.swiftmodule without
# lib_Testing_Foundation.so, so an empty archive of that name satisfies the autolinked -l_Testing_Foundation.
# Exit status: 0 when every suite that ran passed.
set -euo pipefail
project=$(cd "$(dirname "$0")/../.." && pwd)
arch=arm64 release=trixie sdk_cache="" build=1 prepare_only=0 by_target=0
filters=() skips=(--skip 'ControlsKernelTests\.' --skip 'DaemonFaultTests\.')
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch=$2; shift 2 ;;
        --release) release=$2; shift 2 ;;
        --sdk-cache) sdk_cache=$2; shift 2 ;;
        --no-build) build=0; shift ;;
        --prepare-only) prepare_only=1; shift ;;
        --by-target) by_target=1; shift ;;
        --skip) skips+=(--skip "$2"); shift 2 ;;
        --filter) filters+=(--filter "$2"); shift 2 ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "arm64-test-run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
# Swift Testing ORs its --filter options, so a filter of the caller's would run in every target's pass.
[ $by_target -eq 0 ] || [ ${#filters[@]} -eq 0 ] || {
    echo "arm64-test-run.sh: --filter and --by-target do not combine (the filters would run in every target's pass)" >&2
    exit 2; }
case "$arch" in arm64) qemu_name=aarch64 ;; amd64) qemu_name=x86_64 ;; *) echo "arm64-test-run.sh: --arch arm64|amd64" >&2; exit 2 ;; esac

make_sdk=("$project/deploy/make-swift-sdk.sh" --arch "$arch" --release "$release")
[ -z "$sdk_cache" ] || make_sdk+=(--cache "$sdk_cache")
"${make_sdk[@]}" >&2
eval "$("${make_sdk[@]}" --print-paths | sed 's/^/sdk_/')"
scratch=$project/.build-cross-$release-$arch
stubs=$scratch/test-stubs
mkdir -p "$stubs"
[ -f "$stubs/lib_Testing_Foundation.a" ] || printf '!<arch>\n' > "$stubs/lib_Testing_Foundation.a"
swift_args=(--package-path "$project" -j 2 --scratch-path "$scratch" --swift-sdks-path "$sdk_swift_sdks"
    --swift-sdk "$sdk_swift_sdk" -Xlinker -L"$stubs")

# The test root: made once, re-made when its package list changes.
testroot=$sdk_cache/testroot-$release-$arch
test_packages=(
    libasound2-dev libflac-dev libvorbis-dev libgpiod-dev libsqlite3-dev libsoxr-dev libsoundtouch-dev libespeak-ng-dev
    flac vorbis-tools alsa-utils python3 mpc python3-mpd sqlite3 snapserver snapclient
    git ca-certificates gcc libc6-dev binutils file procps systemd tar xz-utils
)
testroot_stamp="release=$release arch=$arch packages=${test_packages[*]} swift=$(basename "$(ls -d "$sdk_cache"/debs/swift-runtime-"$arch"-* | tail -1)")"
if [ "$(cat "$testroot/.fermata-stamp" 2>/dev/null)" != "$testroot_stamp" ]; then
    mirror=$(grep -hsE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
        /etc/apt/sources.list | grep -v -- '-security' | grep -oE 'https?://[^ ]+/debian/?' | head -1 || true)
    echo "arm64-test-run: test root: debootstrap $release $arch into $testroot (mirror ${mirror:-default})" >&2
    rm -rf "$testroot"
    mkdir -p "$sdk_cache/debs/$release-$arch"
    debootstrap --arch="$arch" --variant=minbase --cache-dir="$sdk_cache/debs/$release-$arch" \
        --include="$(IFS=,; echo "${test_packages[*]}")" "$release" "$testroot" ${mirror:+"$mirror"} >&2
    # The compiler's Swift runtime (sid's libswiftlang, the very version the SDK was made from), files only.
    for deb in "$sdk_cache"/debs/swift-runtime-"$arch"-*/libswiftlang_*.deb; do dpkg-deb -x "$deb" "$testroot"; done
    printf '%s' "$testroot_stamp" > "$testroot/.fermata-stamp"
fi
cp /etc/hosts "$testroot/etc/hosts"
[ $prepare_only -eq 0 ] || { echo "arm64-test-run: test root ready: $testroot" >&2; exit 0; }

if [ $build -eq 1 ]; then
    echo "+ swift build --build-tests ${swift_args[*]}" >&2
    start=$(date +%s)
    "${make_sdk[@]}" --run -- swift build --build-tests "${swift_args[@]}"
    echo "arm64-test-run: test bundle built in $(( $(date +%s) - start )) s" >&2
fi
bin=$("${make_sdk[@]}" --run -- swift build "${swift_args[@]}" --show-bin-path 2>/dev/null | tail -1)
bundle=$bin/FermataPackageTests.xctest
[ -x "$bundle" ] || { echo "arm64-test-run.sh: no test bundle at $bundle" >&2; exit 1; }

if [ "$(uname -m)" != "$qemu_name" ]; then
    [ -e "/proc/sys/fs/binfmt_misc/qemu-$qemu_name" ] || {
        echo "arm64-test-run.sh: binfmt_misc has no qemu-$qemu_name: apt-get install -y qemu-user-static binfmt-support" \
            "(and mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc)" >&2; exit 1; }
fi


mounted=()
bind() {  # bind SOURCE: the same path inside the test root
    mkdir -p "$testroot$1"
    mount --bind "$1" "$testroot$1"
    mounted=("$testroot$1" "${mounted[@]}")
}
unbind_all() { local m; for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" || true; done; }
trap unbind_all EXIT
for dir in /proc /sys /dev /dev/pts /dev/shm /tmp "$project"; do bind "$dir"; done

log=$scratch/arm64-test-run.log
echo "+ chroot $testroot $bundle --testing-library swift-testing ${skips[*]} ${filters[*]}" >&2
start=$(date +%s)
status=0
run_bundle() {
    chroot "$testroot" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 TMPDIR=/tmp \
        "$bundle" --testing-library swift-testing "${skips[@]}" "$@"
}
if [ $by_target -eq 0 ]; then
    run_bundle "${filters[@]}" > "$log" 2>&1 || status=$?
else
    # One test target at a time (its suites still in parallel): under emulation the whole bundle at once is ~90
    # suites' daemons and decoders sharing two emulated cores, and hang-detection deadlines meant for a board fire.
    : > "$log"
    for target in $(cd "$project/Tests" && ls -d *Tests | grep -vxE 'ControlsKernelTests|DaemonFaultTests'); do
        echo "arm64-test-run: $target" >&2
        run_bundle --filter "^$target\\." >> "$log" 2>&1 || status=$?
    done
fi
elapsed=$(( $(date +%s) - start ))
unbind_all
mounted=()

echo
echo "Per suite ($release $arch, $([ "$(uname -m)" = "$qemu_name" ] && echo native || echo "under qemu-user"), ${elapsed} s; full log: $log):"
# Swift Testing's own lines: "✔ Suite NAME passed after …", "✘ Suite NAME failed after … with N issues."
grep -E '^. Suite .* (passed|failed) after' "$log" | sed -E 's/^. Suite (.*) (passed|failed) after.*/\2 \1/' \
    | sort -k1,1 -k2 | awk '{ printf "  %-6s %s\n", $1, substr($0, index($0, " ") + 1) }'
echo "Failed tests:"
grep -E '^. Test .* failed after' "$log" | sed 's/^/  /' || echo "  none"
echo "Summary: $(grep -E '^. Test run with' "$log" | tail -1 || echo "no summary line (the run stopped: status $status)")"
exit $status
