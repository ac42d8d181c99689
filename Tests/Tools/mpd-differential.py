#!/usr/bin/env python3
"""Differential test: the same random MPD command sequence against MPD 0.23 and fermatad.

Starts MPD (/usr/bin/mpd, null output, software mixer) and fermatad (null output) on one generated music folder,
sends both a seeded random sequence of queue edits, transport, seeks, modes (random, repeat, consume, single and
oneshot), volume, priorities and stored-playlist commands, and after every command compares
  - the reply: OK vs ACK and the ACK's `[code@index] {command}` (the message text is reported apart, not counted),
  - `status`, timing fields aside (song ids mapped by file; elapsed only after a seek, within 1 s),
  - `playlistinfo` (file order and Prio) and the stored playlists.
MPD is the reference. After a step that differs, fermatad is brought back to MPD's state (queue, modes, transport,
stored playlists) so one difference does not cascade; a difference the resync cannot remove (say a mode fermatad
lacks) is not reported again while it stays the same.

With `random 1` the song a daemon picks is its own: after `next`, `previous`, a track's end or `play` with no song,
the current song, next song and state are not compared (the queue and modes still are). `random-tour` steps check
what is deterministic instead: on a queue with no current song (cleared and added again), `play N` with random on,
then `next` visits every song once, in non-increasing priority order after the first, and then stops.
`wait-end` steps seek the playing song to its last second and wait for its end (consume, single, repeat at a
track's end). Tracks are 29-53 s so that none ends by itself during a run.

Output: each differing step with the command, MPD's and fermatad's values, the state before it and the commands just
before, grouped by kind (`reply:CMD`, `status.FIELD:CMD`, `queue:CMD`, `storedplaylists:CMD`, `random-tour:PROPERTY`,
`elapsed:CMD`); a kind ending "(fermatad already differed)" came after a difference the resync could not remove, so
it may follow from that one. `--sequence` replays a hand-written sequence on both (from an empty queue) to make a
minimal reproduction.

Usage:
  Tests/Tools/mpd-differential.py [--seed N] [--commands N] [--fermatad PATH] [-v]
  Tests/Tools/mpd-differential.py --sequence 'add alpha; play 1; next; status'   # one sequence, side by side
Exit status 0 when every difference found is in KNOWN_DIFFERENCES, 1 otherwise, 2 when the daemons cannot start.
"""

import argparse
import fnmatch
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

# Differences accepted on purpose: a glob over the difference's kind (`reply:prio`, `status.single:single`,
# `queue:next`, ...) → the reason. Kinds are printed in the output.
KNOWN_DIFFERENCES = {
    "*:seek*-past-end*": "a seek past the song's end is no error in Fermata: the next song plays from its start "
                         "(SeekPastTheEndTests); MPD answers `Decoder failed to seek` and stays",
    "*(after-past-end)*": "the same seek past the end, seen at the next command (a paused player moves on when resumed)",
    "*(mpd moved on by itself)*": "MPD changed its current song on a command that keeps it (an `add` with random on, "
                                  "mid-song): its player took the re-queued next song for one that had started; "
                                  "fermatad kept the song, as the protocol says (a CI run, seed 1, step 295)",
}

# Commands after which the current song stays: the protocol changes it only by a transport command, a seek past the
# end, a delete of it, or the song ending (tracks here are long; `wait-end` reaches ends on purpose).
KEEPS_THE_SONG = {"add", "addid", "playlistadd", "save", "load", "single", "repeat", "consume", "setvol", "prio",
                  "prioid", "rm", "playlistclear", "swap", "swapid", "move", "moveid"}

# ---------------------------------------------------------------------------------------------------------------------
# The music: (relative path, seconds, title). Different lengths, long enough that a track does not end by itself
# during a run; `wait-end` steps seek to the last second to reach ends on purpose.

TRACKS = [
    ("alpha/01 One.flac", 31, "One"),
    ("alpha/02 Two.flac", 37, "Two"),
    ("alpha/03 Three.flac", 43, "Three"),
    ("alpha/04 Four.flac", 29, "Four"),
    ("beta/05 Five.flac", 47, "Five"),
    ("beta/06 Six.flac", 33, "Six"),
    ("beta/07 Seven.flac", 41, "Seven"),
    ("beta/08 Eight.flac", 53, "Eight"),
]
DURATION = {path: seconds for path, seconds, _ in TRACKS}
DIRECTORIES = ["alpha", "beta"]


def make_music(folder):
    for index, (path, seconds, title) in enumerate(TRACKS):
        target = os.path.join(folder, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        album = os.path.dirname(path).capitalize()
        subprocess.run(
            ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
             f"sine=frequency={220 + 55 * index}:sample_rate=44100:duration={seconds}", "-ac", "2",
             "-metadata", f"title={title}", "-metadata", "artist=Differential", "-metadata", f"album={album}",
             "-metadata", f"track={index % 4 + 1}", "-compression_level", "0", target],
            check=True)


# ---------------------------------------------------------------------------------------------------------------------
# The protocol

