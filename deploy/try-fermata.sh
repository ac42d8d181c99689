#!/usr/bin/env bash
# Installs what Fermata needs, builds it, and plays music: the files or folders given, else ~/Music, else a short
# generated demo. With no sound card it still plays, to the real-time paced null output, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/build-deps.sh
swift build -c release --product fermata
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=("$HOME/Music")
files=()
for input in "${inputs[@]}"; do
    if [ -d "$input" ]; then
        while IFS= read -r -d '' f; do files+=("$f"); done \
            < <(find "$input" -type f \( -iname '*.flac' -o -iname '*.ogg' -o -iname '*.oga' -o -iname '*.wav' \) -print0 | sort -z)
    elif [ -f "$input" ]; then
        files+=("$input")
    fi
done
if [ ${#files[@]} -eq 0 ]; then
    demo=$(mktemp -d)/fermata-demo
    mkdir -p "$demo"
    python3 - "$demo" <<'PY'
import math, struct, sys, wave
for i, (name, freq) in enumerate([("1-c", 261.63), ("2-e", 329.63), ("3-g", 392.0)]):
    with wave.open(f"{sys.argv[1]}/{name}.wav", "wb") as w:
        w.setnchannels(2); w.setsampwidth(2); w.setframerate(44100)
        frames = bytearray()
        for n in range(44100):
            v = int(8000 * math.sin(2 * math.pi * freq * n / 44100))
            frames += struct.pack("<hh", v, v)
        w.writeframes(bytes(frames))
PY
    files=("$demo"/*.wav)
    echo "try-fermata: no music found; playing a generated demo (three tones, gapless) from $demo" >&2
fi
exec .build/release/fermata play "${files[@]}"
