#!/bin/bash
# HE-AAC on real files (issue 23): no encoder in Debian main writes HE-AAC, so the tests in
# Tests/DecodersTests/HEAACTests.swift run on files the owner (or a tester) has, and are skipped in CI.
# For each FILE (an .m4a/.mp4 with an HE-AAC track, or raw ADTS), they remux it as raw ADTS, as an M4A with SBR
# signalled implicitly, and as that M4A with a core-rate time scale, and check that every variant plays at the real
# output rate (twice the core's), sample for sample as FFmpeg decodes the stream, trimmed as the file's edit list
# says, and that a fresh seek lands on the straight decode.
#
#   Tests/Tools/heaac-check.sh FILE [FILE...]
set -euo pipefail
[ $# -gt 0 ] || { sed -n '2,9p' "$0"; exit 64; }
files=()
for f in "$@"; do
    [ -f "$f" ] || { echo "heaac-check: no file $f" >&2; exit 2; }
    files+=("$(readlink -f "$f")")
done
cd "$(dirname "$0")/../.."
FERMATA_HEAAC_SAMPLES=$(IFS=:; echo "${files[*]}") swift test --filter HEAACTests
