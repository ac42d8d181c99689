#!/usr/bin/env bash
# Makes the state-database fixture that Tests/DaemonCrashTests/ReleaseStateTests.swift resumes from: a released
# fermatad plays a three-song queue, seeks into the second song and pauses; the database it leaves is dumped as SQL.
#
#   Tests/Tools/make-release-state-fixture.sh FERMATAD OUT.sql
#
# FERMATAD is the released daemon (e.g. a build of the release tag); OUT.sql is committed beside the test. The music is
# three 20 s mono WAVs at 22,050 Hz (silence: the test writes its own files under the same names). Needs python3 and
# sqlite3.
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,9p' "$0"; exit 2; }
fermatad=$1 out=$2
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/music/Set" "$work/state"
python3 - "$work/music/Set" <<'PY'
import sys, wave
for name in ("one", "two", "three"):
    with wave.open(f"{sys.argv[1]}/{name}.wav", "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(22050)
        w.writeframes(b"\0\0" * 22050 * 20)
PY
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$fermatad" --music "$work/music" --state "$work/state" --output null --listen "127.0.0.1:$port" --socket "" \
    --resume paused > "$work/fermatad.log" 2>&1 &
pid=$!
python3 - "$port" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
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
        if reply == "OK": return dict(l.split(": ", 1) for l in answer)
        if reply.startswith("ACK"): raise SystemExit(f"{line}: {reply}")
        answer.append(reply)
command("update")
while "updating_db" in command("status"): command("idle update")  # the scan's end is an update event
for name in ("one", "two", "three"): command(f'add "Set/{name}.wav"')
command("play 1")
command("seek 1 7.5")
command("pause")
status = command("status")
assert status["state"] == "pause" and status["song"] == "1", status
print(f"saved: song {status['song']} elapsed {status['elapsed']}", file=sys.stderr)
PY
kill -TERM "$pid"
wait "$pid" || true
{
    echo "-- State database written by $fermatad, migrations:" \
        "$(sqlite3 "$work/state/library.sqlite" "SELECT group_concat(identifier, ', ') FROM grdb_migrations")"
    echo "-- Made by Tests/Tools/make-release-state-fixture.sh: three 20 s songs queued, paused at 7.5 s into the second."
    sqlite3 "$work/state/library.sqlite" .dump
} > "$out"
echo "wrote $out ($(wc -c < "$out") bytes)" >&2
