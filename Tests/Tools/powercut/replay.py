#!/usr/bin/python3
"""Every crash state of a recorded session (replay.sh's second half, on the host).

    replay.py WORK [--every-write] [--limit N] [--keep-failing]

WORK/base.img is the state disk before the recording, WORK/log.img the dm-log-writes log of everything the file system
handed to the disk during it (drivers/md/dm-log-writes.c: a super block in sector 0 -- magic, version, entry count,
sector size -- then entries, each one sector of header {sector, nr_sectors, flags, data_len} followed by its data;
a mark carries its name in the header sector). Writes are logged in the order they completed, and only once a flush
made them durable, so replaying the log onto a copy of base.img up to an entry gives the disk as a power cut at that
moment could leave it: up to each flush (or FUA write), and with --every-write up to each write between flushes
too -- a card that kept only part of what it was handed since its last flush.

For each such prefix: e2fsck -p (which replays ext4's journal, as a boot does) and e2fsck -fn must find nothing to
correct; the state files are taken out with debugfs; the database must pass PRAGMA integrity_check; and what it holds
(fermatad: the queue, transport, volume and modes, the A-B loop, the stored playlists, the saved position) must equal
a state the client saw acknowledged: the client marked the log after every answer (`ok-SEQ-TIME`), so the newest
mark before the prefix tells which answers the disk must already reflect, and the command sent after it may or may
not be there. The saved position must be on the song that played and at most 2.5 s behind where it was heard at the
newest mark before the prefix (a lower bound of the loss). Tempo, practice statistics and the daemon's start need a
running daemon and are left to the campaign. Writes WORK/replay.json and prints a table.
"""
import argparse
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402

FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
MAGIC = 0x6a736677736872
CHECKS = ["fs", "db", "queue", "transport", "modes", "loop", "playlists", "position"]


def read_log(path):
    with open(path, "rb") as f:
        magic, version, count, sectorsize = struct.unpack("<QQQI", f.read(28))
        if magic != MAGIC:
            raise SystemExit("%s: not a dm-log-writes log" % path)
        entries = []
        sector = 1
        for _ in range(count):
            f.seek(sector * 512)
            header = f.read(sectorsize)
            target, nr, flags, datalen = struct.unpack("<QQQQ", header[:32])
            entry = {"i": len(entries), "sector": target, "nr": nr, "flags": flags}
            if flags & MARK:
                entry["mark"] = header[32:32 + datalen].decode(errors="replace")
                sector += 1
            elif flags & DISCARD:
                sector += 1
            else:
                entry["data_at"] = (sector + 1) * 512
                sector += 1 + nr * sectorsize // 512
            entry["sectorsize"] = sectorsize
            entries.append(entry)
        return entries


def apply_entry(log, image, entry):
    size = entry["nr"] * entry["sectorsize"]
    if not size:
        return
    offset = entry["sector"] * entry["sectorsize"]
    if entry["flags"] & DISCARD:
        data = bytes(size)
    else:
        log.seek(entry["data_at"])
        data = log.read(size)
    image.seek(offset)
    image.write(data)


def run(argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT).returncode


def fermata_offline(root):
    """What fermatad's state directory ROOT holds, in the client's terms (status values, queue files, playlists)."""
    state = {"playlists": {}}
    folder = os.path.join(root, "playlists")
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".m3u"):
                text = open(os.path.join(folder, name), encoding="utf-8", errors="replace").read()
                state["playlists"][name[:-4]] = [line.strip() for line in text.splitlines()
                                                 if line.strip() and not line.startswith("#")]
    db = os.path.join(root, "library.sqlite")
    if not os.path.exists(db):
        state["error"] = "no database"
        return state
    with tempfile.TemporaryDirectory() as tmp:
        for suffix in ("", "-wal"):
            if os.path.exists(db + suffix):
                shutil.copy(db + suffix, tmp)
        con = sqlite3.connect(os.path.join(tmp, "library.sqlite"))
        try:
            state["queue"] = [r[0] for r in con.execute("SELECT uri FROM queue_entry ORDER BY sort_key")]
            row = con.execute("SELECT transport, volume, repeat_mode, single, consume, shuffled, loop_start, loop_end, "
                              "sample_rate FROM player_state WHERE id = 1").fetchone()
        except sqlite3.Error as error:
            state["error"] = str(error)
            return state
        finally:
            con.close()
    if row is None:
        state["error"] = "no player_state row"
        return state
    transport, volume, repeat_mode, single, consume, shuffled, loop_start, loop_end, rate = row
    state["transport"] = {"playing": "play", "paused": "pause", "stopped": "stop"}.get(transport, transport)
    state["volume"] = str(volume)
    flags = {"off": ("0", "1" if single else "0"), "queue": ("0", "1") if single else ("1", "0"),
             "track": ("1", "1")}.get(repeat_mode, ("?", "?"))
    state["repeat"], state["single"] = flags
    state["consume"] = "1" if consume else "0"
    state["random"] = "1" if shuffled else "0"
    state["loop"] = (round(loop_start / rate, 2), round(loop_end / rate, 2)) \
        if loop_start is not None and loop_end is not None and rate else None
    return state


