#!/usr/bin/env bash
# Smoke test of a foreign-architecture artifact under qemu-user (issue 14): the packed programs play a generated FLAC
# and WAV into a file capture, compared bit-exact with the source samples, and fermatad (no card, no TCP) answers
# `fermata status`, a scan, a queue and play over its socket, then stops cleanly on SIGTERM.
#
#   Tests/Tools/arm64-smoke.sh --sysroot DIR [--client PATH] dist/fermata-…-trixie-arm64.tar.gz
#
# --sysroot: the libraries the programs link (deploy/make-swift-sdk.sh --print-paths: sysroot=…); qemu finds them
# through QEMU_LD_PREFIX. --client: the fermata that talks to the daemon (default: the artifact's own, under qemu too;
# give a native one to check the two architectures talk). Needs python3 and flac, and qemu-user-static registered
# with binfmt_misc (apt-get install -y qemu-user-static binfmt-support). Exit status 0 when every check passed.
set -euo pipefail
sysroot="" client=""
while [ $# -gt 0 ]; do
    case "$1" in
        --sysroot) sysroot=$2; shift 2 ;;
        --client) client=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        -*) echo "arm64-smoke.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] && [ -n "$sysroot" ] || { echo "arm64-smoke.sh: --sysroot DIR ARTIFACT.tar.gz (see --help)" >&2; exit 2; }
artifact=$(realpath "$1")
export QEMU_LD_PREFIX=$sysroot
work=$(mktemp -d /tmp/fermata-smoke.XXXXXX)
daemon=""
cleanup() { [ -z "$daemon" ] || kill "$daemon" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
tar -xzf "$artifact"
bin=$(echo "$work"/fermata-*/bin)
client=${client:-$bin/fermata}
failed=0
check() { if "$@"; then echo "ok    $desc"; else echo "FAIL  $desc"; failed=1; fi; }

# 3.03 s of stereo 16-bit noise over two tones: no decoder or converter gets it right by accident.
python3 - <<'EOF'
import wave, random, math, struct
random.seed(14)
rate, n = 44100, 44100 * 3 + 1234
frames = bytearray()
for i in range(n):
    frames += struct.pack('<hh', int(12000 * math.sin(2 * math.pi * 440 * i / rate)) + random.randint(-3000, 3000),
                          int(9000 * math.sin(2 * math.pi * 660 * i / rate)) + random.randint(-3000, 3000))
w = wave.open('src.wav', 'wb'); w.setnchannels(2); w.setsampwidth(2); w.setframerate(rate); w.writeframes(bytes(frames)); w.close()
open('src.raw', 'wb').write(bytes(frames))
EOF
flac -s -f -o src.flac src.wav
cat src.raw src.raw > expected.raw

"$bin/fermata" play --quiet --output "file:$work/capture.raw" src.flac src.wav > play.log 2>&1 || true
desc="fermata play FLAC then WAV under qemu: capture bit-exact ($(stat -c %s expected.raw) bytes)"
check cmp -s capture.raw expected.raw

mkdir music state
cp src.flac music/a.flac; cp src.wav music/b.wav
sock=$work/fermatad.sock
"$bin/fermatad" --output null --listen "" --socket "$sock" --music "$work/music" --state "$work/state" --board off \
    > fermatad.log 2>&1 &
daemon=$!
for _ in $(seq 1 120); do [ -S "$sock" ] && break; sleep 0.5; done
desc="fermatad under qemu listens on its socket"; check test -S "$sock"
desc="fermata status answers"; check "$client" status --socket "$sock"
desc="fermata scan adds the two files"; check sh -c "'$client' scan --socket '$sock' 2>&1 | grep -q '2 added'"
desc="queue add and play"
check sh -c "'$client' queue add --socket '$sock' a.flac >/dev/null && '$client' queue add --socket '$sock' b.wav >/dev/null && '$client' play --socket '$sock' >/dev/null"
sleep 1
desc="status says playing"; check sh -c "'$client' status --socket '$sock' | tee status.txt | grep -q '^playing'"
cat status.txt
kill -TERM "$daemon"
for _ in $(seq 1 40); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.25; done
desc="fermatad stops on SIGTERM with its state saved"
check sh -c "! kill -0 $daemon 2>/dev/null && grep -q 'state saved' fermatad.log"
daemon=""
[ $failed -eq 0 ] && echo "arm64 smoke: all passed" || { echo "arm64 smoke: FAILED (logs were in $work)"; }
exit $failed