ACK_RE = re.compile(r"^ACK \[(\d+)@(\d+)\] \{([^}]*)\} ?(.*)$")


def quote(argument):
    text = str(argument)
    if text and re.fullmatch(r"[A-Za-z0-9_:+.\-]+", text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Reply:
    def __init__(self, lines, ack):
        self.lines = lines  # body lines, without the final OK
        self.ack = ack      # the ACK line or None

    @property
    def ok(self):
        return self.ack is None

    def code(self):
        """`OK` or `ACK [code@index] {command}`: what is compared."""
        if self.ack is None:
            return "OK"
        match = ACK_RE.match(self.ack)
        return f"ACK [{match.group(1)}@{match.group(2)}] {{{match.group(3)}}}" if match else self.ack

    def text(self):
        if self.ack is None:
            return ""
        match = ACK_RE.match(self.ack)
        return match.group(4) if match else self.ack

    def pairs(self):
        out = []
        for line in self.lines:
            key, _, value = line.partition(": ")
            out.append((key, value))
        return out

    def __str__(self):
        body = "; ".join(self.lines)
        return (body + " | " if body else "") + (self.ack or "OK")


class Client:
    # Reads may stall this long (a hang detector, as the Swift tests' Patience.stallSeconds): a loaded machine can keep
    # either daemon from answering for many seconds, and 10 s was a bound on that load.
    def __init__(self, name, port, timeout=120.0):
        self.name = name
        self.port = port
        self.timeout = timeout
        self.connect()

    def connect(self):
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout)
        self.file = self.sock.makefile("rb")
        self.banner = self.file.readline().decode().strip()
        if not self.banner.startswith("OK MPD"):
            raise RuntimeError(f"{self.name}: bad banner {self.banner!r}")

    def command(self, line):
        try:
            return self._command(line)
        except (OSError, ConnectionError):
            self.connect()
            return self._command(line)

    def _command(self, line):
        self.sock.sendall(line.encode() + b"\n")
        lines = []
        while True:
            raw = self.file.readline()
            if not raw:
                raise ConnectionError(f"{self.name}: connection closed after {line!r}")
            text = raw.decode("utf-8", "replace").rstrip("\n")
            if text == "OK":
                return Reply(lines, None)
            if text.startswith("ACK "):
                return Reply(lines, text)
            lines.append(text)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, name, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with status {process.returncode}")
        try:
            return Client(name, port)
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{name} did not answer on port {port}")


# ---------------------------------------------------------------------------------------------------------------------
# The daemons

class Daemon:
    """One daemon under test: its process, a client, and its last observed state."""

    def __init__(self, name, process, port, log):
        self.name = name
        self.process = process
        self.port = port
        self.log = log
        self.client = wait_for_port(port, process, name)
        self.snapshot = None

    def send(self, line):
        return self.client.command(line)

    def stop(self):
        self.client.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_mpd(work, music, port):
    folder = os.path.join(work, "mpd")
    os.makedirs(os.path.join(folder, "playlists"))
    config = os.path.join(folder, "mpd.conf")
    with open(config, "w") as out:
        out.write(f'''music_directory "{music}"
db_file "{folder}/db"
playlist_directory "{folder}/playlists"
log_file "{folder}/log"
pid_file "{folder}/pid"
bind_to_address "127.0.0.1"
port "{port}"
auto_update "no"
zeroconf_enabled "no"
audio_output {{
    type "null"
    name "null"
    mixer_type "software"
}}
''')
    process = subprocess.Popen(["/usr/bin/mpd", "--no-daemon", config], stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(folder, "stderr"), "w"))
    return Daemon("mpd", process, port, os.path.join(folder, "log"))