def same_loop(a, b):
    if a is None or b is None:
        return a is b
    return abs(a[0] - b[0]) <= 0.011 and abs(a[1] - b[1]) <= 0.011


class Session:
    """The client's log of the recorded session, and the acknowledged state at any mark."""

    def __init__(self, path):
        self.ev = judge.events(path)
        start = next(i for i, e in enumerate(self.ev) if e["ev"] == "session")
        self.base = [e for e in self.ev[:start] if e["ev"] == "obs"][-1]
        self.session = self.ev[start:]
        self.sends = {e["seq"]: e for e in self.session if e["ev"] == "send"}
        self.replies = {e["seq"]: e for e in self.session if e["ev"] == "reply"}
        self.obs_after = {}
        for e in self.session:
            if e["ev"] == "obs" and e.get("tag") != "poll":
                self.obs_after[e["after"]] = e
        self.cache = {}

    def acknowledged(self, seq):
        """(state after the answer to SEQ, [accepted states]) -- SEQ 0: before any command of the session."""
        if seq in self.cache:
            return self.cache[seq]
        state = judge.state_of(self.base)
        for k in sorted(s for s in self.sends if s <= seq):
            step, reply = self.sends[k], self.replies.get(k)
            if reply is None:
                break
            if k in self.obs_after:
                state = judge.state_of(self.obs_after[k], state)
            elif reply["ok"]:
                state = judge.apply_step(state, step)
            elif step.get("list"):
                state = judge.apply_step(state, step, judge.failed_index(reply["ack"]))
        accepted = [state]
        nxt = self.sends.get(seq + 1)
        if nxt is not None:
            accepted.append(judge.apply_step(state, nxt))
        self.cache[seq] = (state, accepted)
        return state, accepted

    def position(self, t_mark, t_next, seq):
        """(song id, lowest and highest heard position) at a crash between marks at T_MARK and T_NEXT, or a reason."""
        obs = [e for e in [self.base] + self.session if e["ev"] == "obs" and e["t"] <= t_mark]
        last = obs[-1]
        movers = [s for k, s in self.sends.items()
                  if s["t"] > last["t"] and k <= seq + 1 and judge.moves_position(s)]
        if movers:
            return "a command that moves the position was answered after the last read-back or was in flight"
        s = last["status"]
        if s.get("state") not in ("play", "pause"):
            return "stopped"
        heard = float(s.get("elapsed", 0))
        if s["state"] == "pause":
            return int(s["songid"]), heard, heard
        tempo = float((last.get("loop") or {}).get("tempo", 100)) / 100
        loop = judge.state_of(last).get("loop")
        low = judge.extrapolate(heard, t_mark - last["ts"], tempo, loop)
        high = judge.extrapolate(heard, (t_next if t_next else t_mark + 1) - last["ts"], tempo, loop)
        return int(s["songid"]), low, high


