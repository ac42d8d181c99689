#!/usr/bin/env bash
# Installs the Debian packages Fermata needs to build and test (Debian 12 / Raspberry Pi OS Bookworm and later).
# Idempotent: when every package is already installed it does nothing (no apt-get update).
# --bench also installs what the side-by-side benchmarks need (sox/numpy for the generated library; MPD itself is a test
# dependency: the differential test runs it).
set -euo pipefail
packages=(
    pkg-config libasound2-dev libflac-dev libvorbis-dev libgpiod-dev libsqlite3-dev libsoxr-dev libsoundtouch-dev  # build
    libespeak-ng-dev libmpg123-dev libopusfile-dev libavformat-dev libavcodec-dev zlib1g-dev libcrypt-dev
    libcurl4-openssl-dev                                                                                         # build
    flac vorbis-tools alsa-utils python3 mpc python3-mpd sqlite3 python3-pip snapserver snapclient mpd           # tests and demo
    lame mpg123 opus-tools ffmpeg atomicparsley python3-mutagen                                                   # lossy fixtures, reference decoders
    chromium chromium-driver python3-selenium iproute2 python3-venv                                              # the web remote in a browser
    icecast2 curl                                                                                                # network streams
)
# WebE2ETests' API check also wants schemathesis, which Debian does not package (without it that one test is skipped):
#   python3 -m venv ~/.cache/fermata-st && ~/.cache/fermata-st/bin/pip install schemathesis
#   export FERMATA_SCHEMATHESIS_PYTHON=~/.cache/fermata-st/bin/python3
[ "${1:-}" = "--bench" ] && packages+=(sox python3-numpy)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
echo "build-deps: installing ${missing[*]}" >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
