#!/usr/bin/python3
"""The power-cut campaign's client, run inside the kernel lab's VM (guest.sh starts it).

It starts the daemon under test itself (so the moment of exec is known), then, in this order:

  --check    reads what a restart shows, as an owner's client would: `status`, the queue, the loop and tempo,
             the stored playlists and (Fermata) the practice total, once as soon as the daemon answers and once
             more after --settle seconds (Fermata restores a track's tempo and loop from its practice memory within
             a second or two of entering it);
  --first    a fresh state: scans the music folder, queues a few tracks and plays;
  --session  does what owners do, at human and faster-than-human pace, until the power is cut: queue edits (add,
             addid, delete, deleteid, move, moveid, swap, shuffle, clear, command lists), transport (play, pause,
             stop, next, previous, seek, seekcur), volume and modes, Fermata's loop_set/loop_clear/tempo, stored
             playlists (save, rm, playlistadd, playlistdelete), and files copied into and deleted from
             MUSIC/incoming followed by `update incoming`. After each command it reads the state back (one command
             list: status, playlistinfo, loop_status, and the stored playlists after a playlist command). A timer
             thread cuts the power (exec of $KL_POWER_CUT) at a seeded random instant in [--cut-min, --cut-max]
             seconds after the session starts, whatever the main thread is doing (--control: SIGTERM to the daemon at that
             instant instead, then sync: the same session without a power cut, to tell what a restart loses anyway
             from what the cut loses);
  --record   (replay.sh) a session of --record-seconds with no power cut: after each answer, a mark
             `ok-SEQ-TIME` in the dm-log-writes device under the state disk (and `poll-TIME` after each idle poll),
             so that every write in the log can be placed among the answers; then SIGKILL of the daemon;
  otherwise  stops the daemon with SIGTERM (the campaign's last run).

Every event goes to --log as one JSON line, written before the next step (the log is on the 9p share, so each line
is on the host when write() returns): `send` (a command or command list, before it is sent), `reply` (its answer,
OK or ACK, with the CLOCK_MONOTONIC moment it arrived), `obs` (a state read back), `cut` (the moment the timer
fired). judge.py compares them with what the next run finds.
"""
import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

mono = time.monotonic


class Log:
    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.lock = threading.Lock()

    def __call__(self, **event):
        event.setdefault("t", mono())
        line = (json.dumps(event, separators=(",", ":")) + "\n").encode()
        with self.lock:
            os.write(self.fd, line)


class Conn:
    def __init__(self, port, timeout=120):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.rf = self.sock.makefile("rb")
        greeting = self.rf.readline()
        if not greeting.startswith(b"OK MPD"):
            raise ConnectionError("greeting %r" % greeting)

    def request(self, text):
        """Sends TEXT (one or more lines) and reads one answer: (ok, lines, ack)."""
        self.sock.sendall(text.encode())
        lines = []
        while True:
            raw = self.rf.readline()
            if not raw:
                raise ConnectionError("connection closed")
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line == "OK":
                return True, lines, None
            if line.startswith("ACK"):
                return False, lines, line
            lines.append(line)


def pairs(lines):
    out = []
    for line in lines:
        key, sep, value = line.partition(": ")
        if sep:
            out.append((key, value))
    return out


def parse_queue(lines):
    files, ids = [], []
    for key, value in pairs(lines):
        if key == "file":
            files.append(value)
            ids.append(None)
        elif key == "Id" and ids:
            ids[-1] = int(value)
    return files, ids