def start_fermatad(binary, work, music, port):
    state = os.path.join(work, "fermata")
    os.makedirs(state)
    log = os.path.join(state, "daemon.log")
    with open(os.path.join(state, "empty.toml"), "w"):
        pass  # so that no /etc/fermata/fermata.toml is read
    process = subprocess.Popen(
        [binary, "--config", os.path.join(state, "empty.toml"), "--music", music, "--state", state,
         "--output", "null", "--listen", f"127.0.0.1:{port}", "--socket", "", "--board", "off", "--resume", "off"],
        stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    return Daemon("fermatad", process, port, log)


def scan(daemon, expected):
    """`update`, then waits until the daemon reports no `updating_db` and knows every track."""
    reply = daemon.send("update")
    if not reply.ok:
        raise RuntimeError(f"{daemon.name}: update: {reply}")
    deadline = time.time() + 120  # a hang detector: the scan is CPU work, as long as the machine's load makes it
    while time.time() < deadline:
        time.sleep(0.2)
        status = dict(daemon.send("status").pairs())
        if "updating_db" in status:
            continue
        songs = dict(daemon.send("stats").pairs()).get("songs")
        if songs == str(expected):
            return
    raise RuntimeError(f"{daemon.name}: the library did not reach {expected} songs")


# ---------------------------------------------------------------------------------------------------------------------
# Observed state

class Snapshot:
    def __init__(self, daemon):
        self.status = dict(daemon.send("status").pairs())
        self.queue = []  # [{"file", "Pos", "Id", "Prio"}]
        entry = None
        for key, value in daemon.send("playlistinfo").pairs():
            if key == "file":
                entry = {"file": value}
                self.queue.append(entry)
            elif entry is not None and key in ("Pos", "Id", "Prio"):
                entry[key] = value
        self.playlists = {}
        listing = daemon.send("listplaylists")
        if listing.ok:
            for key, value in listing.pairs():
                if key == "playlist":
                    contents = daemon.send(f"listplaylist {quote(value)}")
                    self.playlists[value] = [v for k, v in contents.pairs() if k == "file"] if contents.ok \
                        else [contents.code()]

    def files(self):
        return [entry["file"] for entry in self.queue]

    def prios(self):
        return [int(entry.get("Prio", "0")) for entry in self.queue]

    def id_of(self, position):
        return self.queue[position]["Id"]

    def file_of_id(self, song_id):
        for entry in self.queue:
            if entry["Id"] == song_id:
                return entry["file"]
        return f"<unknown id {song_id}>" if song_id is not None else None

    def state(self):
        return self.status.get("state")

    def song(self):
        value = self.status.get("song")
        return int(value) if value is not None else None

    def current_file(self):
        song = self.song()
        return self.queue[song]["file"] if song is not None and song < len(self.queue) else None

    def elapsed(self):
        value = self.status.get("elapsed")
        return float(value) if value is not None else None

    def summary(self, detail=False):
        s = self.status
        modes = " ".join(f"{key}={s.get(key)}" for key in ("repeat", "random", "single", "consume", "volume"))
        queue = ",".join(f"{TRACK_NAMES.get(e['file'], e['file'])}" + (f"^{e['Prio']}" if e.get("Prio", "0") != "0"
                                                                      else "") for e in self.queue)
        extra = f" nextsong={s['nextsong']}" if "nextsong" in s else ""
        if detail:
            extra += "".join(f" {key}={s[key]}" for key in ("elapsed", "error") if key in s)
        return f"state={s.get('state')} song={s.get('song')}{extra} {modes} queue=[{queue}]"


TRACK_NAMES = {path: path.split("/")[-1].split(" ")[0] for path, _, _ in TRACKS}

# status fields compared directly
MODE_FIELDS = ["repeat", "random", "single", "consume", "volume", "playlistlength", "xfade", "error"]


def status_view(snapshot, skip):
    """The comparable part of a status: {field: value}; ids mapped to files, fields in `skip` left out."""
    s = snapshot.status
    view = {field: s.get(field) for field in MODE_FIELDS}
    view["state"] = s.get("state")
    for field in ("song", "nextsong"):  # position and, through the id, the file
        position, song_id = s.get(field), s.get(field + "id")
        view[field] = None if position is None and song_id is None else \
            f"{position} ({TRACK_NAMES.get(snapshot.file_of_id(song_id), snapshot.file_of_id(song_id))})"
    for field in skip:
        view.pop(field, None)
    return view


# ---------------------------------------------------------------------------------------------------------------------
# The generator. A step is a tuple: (kind, args...). Positions and ids are chosen from MPD's last snapshot;
# ids are translated per daemon ("@id:POS" → that daemon's id of the entry at POS).

PLAYLIST_NAMES = ["mix", "best", "later"]
BAD_ID = 99999


def generate(rng, ref):
    """One step for the reference snapshot `ref` (MPD's)."""
    n = len(ref.queue)
    files = [path for path, _, _ in TRACKS]

    def pos(valid=0.9):
        if n and rng.random() < valid:
            return rng.randrange(n)
        return n + rng.randrange(3)  # out of range

    def ident(valid=0.9):
        if n and rng.random() < valid:
            return f"@id:{rng.randrange(n)}"
        return str(BAD_ID)

    def uri():
        r = rng.random()
        if r < 0.8:
            return rng.choice(files)
        if r < 0.93:
            return rng.choice(DIRECTORIES)
        return "missing/none.flac"

    choices = []

    def add(weight, make):
        choices.append((weight, make))

    add(6 if n < 3 else 2 if n < 10 else 0.5, lambda: ("add", uri()))
    add(2, lambda: ("add", rng.choice(files), str(rng.randrange(n + 2))))
    add(3 if n < 12 else 0.5, lambda: ("addid", rng.choice(files)))
    add(2, lambda: ("addid", rng.choice(files), str(rng.randrange(n + 2))))
    add(2, lambda: ("delete", str(pos())))
    add(1, lambda: ("delete", _range(rng, n)))
    add(2, lambda: ("deleteid", ident()))
    add(2, lambda: ("move", str(pos()), str(pos())))
    add(1, lambda: ("move", _range(rng, n), str(pos())))
    playing = ref.song() is not None
    add(1.5 if playing else 0.2, lambda: ("move", str(pos()), _relative(rng)))
    add(1 if playing else 0.2, lambda: ("moveid", ident(), _relative(rng)))
    add(1.5 if playing else 0.2, lambda: ("add", rng.choice(files), _relative(rng)))
    add(0.7 if playing else 0.1, lambda: ("addid", rng.choice(files), _relative(rng)))
    add(2, lambda: ("moveid", ident(), str(pos())))
    add(2, lambda: ("swap", str(pos()), str(pos())))
    add(2, lambda: ("swapid", ident(), ident()))
    add(0.4, lambda: ("clear",))
    add(0.6, lambda: ("shuffle",))
    add(5, lambda: ("play", str(pos())))
    add(2, lambda: ("play",))
    add(3, lambda: ("playid", ident()))
    add(0.5, lambda: ("playid",))
    add(4, lambda: ("pause", rng.choice(["0", "1"])))
    add(0.3, lambda: ("pause",))
    add(2, lambda: ("stop",))
    add(4, lambda: ("next",))
    add(3, lambda: ("previous",))
    add(3, lambda: ("seek", str(pos()), _seconds(rng)))
    add(2, lambda: ("seekid", ident(), _seconds(rng)))
    add(3, lambda: ("seekcur", _seconds(rng)))
    add(0.7, lambda: ("seekcur", rng.choice(["+3", "-2", "+1", "-40"])))
    add(3, lambda: ("wait-end",))
    add(2, lambda: ("random", rng.choice(["0", "0", "1"])))
    add(2, lambda: ("repeat", rng.choice(["0", "1"])))
    add(2, lambda: ("consume", rng.choice(["0", "1"])))
    add(2.5, lambda: ("single", rng.choice(["0", "1", "oneshot"])))
    add(0.3, lambda: (rng.choice(["random", "repeat", "consume", "single"]), rng.choice(["2", "yes", "-1"])))
    add(1.5, lambda: ("setvol", str(rng.choice([0, 17, 50, 73, 100, 101, -1]))))
    add(2, lambda: ("prio", str(rng.choice([0, 1, 5, 200, 255, 256])), _range(rng, n)))
    add(1.5, lambda: ("prioid", str(rng.choice([0, 3, 9, 255])), ident()))
    add(1.5, lambda: ("save", rng.choice(PLAYLIST_NAMES)))
    add(1.5, lambda: ("load", rng.choice(PLAYLIST_NAMES)))
    add(0.7, lambda: ("load", rng.choice(PLAYLIST_NAMES), rng.choice(["0:2", "1:", "0:1"])))
    add(0.5, lambda: ("load", rng.choice(PLAYLIST_NAMES), rng.choice(["0:1", "0:", "1:3"]), str(rng.randrange(n + 2))))
    add(0.5, lambda: ("rename", rng.choice(PLAYLIST_NAMES), rng.choice(PLAYLIST_NAMES)))
    add(0.4, lambda: ("shuffle", _range(rng, n)))
    add(0.8, lambda: ("playlistadd", rng.choice(PLAYLIST_NAMES), rng.choice(files), str(rng.randrange(5))))
    add(1, lambda: ("rm", rng.choice(PLAYLIST_NAMES)))
    add(1.5, lambda: ("playlistadd", rng.choice(PLAYLIST_NAMES), uri()))
    add(0.8, lambda: ("playlistclear", rng.choice(PLAYLIST_NAMES)))
    add(0.6, lambda: ("playlistdelete", rng.choice(PLAYLIST_NAMES), str(rng.randrange(4))))
    add(0.5, lambda: ("playlistmove", rng.choice(PLAYLIST_NAMES), str(rng.randrange(3)), str(rng.randrange(3))))
    add(3 if ref.status.get("random") == "1" and n >= 4 else 0, lambda: ("random-tour", str(rng.randrange(n))))

    total = sum(weight for weight, _ in choices)
    pick = rng.random() * total
    for weight, make in choices:
        pick -= weight
        if pick <= 0:
            return make()
    return choices[-1][1]()


def _range(rng, n):
    if n and rng.random() < 0.85:
        start = rng.randrange(n)
        end = rng.randrange(start, n + 1)
        if end == start:
            end = start + 1
        return f"{start}:{end}"
    return f"{n + 1}:{n + 3}"


def _relative(rng):
    return rng.choice(["+0", "+1", "+2", "-0", "-1", "-2"])


def _seconds(rng):
    # whole seconds inside the shortest track, sometimes past every track's end
    if rng.random() < 0.08:
        return str(rng.choice([200, 9999]))
    return str(rng.randrange(0, min(DURATION.values()) - 3))


# ---------------------------------------------------------------------------------------------------------------------
# Running a step on both

# commands whose song choice is the daemon's own when random is on
RANDOM_PICKS = {"next", "previous", "wait-end", "delete", "deleteid", "play", "playid"}


def translate(step, snapshot):
    """The protocol line for one daemon: `@id:POS` → that daemon's id of the entry at POS."""
    parts = []
    for arg in step[1:]:
        if arg.startswith("@id:"):
            position = int(arg[4:])
            parts.append(snapshot.id_of(position) if position < len(snapshot.queue) else str(BAD_ID))
        else:
            parts.append(quote(arg))
    return " ".join([step[0]] + parts)


def step_text(step):
    """The step as MPD saw it, ids shown as `id(POS)`."""
    parts = [step[0]]
    for arg in step[1:]:
        parts.append(f"id(of pos {arg[4:]})" if arg.startswith("@id:") else quote(arg))
    return " ".join(parts)


def run_wait_end(daemon, snapshot):
    """Seeks the playing song to its last second and waits (≤ 30 s: a hang detector for one second of music on a
    loaded machine) until the song or the state changes."""
    if snapshot.state() != "play" or snapshot.current_file() is None:
        return Reply([], None), "not playing: nothing to wait for"
    before = (snapshot.status.get("songid"), snapshot.state())
    seconds = DURATION.get(snapshot.current_file(), 30) - 1
    reply = daemon.send(f"seekcur {seconds}")
    if not reply.ok:
        return reply, f"seekcur {seconds}"
    deadline = time.time() + 30
    while time.time() < deadline:
        time.sleep(0.1)
        status = dict(daemon.send("status").pairs())
        if (status.get("songid"), status.get("state")) != before:
            break
        if status.get("elapsed") and float(status["elapsed"]) < seconds - 0.5:  # repeat single restarted it
            break
    time.sleep(0.15)
    return reply, f"seekcur {seconds}, wait for the end"


def run_random_tour(daemon, start, files, prios):
    """`play START` on a queue with no current song, random on, then `next` until stop (≤ 2·len + 2 times): the
    [(file, prio)] visited.

    The queue is cleared and added again first: MPD's `play N` with random on swaps N into the current song's place
    of the shuffled order (kept across `stop`, which reshuffles), so what comes before that place is never played;
    only with no current song does N go to the front and every song follow. Priorities are the ones before the tour
    (MPD resets a song's priority to 0 when it starts)."""
    for line in ["repeat 0", "single 0", "consume 0", "clear"] + [f"add {quote(f)}" for f in files]:
        reply = daemon.send(line)
        if not reply.ok:
            return reply, [], None
    for position, prio in enumerate(prios):
        if prio:
            daemon.send(f"prio {prio} {position}:{position + 1}")  # fermatad may not know it: not compared here
    reply = daemon.send(f"play {start}")
    if not reply.ok:
        return reply, [], None
    visited = []
    snapshot = Snapshot(daemon)
    for _ in range(2 * len(snapshot.queue) + 2):
        if snapshot.state() == "stop" or snapshot.song() is None:
            break
        visited.append((snapshot.current_file(), prios[snapshot.song()] if snapshot.song() < len(prios) else 0))
        daemon.send("next")
        snapshot = Snapshot(daemon)
    return Reply([], None), visited, snapshot.state()


def tour_properties(visited, final_state, queue_files):
    files = [f for f, _ in visited]
    prios = [p for _, p in visited]
    return {
        "first song is the one played": None,  # filled by the caller
        "every song once": sorted(files) == sorted(queue_files),
        "stops after the last": final_state == "stop",
        "priority order after the first": all(a >= b for a, b in zip(prios[1:], prios[2:])),
    }


# ---------------------------------------------------------------------------------------------------------------------
# Comparison

class Difference:
    def __init__(self, step_number, kind, command, mpd, fermatad, before, history):
        self.step_number = step_number
        self.kind = kind
        self.command = command
        self.mpd = mpd
        self.fermatad = fermatad
        self.before = before
        self.history = history

    def known(self):
        for pattern, reason in KNOWN_DIFFERENCES.items():
            if fnmatch.fnmatchcase(self.kind, pattern):
                return reason
        return None


class Harness:
    def __init__(self, mpd, fermatad, verbose=False):
        self.mpd = mpd
        self.fermatad = fermatad
        self.verbose = verbose
        self.differences = []
        self.ack_texts = {}  # (command, mpd code) → (mpd text, fermatad text)
        self.residual = {}  # kind-field → (mpd value, fermatad value) the resync could not remove
        self.history = []
        self.elapsed_check = False
        self.no_prio = False  # fermatad answered `prio` with an error: Prio fields not compared further
        self.steps = 0
        self.skipped_fields = 0

    def observe(self):
        self.mpd.snapshot = Snapshot(self.mpd)
        self.fermatad.snapshot = Snapshot(self.fermatad)

    # -- the comparisons of one step -----------------------------------------------------------------------------------

    def compare_states(self, skip, compare_queue_order=True):
        """{kind-suffix: (mpd value, fermatad value)} for what differs now."""
        m, f = self.mpd.snapshot, self.fermatad.snapshot
        out = {}
        mv, fv = status_view(m, skip), status_view(f, skip)
        for field in mv:
            if mv[field] != fv.get(field):
                out[f"status.{field}"] = (mv[field], fv.get(field))
        if compare_queue_order:
            if m.files() != f.files():
                out["queue"] = (names(m.files()), names(f.files()))
        elif sorted(m.files()) != sorted(f.files()):
            out["queue(as a set)"] = (names(sorted(m.files())), names(sorted(f.files())))
        if not self.no_prio and "prio" not in skip and m.files() == f.files() and m.prios() != f.prios():
            out["queue.Prio"] = (m.prios(), f.prios())
        if m.playlists != f.playlists:
            out["storedplaylists"] = ({k: names(v) for k, v in sorted(m.playlists.items())},
                                      {k: names(v) for k, v in sorted(f.playlists.items())})
        return out

    def settle(self, skip, compare_queue_order):
        """Observes both until their comparable states agree or 1 s has passed."""
        deadline = time.time() + 1.0
        while True:
            self.observe()
            diffs = self.compare_states(skip, compare_queue_order)
            fresh = [field for field, values in diffs.items() if self.residual.get(field) != values]
            if not fresh or time.time() > deadline:
                return diffs
            time.sleep(0.05)

    def record(self, kind, command, mpd_value, fermatad_value, before):
        self.differences.append(Difference(self.steps, kind, command, mpd_value, fermatad_value, before,
                                           list(self.history[-8:])))
        if self.verbose:
            print(f"  ≠ {kind}: mpd {mpd_value!r} · fermatad {fermatad_value!r}")

    def run_step(self, step):
        self.steps += 1
        ref = self.mpd.snapshot
        before = ref.summary()
        f_ref = self.fermatad.snapshot
        fermatad_before = f_ref.summary()
        name = step[0]
        text = step_text(step)
        # the kind's name: a seek past the end is a kind of its own (an intentional difference)
        past_end = name in ("seek", "seekid", "seekcur") and len(step) > 1 and step[-1] in ("200", "9999")
        label = name + ("-past-end" if past_end else "")
        # a paused seek past the end shows in Fermata only once playback resumes: the step after is that difference
        if getattr(self, "after_past_end", False) and not past_end:
            label += " (after-past-end)"
        self.after_past_end = past_end
        random_on = ref.status.get("random") == "1"
        skip = set()
        compare_order = True

        if name == "wait-end":
            m_reply, m_note = run_wait_end(self.mpd, ref)
            f_reply, f_note = run_wait_end(self.fermatad, self.fermatad.snapshot)
            text = f"wait-end ({m_note})"
        elif name == "random-tour":
            start = int(step[1])
            m_reply, m_visited, m_final = run_random_tour(self.mpd, start, ref.files(), ref.prios())
            f_reply, f_visited, f_final = run_random_tour(self.fermatad, start, ref.files(), ref.prios())
            text = (f"random-tour: repeat 0; single 0; consume 0; clear; add the {len(ref.queue)} songs again "
                    f"(prio as before); play {start}; next until stopped")
            if m_reply.ok and f_reply.ok:
                queue = ref.files()
                mp = tour_properties(m_visited, m_final, queue)
                fp = tour_properties(f_visited, f_final, queue)
                mp["first song is the one played"] = bool(m_visited) and m_visited[0][0] == queue[start]
                fp["first song is the one played"] = bool(f_visited) and f_visited[0][0] == queue[start]
                if self.verbose:
                    print(f"    tour mpd: {names([v for v, _ in m_visited])} then {m_final}; "
                          f"fermatad: {names([v for v, _ in f_visited])} then {f_final}")
                for prop in mp:
                    if mp[prop] != fp[prop]:
                        self.record(f"random-tour:{prop}", text,
                                    f"{mp[prop]} (visited {names([v for v, _ in m_visited])}, then {m_final})",
                                    f"{fp[prop]} (visited {names([v for v, _ in f_visited])}, then {f_final})",
                                    before)
            skip = {"state", "song", "nextsong"}
        else:
            m_reply = self.mpd.send(translate(step, ref))
            f_reply = self.fermatad.send(translate(step, self.fermatad.snapshot))

        self.history.append(text)
        if self.verbose:
            print(f"[{self.steps}] {text}\n    mpd: {m_reply}\n    fermatad: {f_reply}")

        # the reply
        if m_reply.code() != f_reply.code():
            self.record(f"reply:{label}", text, str(m_reply), str(f_reply), before)
            if name in ("prio", "prioid") and not f_reply.ok and "unknown" in f_reply.text().lower():
                self.no_prio = True
        elif not m_reply.ok and m_reply.text() != f_reply.text():
            self.ack_texts.setdefault((name, m_reply.code()), (m_reply.text(), f_reply.text(), text))
        if m_reply.ok and f_reply.ok and [k for k, _ in m_reply.pairs()] != [k for k, _ in f_reply.pairs()]:
            self.record(f"reply-body:{label}", text, str(m_reply), str(f_reply), before)

        # what is not deterministic with random on
        if random_on or ref.status.get("random") == "1":
            skip |= {"nextsong"}
            picks = name in RANDOM_PICKS and not (name in ("play", "playid") and len(step) > 1)
            if picks:
                # each daemon started a song of its own choosing, and reset that one's priority
                skip |= {"state", "song", "prio"}
        if name == "random":
            skip |= {"nextsong"}
        if name == "shuffle":
            compare_order = False
            skip |= {"song", "nextsong"}
        # the decoder may have run into an end: not comparable
        if name in ("seek", "seekid", "seekcur") and len(step) > 1 and step[-1] in ("200", "9999"):
            skip |= {"state", "song", "nextsong", "error"}

        diffs = self.settle(skip, compare_order)
        self.skipped_fields += len(skip)
        m, f = self.mpd.snapshot, self.fermatad.snapshot
        # MPD's own race, not a difference in the protocol: on a command that keeps the song, MPD's current song (its
        # id) changed mid-song while fermatad's stayed. Told apart by its kind, still recorded.
        if name in KEEPS_THE_SONG and m_reply.ok and ref.state() == "play" and m.state() == "play" \
                and ref.status.get("songid") is not None and m.status.get("songid") != ref.status.get("songid") \
                and f.status.get("songid") == f_ref.status.get("songid") and f_ref.current_file() == ref.current_file() \
                and (ref.elapsed() or 0) < DURATION.get(ref.current_file(), 30) - 3:
            label += " (mpd moved on by itself)"

        # elapsed: after a seek, while the song stays and nothing restarts it
        relative = name == "seekcur" and step[1][:1] in "+-"  # from where each was: not comparable
        if name in ("seek", "seekid", "seekcur") and m_reply.ok and f_reply.ok and "state" not in skip \
                and not relative:
            self.elapsed_check = True
        elif name in ("play", "playid", "stop", "next", "previous", "wait-end", "random-tour", "clear") or \
                relative or m.current_file() != ref.current_file():
            self.elapsed_check = False
        if self.elapsed_check and m.state() in ("play", "pause") and f.state() == m.state():
            me, fe = m.elapsed(), f.elapsed()
            if me is None or fe is None or abs(me - fe) > 1.0:
                diffs["elapsed"] = (me, fe)
            self.elapsed_check = m.state() == "pause" or name in ("seek", "seekid", "seekcur")

        if name == "shuffle" and len(step) == 1 and ref.state() in ("play", "pause") and m_reply.ok and f_reply.ok:
            if (m.song() == 0) != (f.song() == 0):
                diffs["shuffle: current song moved to position 0"] = (m.song() == 0, f.song() == 0)
        if name == "shuffle" and m.current_file() != f.current_file():
            diffs["status.song (file)"] = (m.current_file(), f.current_file())
        carried = " (fermatad already differed)" if self.residual else ""
        for field, (mv, fv) in sorted(diffs.items()):
            if self.residual.get(field) == (mv, fv):
                continue  # left by a resync that could not remove it
            self.record(f"{field}:{label}{carried}", text, mv, fv, before + "\n      fermatad before: " + fermatad_before
                        if fermatad_before != before else before)

        # everything, skipped fields included: resync fermatad when it has drifted
        full = self.compare_states({"nextsong"} if m.status.get("random") == "1" else set(), True)
        if name == "shuffle" and m.files() != f.files():
            full["queue"] = True
        if full:
            self.resync()
        else:
            self.residual = {}

    # -- resync: fermatad made like MPD ---------------------------------------------------------------------------------

    def resync(self):
        m = self.mpd.snapshot
        f = self.fermatad.snapshot
        send = self.fermatad.send
        if m.files() != f.files() or (m.state() == "stop" and m.song() is None and f.song() is not None):
            send("stop")
            send("clear")
            for entry in m.queue:
                send(f"add {quote(entry['file'])}")
        if not self.no_prio:
            for position, prio in enumerate(m.prios()):
                send(f"prio {prio} {position}:{position + 1}")
        for field in ("random", "repeat", "consume", "single"):
            if m.status.get(field) != self.fermatad.snapshot.status.get(field):
                send(f"{field} {m.status.get(field)}")
        if m.status.get("volume") != f.status.get("volume") and m.status.get("volume") is not None:
            send(f"setvol {m.status['volume']}")
        if m.song() is not None:
            if m.state() == "stop":
                send(f"play {m.song()}")
                send("stop")
            else:
                send(f"play {m.song()}")
                elapsed = m.elapsed()
                limit = DURATION.get(m.current_file(), 30) - 4  # not into the end: it would move on by itself
                if elapsed and elapsed >= 1:
                    send(f"seekcur {min(int(elapsed), limit)}")
                if m.state() == "pause":
                    send("pause 1")
        elif f.state() != "stop":
            send("stop")
        if m.playlists != f.playlists:
            for name in set(f.playlists) | set(m.playlists):
                if f.playlists.get(name) == m.playlists.get(name):
                    continue
                send(f"rm {quote(name)}")
                if name in m.playlists:
                    send(f"playlistclear {quote(name)}")
                    for path in m.playlists[name]:
                        send(f"playlistadd {quote(name)} {quote(path)}")
        self.observe()
        self.residual = self.compare_states({"nextsong"}
                                            if m.status.get("random") == "1" else set())
        if "elapsed" in self.residual:
            del self.residual["elapsed"]
        self.elapsed_check = False

    # -- the report -----------------------------------------------------------------------------------------------------

    def report(self, out=sys.stdout):
        groups = {}
        for difference in self.differences:
            groups.setdefault(difference.kind, []).append(difference)
        unknown = 0
        print(f"\n{self.steps} steps; {len(self.differences)} differing observations in {len(groups)} kinds",
              file=out)
        for kind in sorted(groups, key=lambda k: (-len(groups[k]), k)):
            items = groups[kind]
            reason = items[0].known()
            if reason is None:
                unknown += len(items)
            label = f"KNOWN ({reason})" if reason else "NEW"
            print(f"\n== {kind}: {len(items)} × {label}", file=out)
            for item in items[:3]:
                print(f"  step {item.step_number}: {item.command}", file=out)
                print(f"      before: {item.before}", file=out)
                print(f"      recent: {' ; '.join(item.history[-5:-1]) or '-'}", file=out)
                print(f"      mpd:      {item.mpd}", file=out)
                print(f"      fermatad: {item.fermatad}", file=out)
        if self.ack_texts:
            print("\n== ACK message texts that differ (same code; not counted)", file=out)
            for (name, code), (mt, ft, text) in sorted(self.ack_texts.items()):
                print(f"  {text}: {code} mpd {mt!r} · fermatad {ft!r}", file=out)
        print(f"\nsummary: {len(self.differences)} differences ({unknown} not in KNOWN_DIFFERENCES), "
              f"{len(groups)} kinds, {self.steps} steps", file=out)
        return unknown


def names(files):
    return [TRACK_NAMES.get(f, f) for f in files]


# ---------------------------------------------------------------------------------------------------------------------

def reset(daemons):
    for daemon in daemons:
        for line in ("stop", "clear", "random 0", "repeat 0", "consume 0", "single 0", "setvol 100"):
            daemon.send(line)
        listing = daemon.send("listplaylists")
        for key, value in listing.pairs():
            if key == "playlist":
                daemon.send(f"rm {quote(value)}")


def run_sequence(harness, text):
    """Sends each `;`-separated command to both and prints the replies and the differing state side by side."""
    reset([harness.mpd, harness.fermatad])
    harness.observe()
    for line in [part.strip() for part in text.split(";") if part.strip()]:
        if line.startswith("sleep "):
            time.sleep(float(line.split()[1]))
            continue
        if line == "wait-end":
            m_reply, _ = run_wait_end(harness.mpd, harness.mpd.snapshot)
            f_reply, _ = run_wait_end(harness.fermatad, harness.fermatad.snapshot)
        else:
            m_reply = harness.mpd.send(line)
            f_reply = harness.fermatad.send(line)
        print(f"> {line}")
        for label, reply in (("mpd", m_reply), ("fermatad", f_reply)):
            body = "\n".join("      " + l for l in reply.lines)
            print(f"  {label:8}: {reply.ack or 'OK'}" + ("\n" + body if body else ""))
        time.sleep(0.1)
        harness.observe()
        print(f"  mpd now     : {harness.mpd.snapshot.summary(True)}")
        print(f"  fermatad now: {harness.fermatad.snapshot.summary(True)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--commands", type=int, default=300)
    parser.add_argument("--fermatad", default="/work/main/.build/debug/fermatad")
    parser.add_argument("--sequence", help="run these `;`-separated commands on both and print them side by side")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="mpd-differential-")
    music = os.path.join(work, "music")
    daemons = []
    try:
        make_music(music)
        try:
            daemons.append(start_mpd(work, music, free_port()))
            daemons.append(start_fermatad(args.fermatad, work, music, free_port()))
            for daemon in daemons:
                scan(daemon, len(TRACKS))
        except (RuntimeError, OSError) as error:
            print(f"cannot start the daemons: {error} (logs in {work})", file=sys.stderr)
            args.keep = True
            return 2
        mpd, fermatad = daemons
        harness = Harness(mpd, fermatad, args.verbose)
        print(f"mpd: {mpd.client.banner} · fermatad: {fermatad.client.banner} · seed {args.seed}, "
              f"{args.commands} commands")
        if args.sequence:
            run_sequence(harness, args.sequence)
            return 0
        reset(daemons)
        harness.observe()
        initial = harness.compare_states(set())
        for field, (mv, fv) in initial.items():
            harness.record(f"{field}:start", "(after start, stop, clear, modes off, setvol 100)", mv, fv, "")
        if initial:
            harness.resync()
        rng = random.Random(args.seed)
        for _ in range(args.commands):
            harness.run_step(generate(rng, harness.mpd.snapshot))
        unknown = harness.report()
        return 1 if unknown else 0
    finally:
        for daemon in daemons:
            daemon.stop()
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
