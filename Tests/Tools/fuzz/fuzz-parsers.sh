#!/bin/bash
# Coverage-guided fuzzing (libFuzzer) of the MPD protocol's tokenizer, song filter parser and range parser
# (FuzzParsers.swift beside this script). Not part of CI: run it by hand, for a bounded time.
#
#   Tests/Tools/fuzz/fuzz-parsers.sh [SECONDS]        default 60
#
# Builds MPDProtocol and FermataCore from the working tree with `swiftc -sanitize=fuzzer,address` (the build runs
# under the project's build lock, `fbuild`, when there is one) into $FUZZ_DIR (default .build-fuzz/, git-ignored),
# runs one fuzzing process for SECONDS, then prints the executions, executions per second, corpus growth and
# findings (crash-*, timeout-*, oom-* files, with their bytes). The corpus in $FUZZ_DIR/corpus grows across runs.
# Exit status: 0 without findings, 1 with, 2 when the build fails.
#
# Environment: FUZZ_DIR, SWIFTC (default swiftc), FUZZ_SANITIZERS (default fuzzer,address; "fuzzer" alone runs
# about twice as fast), FUZZ_NICE (default 10: the fuzzer yields to builds), FUZZ_ARGS (more libFuzzer flags).
# Reproduce one finding: $FUZZ_DIR/fuzz-parsers FILE
set -uo pipefail

seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir=${FUZZ_DIR:-$root/.build-fuzz}
swiftc=${SWIFTC:-swiftc}
sanitizers=${FUZZ_SANITIZERS:-fuzzer,address}
obj=$dir/obj
mkdir -p "$obj" "$dir/corpus" "$dir/seeds" "$dir/findings"

locked() { if command -v fbuild > /dev/null; then fbuild "$@"; else "$@"; fi; }

build() {
    local flags=(-O -wmo -parse-as-library -sanitize="$sanitizers" -swift-version 6 -I "$obj")
    cd "$root" || return 1
    "$swiftc" "${flags[@]}" -module-name FermataCore -emit-module -emit-module-path "$obj/FermataCore.swiftmodule" \
        -c Sources/FermataCore/*.swift -o "$obj/FermataCore.o" || return 1
    "$swiftc" "${flags[@]}" -module-name MPDProtocol -emit-module -emit-module-path "$obj/MPDProtocol.swiftmodule" \
        -c $(find Sources/MPDProtocol -name '*.swift' | sort) -o "$obj/MPDProtocol.o" || return 1
    "$swiftc" "${flags[@]}" -module-name FuzzParsers "$here/FuzzParsers.swift" "$obj/FermataCore.o" "$obj/MPDProtocol.o" \
        -o "$dir/fuzz-parsers"
}
export -f build
export root here obj dir swiftc sanitizers

echo "building $dir/fuzz-parsers (-sanitize=$sanitizers; log: $dir/build.log)"
if ! locked bash -c build > "$dir/build.log" 2>&1; then
    grep -v "Cannot export local symbol" "$dir/build.log" | tail -30 >&2
    echo "fuzz-parsers: build failed" >&2
    exit 2
fi

# Seeds: lines and filters as clients send them, and the lines that used to crash fermatad.
seed=0
while IFS= read -r line; do
    printf '%s' "$line" > "$dir/seeds/seed-$seed"
    seed=$((seed + 1))
done << 'EOF'
find "(artist == 'Beta')"
search any bet
find "((artist == \"A\") AND (!(album contains 'b')))"
count "(title != 'x')" group artist
list album "(Genre =~ '^J')" group date
find "(modified-since '2024-01-31T12:00:00Z')" "(base 'Beta')"
playlistsearch "(any starts_with 'al')" window 0:2
find "(file !~ '\\.flac$')" sort -title
seekcur 1e300
seek 0 1e308
tempo +9223372036854775807
delete 5:2
move -1: 0
add "Alpha Band/First Album/01 \"One\".flac"
command_list_ok_begin
(artist == "x")
(!(!(title contains "y")))
0:2147483647
EOF

cat > "$dir/parsers.dict" << 'EOF'
"("
")"
" AND "
"!"
"=="
"!="
"=~"
"!~"
"contains "
"!contains "
"starts_with "
"base"
"modified-since"
"artist"
"any"
"file"
"filename"
"AudioFormat"
"\""
"'"
"\\"
":"
"-1"
"2147483647"
"9223372036854775807"
"T00:00:00Z"
EOF

log=$dir/last-run.log
start_findings=$(ls "$dir/findings" | wc -l)
echo "fuzzing for $seconds s (log: $log)"
nice -n "${FUZZ_NICE:-10}" "$dir/fuzz-parsers" -max_total_time="$seconds" -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
    -dict="$dir/parsers.dict" -artifact_prefix="$dir/findings/" -print_final_stats=1 ${FUZZ_ARGS:-} \
    "$dir/corpus" "$dir/seeds" > "$log" 2>&1
status=$?

figure() { grep -m1 "^stat::$1:" "$log" | awk '{print $2}'; }
echo "executions:        $(figure number_of_executed_units)"
echo "executions/s:      $(figure average_exec_per_sec)"
echo "new corpus units:  $(figure new_units_added) (corpus now $(ls "$dir/corpus" | wc -l) files)"
echo "peak RSS:          $(figure peak_rss_mb) MB"
grep -m1 -E "^#[0-9]+.*(DONE|cov:)" "$log" > /dev/null && echo "coverage:          $(grep -E '^#[0-9]+' "$log" | tail -1)"

findings=$(ls -t "$dir/findings")
count=$(echo -n "$findings" | grep -c . || true)
if [ "$count" -gt "$start_findings" ] || [ "$status" -ne 0 ]; then
    echo "FINDINGS ($count files in $dir/findings; libFuzzer status $status):"
    for file in $findings; do
        echo "  $file: $(od -An -c "$dir/findings/$file" | tr -s ' ' | head -c 400)"
    done
    grep -m3 -E "Fatal error|ERROR: (libFuzzer|AddressSanitizer)|SUMMARY" "$log" | sed 's/^/  /'
    echo "reproduce: $dir/fuzz-parsers $dir/findings/FILE"
    exit 1
fi
echo "findings: none"
