#!/usr/bin/env bash
# Makes the state fixture of a release, which ReleaseUpgradeTests opens with every later build: the released daemon
# scans a small tagged library, and an owner's state is built through the protocol — a queue with a queued section and
# a priority, a stored playlist naming the section, a sticker, a card with a volume cap, sections, practice time, and
# the player's modes (volume, repeat, tempo, transposition, beat, click, count-in, an A-B loop) — then paused at a known
# place and stopped cleanly. What the daemon answered to a fixed list of read commands is kept beside the database:
# a later build must answer the same after its migrations.
#
#   Tests/Tools/make-release-fixture.sh FERMATAD VERSION
#
# FERMATAD is the release's daemon (`swift build` of the tagged commit: .build/debug/fermatad); it writes
# Tests/DaemonCrashTests/Fixtures/releases/VERSION/: music/ (three short FLACs of silence with tags), state.sql (the
# database dumped by sqlite3), playlists/ and answers.txt. Needs python3, flac, sqlite3. docs/development.md,
# "Releasing", says when to run it.
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,14p' "$0"; exit 2; }
fermatad=$(realpath "$1") version=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/Tests/DaemonCrashTests/Fixtures/releases/$version
[ ! -e "$out" ] || { echo "$out exists: a release's fixture is made once" >&2; exit 1; }
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/state" "$out/music/Quartet/Practice Pieces"
python3 - "$work" <<'PY'
import sys, wave
for name in ("one", "two", "three"):
    with wave.open(f"{sys.argv[1]}/{name}.wav", "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(22050)
        w.writeframes(b"\0\0" * 22050 * 20)
PY
for n in 1 2 3; do
    name=$(echo one two three | cut -d' ' -f$n)
    extra=()
    [ "$n" = 1 ] && extra=(-T BPM=96)
    flac --silent --best -T "TITLE=Piece ${name^}" -T "ARTIST=Quartet" -T "ALBUM=Practice Pieces" -T "TRACKNUMBER=$n" \
        "${extra[@]}" -o "$out/music/Quartet/Practice Pieces/0$n ${name^}.flac" "$work/$name.wav"
done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$fermatad" --music "$out/music" --state "$work/state" --output null --listen "127.0.0.1:$port" --socket "" \
    --resume paused > "$work/fermatad.log" 2>&1 &
pid=$!
python3 - "$port" "$out/answers.txt" <<'PY'
import socket, sys, time
port, answers = int(sys.argv[1]), sys.argv[2]
for _ in range(500):
    try:
        s = socket.create_connection(("127.0.0.1", port)); break
    except OSError:
        time.sleep(0.02)
f = s.makefile("rw", newline="\n")
f.readline()
def command(line):
    f.write(line + "\n"); f.flush()
    answer = []
    while True:
        reply = f.readline().rstrip("\n")
        if reply == "OK": return answer
        if reply.startswith("ACK"): raise SystemExit(f"{line}: {reply}")
        answer.append(reply)
def status():
    return dict(l.split(": ", 1) for l in command("status"))
album = "Quartet/Practice Pieces"
command("update")
while "updating_db" in status(): command("idle update")
for n, name in ((1, "One"), (2, "Two"), (3, "Three")): command(f'add "{album}/0{n} {name}.flac"')
command("play 0")
command("section_add verse 1 3 2 80")
command("section_add chorus 5 9")
command(f'section_queue "{album}/01 One.flac" verse')
command("prioid 7 2")
command("save set")
command(f'sticker set song "{album}/02 Two.flac" rating 5')
command("cardassign 0000001234 playlist:set 40")
command("setvol 37"); command("repeat 1"); command("tempo 90"); command("transpose 2"); command("bpm 96 0.25")
command("metronome on 3 0.5"); command("count_in 2 96")
command("loop_set 4 8 3")
time.sleep(3)  # a few seconds of practice in the loop
command("seek 0 7.5")
command("pause")
day = time.strftime("%Y-%m-%d")
reads = ["status", "playlistinfo", "sections", "loop_status", "listplaylists", "listplaylistinfo set",
         f'sticker list song "{album}/02 Two.flac"', "cards", f"practice day {day}", "outputs", "count artist Quartet",
         "list album", "stats"]
with open(answers, "w") as out:
    for line in reads:
        out.write(f"> {line}\n")
        for reply in command(line): out.write(reply + "\n")
print(f"paused: {status()}", file=sys.stderr)
PY
kill -TERM "$pid"
wait "$pid" || true
cp -rp "$work/state/playlists" "$out/playlists"
{
    echo "-- The state database of Fermata $version ($("$fermatad" --version)), migrations:" \
        "$(sqlite3 "$work/state/library.sqlite" "SELECT group_concat(identifier, ', ') FROM grdb_migrations")"
    echo "-- Made by Tests/Tools/make-release-fixture.sh; answers.txt has what that daemon answered before it stopped."
    sqlite3 "$work/state/library.sqlite" .dump
} > "$out/state.sql"
echo "wrote $out: $(du -sh "$out" | cut -f1)" >&2