def mark_time(name):
    try:
        return float(name.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("work")
    p.add_argument("--every-write", action="store_true", help="also every write between flushes")
    p.add_argument("--limit", type=int, default=0, help="check at most N prefixes (evenly spread)")
    p.add_argument("--keep-failing", action="store_true", help="keep the disk image of each failing prefix")
    a = p.parse_args()
    work = a.work
    entries = read_log(os.path.join(work, "log.img"))
    session = Session(os.path.join(work, "record", "client.jsonl"))
    marks = [e for e in entries if "mark" in e]
    start = next(e["i"] for e in entries if e.get("mark", "").startswith("session"))
    end = next((e["i"] for e in entries if e.get("mark", "").startswith("end")), len(entries))
    # The prefixes: after each flush or FUA write (and each write) from the session's start to its end.
    points = []
    for e in entries[start:end]:
        if "mark" in e:
            continue
        if e["flags"] & (FLUSH | FUA) or a.every_write:
            points.append(e["i"])
    if a.limit and len(points) > a.limit:
        points = [points[round(i * (len(points) - 1) / (a.limit - 1))] for i in range(a.limit)]
    print("replay: %d log entries, %d marks, %d writes in the session, %d flushes; checking %d prefixes" % (
        len(entries), len(marks), sum(1 for e in entries[start:end] if "data_at" in e),
        sum(1 for e in entries[start:end] if e["flags"] & FLUSH), len(points)), file=sys.stderr)

    tmp = tempfile.mkdtemp(prefix="fermata-replay-")
    image_path = os.path.join(tmp, "replay.img")
    shutil.copy(os.path.join(work, "base.img"), image_path)
    results = []
    failing_dir = os.path.join(work, "failing")
    version = 0  # writes applied so far: prefixes with the same disk share one extraction
    extracted = {}
    with open(os.path.join(work, "log.img"), "rb") as log, open(image_path, "r+b") as image:
        applied = 0
        for point in points:
            while applied <= point:
                e = entries[applied]
                if "data_at" in e or e["flags"] & DISCARD:
                    apply_entry(log, image, e)
                    version += 1
                applied += 1
            image.flush()
            # The newest mark before this prefix: which answers the disk must reflect.
            before = [m for m in marks if m["i"] < point]
            seq = 0
            for m in before:
                if m["mark"].startswith("ok-"):
                    seq = int(m["mark"].split("-")[1])
            t_mark = mark_time(before[-1]["mark"]) if before else None
            after_marks = [m for m in marks if m["i"] > point and mark_time(m["mark"])]
            t_next = mark_time(after_marks[0]["mark"]) if after_marks else None
            if version not in extracted:
                extracted[version] = check_disk(image_path, tmp)
            disk = extracted[version]
            r = judge_prefix(point, entries[point], seq, t_mark, t_next, disk, session)
            results.append(r)
            if a.keep_failing and any(v == "FAIL" for v in r["checks"].values()):
                os.makedirs(failing_dir, exist_ok=True)
                shutil.copy(image_path, os.path.join(failing_dir, "prefix-%06d.img" % point))
    shutil.rmtree(tmp)
    with open(os.path.join(work, "replay.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    print_table(results, a.every_write)
    return 1 if any(v == "FAIL" for r in results for v in r["checks"].values()) else 0


def check_disk(image_path, tmp):
    """fsck a copy of the disk as a boot would, take the state files out, read them."""
    copy = os.path.join(tmp, "check.img")
    subprocess.run(["cp", "--sparse=always", image_path, copy], check=True)
    preen = run(["e2fsck", "-p", copy])
    full = run(["e2fsck", "-fn", copy])
    root = os.path.join(tmp, "root")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    run(["debugfs", "-R", "rdump / %s" % root, copy])
    disk = {"preen": preen, "full": full}
    disk["integrity"] = judge.integrity(os.path.join(root, "library.sqlite"))
    disk["state"] = fermata_offline(root)
    disk["position"] = judge.fermata_saved_position(root) if os.path.exists(os.path.join(root, "library.sqlite")) \
        else (None, None, "no database")
    disk["tmp_playlists"] = sorted(n for n in os.listdir(os.path.join(root, "playlists"))
                                   if n.endswith(".tmp")) if os.path.isdir(os.path.join(root, "playlists")) else []
    os.unlink(copy)
    return disk


def judge_prefix(point, entry, seq, t_mark, t_next, disk, session):
    r = {"prefix": point, "flags": entry["flags"], "answered": seq, "checks": {}, "notes": []}

    def verdict(name, ok, why=""):
        r["checks"][name] = "pass" if ok is True else ("n/a" if ok is None else "FAIL")
        if why and ok is not True:
            r["notes"].append("%s: %s" % (name, why))

    verdict("fs", disk["preen"] == 0 and disk["full"] == 0,
            "e2fsck -p exit %d, e2fsck -fn exit %d" % (disk["preen"], disk["full"]))
    verdict("db", disk["integrity"] == "ok", "integrity_check: %s" % disk["integrity"])
    got = disk["state"]
    if "error" in got:
        for name in ("queue", "transport", "modes", "loop", "position"):
            verdict(name, False, got["error"])
        return r
    state, accepted = session.acknowledged(seq)
    wants = [a.get("queue") for a in accepted]
    if judge.UNK in wants:
        verdict("queue", None, "unknown")
    else:
        have = got["queue"]
        ok = any(have == w or (isinstance(w, tuple) and w[0] == "perm" and tuple(sorted(have)) == w[1]) for w in wants)
        verdict("queue", ok, "on disk %s; acknowledged %s" % (have, " or ".join(map(str, wants))))
    for name, keys in (("transport", ["transport"]), ("modes", ["volume", "repeat", "random", "single", "consume"])):
        wants = [tuple(a.get(k, judge.UNK) for k in keys) for a in accepted]
        have = tuple(got.get(k) for k in keys)
        if any(judge.UNK in w for w in wants):
            verdict(name, None, "unknown")
        else:
            verdict(name, have in wants, "on disk %s; acknowledged %s" % (have, " or ".join(map(str, wants))))
    wants = [a.get("loop", judge.UNK) for a in accepted]
    if judge.UNK in wants:
        verdict("loop", None, "unknown")
    else:
        verdict("loop", any(same_loop(got["loop"], w) for w in wants),
                "on disk %s; acknowledged %s" % (got["loop"], " or ".join(map(str, wants))))
    pl = [a.get("playlists") for a in accepted]
    if judge.UNK in pl:
        verdict("playlists", None, "unknown")
    else:
        bad = []
        for name in sorted(set(got["playlists"]) | {n for w in pl for n in w}):
            if got["playlists"].get(name) not in [w.get(name) for w in pl]:
                bad.append("%s: on disk %s, acknowledged %s" % (name, got["playlists"].get(name),
                                                                " or ".join(str(w.get(name)) for w in pl)))
        verdict("playlists", not bad, "; ".join(bad))
    # position
    if t_mark is None:
        verdict("position", None, "no mark yet")
        return r
    where = session.position(t_mark, t_next, seq)
    if isinstance(where, str):
        verdict("position", None, where)
        return r
    song, low, high = where
    entry_id, seconds, source = disk["position"]
    if seconds is None:
        verdict("position", False, "no saved position: %s" % source)
        return r
    loss = low - seconds
    r["position_loss_s"] = round(loss, 3)
    ok = entry_id == song and loss <= judge.POSITION_LIMIT and seconds - high <= judge.AHEAD_LIMIT
    verdict("position", ok, "entry %s (heard %s), saved %.3f s, heard %.3f-%.3f s (lost at least %.3f s) from %s" % (
        entry_id, song, seconds, low, high, loss, source))
    if entry_id != song:
        r.pop("position_loss_s")
    return r


def print_table(results, every_write):
    print("| check: failed / checked | crash states (%s) |" % ("every write" if every_write else "every flush"))
    print("|---|---|")
    print("| prefixes | %d |" % len(results))
    for c in CHECKS:
        values = [r["checks"].get(c, "n/a") for r in results]
        fails = values.count("FAIL")
        checked = fails + values.count("pass")
        print("| %s | %s |" % (c, "%d / %d" % (fails, checked) if checked else "n/a"))
    losses = [r["position_loss_s"] for r in results if "position_loss_s" in r]
    print("| worst position loss (lower bound) | %s |" % ("%.2f s" % max(losses) if losses else "n/a"))
    shown = 0
    for r in results:
        fails = [c for c, v in r["checks"].items() if v == "FAIL"]
        if fails and shown < 15:
            shown += 1
            print("prefix %d (after answer %d): FAIL %s" % (r["prefix"], r["answered"], ",".join(fails)),
                  file=sys.stderr)
            for note in r["notes"]:
                if note.split(":")[0] in fails:
                    print("    " + note, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
