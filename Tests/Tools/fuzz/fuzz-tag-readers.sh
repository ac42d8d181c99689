#!/bin/bash
# Coverage-guided fuzzing (libFuzzer) of the hand-written tag and container readers the scan runs on every MP3 and
# M4A: ID3v2 (2.2-2.4, unsynchronisation, extended headers), APEv2, ID3v1, the MPEG frame/Xing/LAME parser and the
# MP4 box walker (FuzzTagReaders.swift beside this script). Not part of CI: run it by hand, for a bounded time.
#
#   Tests/Tools/fuzz/fuzz-tag-readers.sh [SECONDS]        default 60
#
# Builds AudioCore, FermataCore and Decoders from the working tree with `swiftc -sanitize=fuzzer,address` into
# $FUZZ_DIR (default .build-fuzz-tags/, git-ignored), seeds the corpus with real files made by lame, ffmpeg,
# AtomicParsley and mutagen, runs one fuzzing process for SECONDS, then prints executions, corpus growth and findings.
# Exit status: 0 without findings, 1 with, 2 when the build fails. Reproduce a finding: $FUZZ_DIR/fuzz-tag-readers FILE
set -uo pipefail

seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir=${FUZZ_DIR:-$root/.build-fuzz-tags}
swiftc=${SWIFTC:-swiftc}
sanitizers=${FUZZ_SANITIZERS:-fuzzer,address}
obj=$dir/obj
mkdir -p "$obj" "$dir/corpus" "$dir/seeds" "$dir/findings"

build() {
    cd "$root" || return 1
    local clangflags=(-O1 -g -fsanitize="${sanitizers/fuzzer/fuzzer-no-link}" -I Sources/C/CThreadShim/include -I Sources/C/CAVShim/include)
    clang "${clangflags[@]}" -c Sources/C/CThreadShim/thread_shim.c -o "$obj/thread_shim.o" || return 1
    clang "${clangflags[@]}" -c Sources/C/CAVShim/av_shim.c -o "$obj/av_shim.o" || return 1
    cat > "$obj/module.modulemap" << MAP
module CThreadShim { header "$root/Sources/C/CThreadShim/include/thread_shim.h" export * }
module CAVShim { header "$root/Sources/C/CAVShim/include/av_shim.h" export * }
MAP
    local flags=(-O -wmo -parse-as-library -sanitize="$sanitizers" -swift-version 6 -I "$obj"
                 -I Sources/C/CFLAC -I Sources/C/CVorbis -I Sources/C/CMPG123 -I Sources/C/COpusFile)
    local include
    for include in $(pkg-config --cflags-only-I opusfile flac vorbisfile libmpg123); do flags+=(-Xcc "$include"); done
    "$swiftc" "${flags[@]}" -module-name AudioCore -emit-module -emit-module-path "$obj/AudioCore.swiftmodule" \
        -c Sources/AudioCore/*.swift -o "$obj/AudioCore.o" || return 1
    "$swiftc" "${flags[@]}" -module-name FermataCore -emit-module -emit-module-path "$obj/FermataCore.swiftmodule" \
        -c Sources/FermataCore/*.swift -o "$obj/FermataCore.o" || return 1
    "$swiftc" "${flags[@]}" -module-name Decoders -emit-module -emit-module-path "$obj/Decoders.swiftmodule" \
        -c Sources/Decoders/*.swift -o "$obj/Decoders.o" || return 1
    "$swiftc" "${flags[@]}" -module-name FuzzTagReaders "$here/FuzzTagReaders.swift" "$obj/AudioCore.o" "$obj/FermataCore.o" \
        "$obj/Decoders.o" "$obj/thread_shim.o" "$obj/av_shim.o" -lFLAC -lvorbisfile -lvorbis -logg -lmpg123 -lopusfile -lopus -ldl \
        -o "$dir/fuzz-tag-readers"
}
export -f build
export root here obj dir swiftc sanitizers

echo "building $dir/fuzz-tag-readers (-sanitize=$sanitizers; log: $dir/build.log)"
if ! bash -c build > "$dir/build.log" 2>&1; then
    grep -v "Cannot export local symbol" "$dir/build.log" | tail -30 >&2
    echo "fuzz-tag-readers: build failed" >&2
    exit 2
fi

# Seeds: small real files from the tools owners' files come from (each well under libFuzzer's default max_len).
seeds=$dir/seeds
if [ ! -e "$seeds/.made" ]; then
    tmp=$(mktemp -d)
    sox -n -r 44100 -c 2 -b 16 "$tmp/s.wav" synth 0.2 sine 440 2>/dev/null \
        || python3 -c "import wave,struct;w=wave.open('$tmp/s.wav','wb');w.setnchannels(2);w.setsampwidth(2);w.setframerate(44100);w.writeframes(b'\x01\x02'*35280)"
    lame --quiet -V 5 --tt Title --ta Artist --tl Album --tn 3/9 --tv TBPM=120 "$tmp/s.wav" "$seeds/id3v23.mp3"
    lame --quiet -b 64 --id3v1-only --tt V1 "$tmp/s.wav" "$seeds/id3v1.mp3"
    lame --quiet -t -b 64 "$tmp/s.wav" "$seeds/noxing.mp3"
    ffmpeg -nostdin -loglevel error -y -i "$tmp/s.wav" -c:a aac -b:a 32k -metadata title=T -metadata artist=A "$seeds/aac.m4a"
    ffmpeg -nostdin -loglevel error -y -i "$tmp/s.wav" -c:a alac -movflags +faststart "$seeds/alac.m4a"
    /usr/bin/python3 - "$seeds" << 'PY'
import sys, shutil, mutagen.mp4, mutagen.id3, mutagen.apev2
d = sys.argv[1]
shutil.copy(d + '/aac.m4a', d + '/tagged.m4a')
f = mutagen.mp4.MP4(d + '/tagged.m4a')
f['covr'] = [mutagen.mp4.MP4Cover(b'\xff\xd8' + b'x' * 200, mutagen.mp4.MP4Cover.FORMAT_JPEG)]
f['trkn'] = [(1, 2)]; f['----:com.apple.iTunes:iTunSMPB'] = [b' 00000000 00000840 000001CA 0000000000002000']
f.save()
shutil.copy(d + '/noxing.mp3', d + '/id3v24.mp3')
t = mutagen.id3.ID3(); t.add(mutagen.id3.TXXX(encoding=1, desc='replaygain_track_gain', text=['-3 dB']))
t.add(mutagen.id3.APIC(encoding=3, mime='image/png', type=3, desc='c', data=b'\x89PNG' + b'y' * 100))
t.save(d + '/id3v24.mp3', v2_version=4)
a = mutagen.apev2.APEv2(); a['Title'] = 'ape'; a.save(d + '/id3v24.mp3')
PY
    rm -rf "$tmp"
    touch "$seeds/.made"
fi

before=$(find "$dir/corpus" -type f | wc -l)
cd "$dir/findings" || exit 2
nice -n "${FUZZ_NICE:-10}" "$dir/fuzz-tag-readers" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 ${FUZZ_ARGS:-} "$dir/corpus" "$seeds" 2> "$dir/fuzz.log"
after=$(find "$dir/corpus" -type f | wc -l)
grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb" "$dir/fuzz.log"
echo "corpus: $before -> $after inputs"
findings=$(find "$dir/findings" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
if [ "$findings" -gt 0 ]; then
    echo "findings ($findings):"; find "$dir/findings" -type f -name '*-*' -exec ls -l {} \;
    tail -40 "$dir/fuzz.log"
    exit 1
fi
echo "no findings in $seconds s"