def split_list_ok(lines):
    parts, current = [], []
    for line in lines:
        if line == "list_OK":
            parts.append(current)
            current = []
        else:
            current.append(line)
    if current:
        parts.append(current)
    return parts


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Client:
    def __init__(self, args):
        self.args = args
        self.fermata = args.daemon == "fermatad"
        self.log = Log(args.log)
        self.rng = random.Random(args.seed)
        self.seq = 0
        self.conn = None
        self.daemon = None
        self.model = None  # the newest obs
        self.base = []
        self.playlist_names = ["pc0", "pc1", "pc2", "pc3"]

    # ---- the daemon -------------------------------------------------------------------------------------------

    def start_daemon(self):
        out = open(self.args.daemon_log, "ab")
        t = mono()
        self.daemon = subprocess.Popen(json.loads(self.args.start), stdout=out, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
        self.log(ev="exec", t=t, pid=self.daemon.pid, argv=json.loads(self.args.start))
        deadline = t + self.args.ready_timeout
        while True:
            if self.daemon.poll() is not None:
                self.log(ev="daemon_exited", status=self.daemon.returncode)
                sys.exit(3)
            try:
                self.conn = Conn(self.args.port)
                ok, _, ack = self.conn.request("ping\n")
                if ok:
                    break
            except OSError:
                pass
            if mono() > deadline:
                self.log(ev="not_ready", after=mono() - t)
                sys.exit(4)
            time.sleep(0.05)
        self.log(ev="ready", after=mono() - t)

    def stop_daemon(self):
        t = mono()
        self.daemon.send_signal(signal.SIGTERM)
        try:
            status = self.daemon.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.daemon.kill()
            status = "killed after 60 s"
        self.log(ev="stopped", status=status, after=mono() - t)

    # ---- commands and observations ----------------------------------------------------------------------------

    def run(self, kind, lines, ok_list=False):
        """One step: a command, or a command list of LINES; logged before it is sent and when it is answered."""
        self.seq += 1
        seq = self.seq
        if kind == "list":
            begin = "command_list_ok_begin" if ok_list else "command_list_begin"
            text = begin + "\n" + "".join(line + "\n" for line in lines) + "command_list_end\n"
            self.log(ev="send", seq=seq, list=lines, ok_list=ok_list)
        else:
            text = lines + "\n"
            self.log(ev="send", seq=seq, cmd=lines)
        ok, out, ack = self.conn.request(text)
        t = mono()
        self.log(ev="reply", seq=seq, ok=ok, ack=ack, lines=out[:8], t=t)
        self.mark("ok-%d-%.3f" % (seq, t))
        return seq, ok, out

    def mark(self, name):
        """--record: a mark in the dm-log-writes log, after every write the block layer completed and flushed so far."""
        if self.args.record:
            subprocess.run(["dmsetup", "message", self.args.record, "0", "mark", name], check=False)

    def observe(self, after, playlists=False, practice=False, tag=None):
        t0 = mono()
        queries = ["status", "playlistinfo"] + (["loop_status"] if self.fermata else [])
        if playlists:
            queries.append("listplaylists")
        if practice and self.fermata:
            queries.append("practice")
        ok, out, ack = self.conn.request(
            "command_list_ok_begin\n" + "".join(q + "\n" for q in queries) + "command_list_end\n")
        t1 = mono()
        parts = split_list_ok(out) + [[]] * len(queries)
        status = dict(pairs(parts[0]))
        files, ids = parse_queue(parts[1])
        event = dict(ev="obs", after=after, t0=t0, t=t1, ts=(t0 + t1) / 2, status=status, queue=files, ids=ids)
        if tag:
            event["tag"] = tag
        index = 2
        if self.fermata:
            event["loop"] = dict(pairs(parts[index]))
            index += 1
        if playlists:
            names = [v for k, v in pairs(parts[index]) if k == "playlist"]
            index += 1
            contents = {}
            if names:
                ok2, out2, _ = self.conn.request(
                    "command_list_ok_begin\n" + "".join("listplaylist %s\n" % quote(n) for n in names)
                    + "command_list_end\n")
                for name, part in zip(names, split_list_ok(out2) + [[]] * len(names)):
                    contents[name] = [v for k, v in pairs(part) if k == "file"]
            event["playlists"] = contents
        if practice and self.fermata:
            event["practice"] = dict(pairs(parts[index]))
        self.log(**event)
        if tag == "poll":
            self.mark("poll-%.3f" % t1)
        self.model = event
        return event

    # ---- phases -----------------------------------------------------------------------------------------------

    def check(self):
        self.observe(0, playlists=True, practice=True, tag="check_first")
        time.sleep(self.args.settle)
        self.observe(0, playlists=True, practice=True, tag="check_settled")

    def wait_update(self, limit=120):
        end = mono() + limit
        while mono() < end:
            ok, out, _ = self.conn.request("status\n")
            if "updating_db" not in dict(pairs(out)):
                return True
            time.sleep(0.2)
        return False

    def first(self):
        self.run("cmd", "update")
        self.wait_update()
        ok, out, _ = self.conn.request("listall base\n")
        base = [v for k, v in pairs(out) if k == "file"]
        for name in base[:5]:
            self.run("cmd", "add " + quote(name))
        self.run("cmd", "setvol 70")
        self.run("cmd", "play 0")
        self.observe(self.seq, playlists=True, tag="first")

    def cut_later(self):
        delay = self.rng.uniform(self.args.cut_min, self.args.cut_max)
        self.log(ev="session", cut_in=delay)

        def cut():
            if self.args.control:
                # The control experiment: the same instant, but a clean stop (SIGTERM, then sync), no power cut.
                self.log(ev="cut", control=True)
                self.daemon.send_signal(signal.SIGTERM)
                try:
                    status = self.daemon.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    self.daemon.kill()
                    status = "killed after 60 s"
                self.log(ev="stopped", status=status)
                os.sync()
                os._exit(0)
            self.log(ev="cut")
            os.execv(self.args.power_cut, [self.args.power_cut])

        timer = threading.Timer(delay, cut)
        timer.daemon = True
        timer.start()

    def session(self):
        ok, out, _ = self.conn.request("listall base\n")
        self.base = [v for k, v in pairs(out) if k == "file"]
        self.observe(self.seq, playlists=True, practice=True, tag="session_start")
        if self.args.record:
            stop_at = mono() + self.args.record_seconds
            self.log(ev="session", record=self.args.record_seconds)
            self.mark("session-%.3f" % mono())
        else:
            stop_at = None
            self.cut_later()
        while stop_at is None or mono() < stop_at:
            pause = self.rng.choice([0, 0, 0.02, 0.1, 0.3, 0.6, 1.2])
            end = mono() + pause
            while mono() < end:
                time.sleep(min(0.4, max(0, end - mono())))
                if end - mono() > 0.1:
                    self.observe(self.seq, tag="poll")
            self.step()
        # --record: the end of what replay.sh checks; the daemon dies as in a crash, its later writes do not matter.
        self.mark("end-%.3f" % mono())
        self.log(ev="end")
        self.daemon.kill()
        self.daemon.wait()

    # ---- the owner's actions ----------------------------------------------------------------------------------

    def state(self):
        m = self.model
        s = m["status"]
        return m, s, len(m["queue"])

    def step(self):
        m, s, length = self.state()
        playing = s.get("state") == "play"
        duration = float(s.get("duration", 0) or 0)
        elapsed = float(s.get("elapsed", 0) or 0)
        # Keep away from the end of a track: the position check must never have to follow a change it did not ask for.
        if s.get("state") in ("play", "pause") and duration and elapsed > duration - 25:
            self.command("seekcur %d" % self.rng.randint(2, 30))
            return
        if s.get("state") != "play" and self.rng.random() < 0.3:
            self.command("play" if s.get("state") == "stop" else "pause 0")
            return
        actions = self.actions(m, s, length, playing, duration, elapsed)
        names = [a[0] for a in actions]
        weights = [a[1] for a in actions]
        name = self.rng.choices(names, weights)[0]
        dict((a[0], a[2]) for a in actions)[name]()

    def command(self, line, playlists=False):
        seq, ok, out = self.run("cmd", line)
        self.observe(seq, playlists=playlists)

    def command_list(self, lines, playlists=False):
        seq, ok, out = self.run("list", lines, ok_list=self.rng.random() < 0.5)
        self.observe(seq, playlists=playlists)

    def pick(self):
        return self.rng.choice(self.base)

    def queue_ops(self, length, count):
        """COUNT valid queue edits in a row, tracking the length as they go (for command lists)."""
        ops = []
        for _ in range(count):
            choice = self.rng.choice(["add", "add", "delete", "move", "swap", "setvol"])
            if choice == "add" and length < 25:
                ops.append("add " + quote(self.pick()))
                length += 1
            elif choice == "delete" and length > 4:
                ops.append("delete %d" % self.rng.randrange(length))
                length -= 1
            elif choice == "move" and length > 1:
                ops.append("move %d %d" % (self.rng.randrange(length), self.rng.randrange(length)))
            elif choice == "swap" and length > 1:
                ops.append("swap %d %d" % (self.rng.randrange(length), self.rng.randrange(length)))
            else:
                ops.append("setvol %d" % self.rng.randint(0, 100))
        return ops

    def actions(self, m, s, length, playing, duration, elapsed):
        r = self.rng
        ids = [i for i in m["ids"] if i is not None]
        a = []
        if length < 25:
            a.append(("add", 6, lambda: self.command("add " + quote(self.pick()))))
            a.append(("addid", 3, lambda: self.command("addid " + quote(self.pick()))))
        if length > 4:
            a.append(("delete", 4, lambda: self.command("delete %d" % r.randrange(length))))
            a.append(("delete_range", 1, lambda: self.command("delete %d:%d" % (lambda x: (x, x + 2))(
                r.randrange(length - 2)))))
            if ids:
                a.append(("deleteid", 2, lambda: self.command("deleteid %d" % r.choice(ids))))
        if length > 1:
            a.append(("move", 4, lambda: self.command("move %d %d" % (r.randrange(length), r.randrange(length)))))
            a.append(("swap", 2, lambda: self.command("swap %d %d" % (r.randrange(length), r.randrange(length)))))
            if ids:
                a.append(("moveid", 2, lambda: self.command("moveid %d %d" % (r.choice(ids), r.randrange(length)))))
            a.append(("shuffle", 2, lambda: self.command("shuffle")))
        a.append(("cmdlist", 6, lambda: self.command_list(self.queue_ops(length, r.randint(2, 6)))))
        a.append(("clear_refill", 0.5, lambda: self.command_list(
            ["clear"] + ["add " + quote(self.pick()) for _ in range(r.randint(3, 8))] + ["play 0"])))
        if length:
            a.append(("play_pos", 2, lambda: self.command("play %d" % r.randrange(length))))
            a.append(("next", 2, lambda: self.command("next")))
            a.append(("previous", 1, lambda: self.command("previous")))
        if playing:
            a.append(("pause", 4, lambda: self.command("pause 1")))
            a.append(("stop", 0.5, lambda: self.command("stop")))
        if s.get("state") in ("play", "pause") and duration > 40:
            a.append(("seek", 3, lambda: self.command("seek %s %d" % (s.get("song", "0"), r.randint(0, int(duration) - 30)))))
            a.append(("seekcur", 3, lambda: self.command("seekcur %d" % r.randint(0, int(duration) - 30))))
        a.append(("setvol", 4, lambda: self.command("setvol %d" % r.randint(0, 100))))
        for mode in ("repeat", "random", "single", "consume"):
            a.append((mode, 2, (lambda mode: lambda: self.command("%s %d" % (mode, r.randint(0, 1))))(mode)))
        if self.fermata:
            if s.get("state") in ("play", "pause") and duration > 60:
                def loop_set():
                    start = max(0.0, elapsed - r.uniform(0, 3))
                    end = min(start + r.uniform(8, 20), duration - 22)
                    if end > start + 4:
                        self.command("loop_set %.3f %.3f" % (start, end))
                    else:
                        self.command("loop_clear")
                a.append(("loop_set", 3, loop_set))
            a.append(("loop_clear", 2, lambda: self.command("loop_clear")))
            a.append(("tempo", 3, lambda: self.command("tempo %d" % r.randint(70, 130))))
            a.append(("tempo_rel", 1, lambda: self.command("tempo %+d" % r.choice([-10, -5, 5, 10]))))
        a.append(("save", 2, lambda: self.save()))
        a.append(("rm", 1.5, lambda: self.command("rm " + quote(r.choice(self.playlist_names)), playlists=True)))
        a.append(("playlistadd", 3, lambda: self.command(
            "playlistadd %s %s" % (quote(r.choice(self.playlist_names)), quote(self.pick())), playlists=True)))
        a.append(("playlistdelete", 2, lambda: self.command(
            "playlistdelete %s %d" % (quote(r.choice(self.playlist_names)), r.randrange(4)), playlists=True)))
        a.append(("lib_add", 2, self.lib_add))
        a.append(("lib_rm", 1.5, self.lib_rm))
        a.append(("update", 2, lambda: self.command("update incoming")))
        return a

    def save(self):
        # A stored playlist that exists is replaced the way MPD 0.23 clients do it: rm, then save.
        name = self.rng.choice(self.playlist_names)
        self.command("rm " + quote(name), playlists=True)
        self.command("save " + quote(name), playlists=True)

    def lib_add(self):
        pool = sorted(os.listdir(self.args.pool))
        name = self.rng.choice(pool)
        target = os.path.join(self.args.music, "incoming", "%s-%d.wav" % (name[:-4], self.rng.randrange(1000)))
        self.log(ev="fs", op="copy", src=name, dst=target)
        shutil.copyfile(os.path.join(self.args.pool, name), target)
        if self.rng.random() < 0.5:
            self.command("update incoming")

    def lib_rm(self):
        folder = os.path.join(self.args.music, "incoming")
        names = sorted(os.listdir(folder))
        if not names:
            return self.lib_add()
        target = os.path.join(folder, self.rng.choice(names))
        self.log(ev="fs", op="rm", dst=target)
        os.unlink(target)
        if self.rng.random() < 0.5:
            self.command("update incoming")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--daemon", choices=["fermatad", "mpd"], required=True)
    p.add_argument("--start", required=True, help="the daemon's argv as a JSON list")
    p.add_argument("--daemon-log", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--port", type=int, default=6600)
    p.add_argument("--music", default="/srv/music")
    p.add_argument("--pool", required=True)
    p.add_argument("--first", action="store_true")
    p.add_argument("--check", action="store_true")
    p.add_argument("--session", action="store_true")
    p.add_argument("--settle", type=float, default=4.0)
    p.add_argument("--cut-min", type=float, default=2.0)
    p.add_argument("--cut-max", type=float, default=15.0)
    p.add_argument("--ready-timeout", type=float, default=60.0)
    p.add_argument("--power-cut", default=os.environ.get("KL_POWER_CUT", "/run/kl-power-cut"))
    p.add_argument("--control", action="store_true", help="stop the daemon cleanly at the cut instead")
    p.add_argument("--record", metavar="DM_NAME", help="mark each answer in this dm-log-writes device; no cut")
    p.add_argument("--record-seconds", type=float, default=8.0)
    args = p.parse_args()
    client = Client(args)
    client.log(ev="client", seed=args.seed, first=args.first, check=args.check, session=args.session)
    client.start_daemon()
    if args.check:
        client.check()
    if args.first:
        client.first()
    if args.session and args.record:
        client.session()
    elif args.session:
        try:
            client.session()
        except Exception as error:  # a failure before the cut: logged, then the cut still happens
            client.log(ev="client_error", error=repr(error))
            time.sleep(3600)
    else:
        client.stop_daemon()


if __name__ == "__main__":
    main()
