#!/usr/bin/python3
"""Judges the power cuts of a campaign (campaign.sh), on the host; replay.py uses its state model too.

    judge.py --cut I WORK       judge cut I (the session of WORK/run-I against what WORK/run-(I+1) found);
                                writes WORK/results/cut-III.json and prints one line
    judge.py --table WORK...    the table of every judged cut (several WORK folders: one table each, side by side)

What the client saw (client.jsonl of the session's run): every command with the moment its OK arrived, and the state
read back after it. The acknowledged state at the cut is the state read back after the last answered command; when
the cut came between that OK and the read-back, the command's effect is predicted from the state before it (queue
edits, modes, volume, transport, loop, tempo, stored playlists; a `shuffle` is then any order of the same entries).
A command sent but not answered may or may not have taken effect: both states are accepted (for fermatad a command
list is all or nothing; for MPD any prefix of it). What the restart shows (client.jsonl of the next run: read as soon
as the daemon answers and again after it settled) must be one of the accepted states.

Checks (each: pass, FAIL, or n/a when it does not apply or the log cannot decide):
  fs          e2fsck -p (replaying the journal) then e2fsck -fn find nothing to correct
  db          fermatad: PRAGMA integrity_check of the state database as the cut left it, and no database moved
              aside at start; MPD: its database (tag_cache) reads and the sticker database passes integrity_check
  queue       the queue's files in order equal an accepted state
  transport   play / pause / stop equal an accepted state (with the default resume policy both keep it)
  modes       volume, repeat, random, single and consume equal an accepted state
  loop        (fermatad) the A-B loop equals an accepted state
  tempo       (fermatad) the tempo equals an accepted state (only when a track is entered: playing or paused)
  position    the saved position (fermatad: the newer of the database row and the position file; MPD: the state
              file) is on the song that played and at most 2.5 s behind where it was heard at the cut (and not more
              than 1 s ahead); n/a when stopped or when a command that moves the position was in flight
  playlists   every stored playlist equals an accepted version of it (absent, old or new), never a mix or empty
  practice    (fermatad) the practice total after the restart is not more than before the session plus the time
              that passed (session and restart)
  start       the daemon answered within 30 s and resumed: the restored song playing or paused as saved
"""
import argparse
import glob
import gzip
import json
import os
import re
import shutil
import sqlite3
import struct
import sys
import tempfile

UNK = "?"
CHECKS = ["fs", "db", "queue", "transport", "modes", "loop", "tempo", "position", "playlists", "practice", "start"]
POSITION_LIMIT = 2.5
AHEAD_LIMIT = 1.0
# How long fermatad may take to answer after the cut (seconds). The campaign's claim is 30 s; CI's slice runs its TCG
# VM beside the whole suite and allows more (START_LIMIT_S), since there the time is the host's load, not fermatad's
# (a CI-like run: 31.4 s, while the table's slowest start is still printed for the campaign to judge).
START_LIMIT = float(os.environ.get("START_LIMIT_S", "30"))


def events(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, "rb") as f:
        for raw in f:
            try:
                out.append(json.loads(raw))
            except ValueError:
                pass  # a line the cut tore (it never is: 9p writes are whole)
    return out


def words(line):
    return re.findall(r'"((?:[^"\\]|\\.)*)"|(\S+)', line)


def argv(line):
    return [a.replace('\\"', '"').replace("\\\\", "\\") if a else b for a, b in words(line)]


# ---- the state a client sees, and how a command changes it --------------------------------------------------------

def state_of(obs, previous=None):
    s = obs["status"]
    state = dict(previous or {})
    state["queue"] = list(obs["queue"])
    state["ids"] = list(obs["ids"])
    state["transport"] = s.get("state", UNK)
    state["volume"] = s.get("volume", UNK)
    for mode in ("repeat", "random", "single", "consume"):
        state[mode] = s.get(mode, UNK)
    loop = obs.get("loop")
    if loop is not None:
        state["tempo"] = loop.get("tempo", UNK)
        state["loop"] = (round(float(loop["loop_start"]), 2), round(float(loop["loop_end"]), 2)) \
            if "loop_start" in loop else None
    if "playlists" in obs:
        state["playlists"] = {k: list(v) for k, v in obs["playlists"].items()}
    state.setdefault("playlists", UNK)
    state["song"] = int(s["song"]) if "song" in s else None
    return state


def current_file(state):
    song = state.get("song")
    q = state.get("queue")
    if song is None or q in (UNK, None) or isinstance(q, tuple) or song >= len(q):
        return None
    return q[song]


def apply(state, line):
    """The state after LINE succeeded, as far as it can be told; unknown parts become UNK."""
    s = dict(state)
    a = argv(line)
    if not a:
        return s
    name, args = a[0], a[1:]
    q = s.get("queue")
    known_queue = isinstance(q, list)
    q = list(q) if known_queue else q
    ids = list(s.get("ids") or [])
    if known_queue and len(ids) != len(q):
        ids = [None] * len(q)

    def drop_current_if(indexes):
        song = s.get("song")
        if song is not None and song in indexes:
            s["transport"] = UNK
            s["song"] = None
        elif song is not None:
            s["song"] = song - sum(1 for i in indexes if i < song)

    try:
        if name in ("add", "addid"):
            if known_queue:
                q.append(args[0])
                ids.append(None)
        elif name == "delete":
            if known_queue:
                if ":" in args[0]:
                    lo, hi = (int(x) for x in args[0].split(":"))
                else:
                    lo = int(args[0])
                    hi = lo + 1
                gone = list(range(lo, min(hi, len(q))))
                drop_current_if(gone)
                del q[lo:hi]
                del ids[lo:hi]
        elif name == "deleteid":
            if known_queue:
                if int(args[0]) in ids:
                    i = ids.index(int(args[0]))
                    drop_current_if([i])
                    del q[i]
                    del ids[i]
                else:
                    q = UNK
        elif name in ("move", "moveid"):
            if known_queue:
                if name == "moveid":
                    i = ids.index(int(args[0])) if int(args[0]) in ids else None
                else:
                    i = int(args[0])
                if i is None:
                    q = UNK
                else:
                    j = int(args[1])
                    f, d = q.pop(i), ids.pop(i)
                    q.insert(j, f)
                    ids.insert(j, d)
                    song = s.get("song")
                    if song is not None:
                        order = list(range(len(q)))
                        moved = order.pop(i)
                        order.insert(j, moved)
                        s["song"] = order.index(song)
        elif name == "swap":
            if known_queue:
                i, j = int(args[0]), int(args[1])
                q[i], q[j] = q[j], q[i]
                ids[i], ids[j] = ids[j], ids[i]
                song = s.get("song")
                if song == i:
                    s["song"] = j
                elif song == j:
                    s["song"] = i
        elif name == "shuffle":
            if known_queue:
                q = ("perm", tuple(sorted(q)))
                s["song"] = None
        elif name == "clear":
            q, ids = [], []
            known_queue = True
            s["transport"] = "stop"
            s["song"] = None
        elif name == "play":
            if known_queue and q:
                s["transport"] = "play"
                if args:
                    s["song"] = int(args[0])
            elif not known_queue:
                s["transport"] = UNK
        elif name == "pause":
            if s.get("transport") == "stop":
                s["transport"] = UNK
            elif args:
                s["transport"] = "pause" if args[0] == "1" else "play"
            else:
                s["transport"] = {"play": "pause", "pause": "play"}.get(s.get("transport"), UNK)
        elif name == "stop":
            s["transport"] = "stop"
        elif name in ("next", "previous"):
            s["song"] = None
            if s.get("consume") != "0":
                q = UNK
            s["transport"] = UNK if s.get("transport") == "stop" else s.get("transport")
            if s.get("repeat") != "1" or s.get("random") != "0":
                s["transport"] = UNK  # the end of the queue stops it
        elif name in ("seek", "seekcur", "seekid"):
            pass
        elif name == "setvol":
            s["volume"] = str(int(args[0]))
        elif name in ("repeat", "random", "single", "consume"):
            s[name] = args[0]
        elif name == "loop_set":
            s["loop"] = (round(float(args[0]), 2), round(float(args[1]), 2))
        elif name == "loop_clear":
            s["loop"] = None
        elif name == "tempo":
            # fermatad rounds to 5 % steps within 50-150 % (PlayerModes), half away from zero
            t = s.get("tempo")
            step = lambda p: str(min(150, max(50, int(p / 5 + (0.5 if p >= 0 else -0.5)) * 5)))
            if args[0][0] in "+-":
                s["tempo"] = step(int(t) + int(args[0])) if t not in (UNK, None) else UNK
            else:
                s["tempo"] = step(int(args[0]))
        elif name in ("save", "rm", "playlistadd", "playlistdelete", "playlistclear"):
            p = s.get("playlists")
            if p != UNK:
                p = dict(p)
                pl = args[0]
                if name == "save":
                    if pl not in p:
                        p[pl] = list(q) if known_queue else UNK
                elif name == "rm":
                    p.pop(pl, None)
                elif name == "playlistadd":
                    p[pl] = list(p.get(pl, [])) + [args[1]] if p.get(pl, []) != UNK else UNK
                elif name == "playlistdelete":
                    pos = int(args[1])
                    if pl in p and p[pl] != UNK and pos < len(p[pl]):
                        p[pl] = p[pl][:pos] + p[pl][pos + 1:]
                elif name == "playlistclear":
                    p[pl] = []
                s["playlists"] = p
        elif name in ("update", "rescan", "status", "ping"):
            pass
        else:
            for key in ("queue", "transport", "volume", "repeat", "random", "single", "consume", "loop", "tempo",
                        "playlists"):
                s[key] = UNK
            s["song"] = None
    except (ValueError, IndexError):
        q = UNK
    s["queue"] = q if known_queue or q == UNK else s.get("queue")
    s["ids"] = ids if isinstance(s["queue"], list) else []
    return s


def apply_step(state, step, upto=None):
    lines = step.get("list") or [step["cmd"]]
    for line in lines[:upto]:
        state = apply(state, line)
    return state


def failed_index(ack):
    m = re.match(r"ACK \[\d+@(\d+)\]", ack or "")
    return int(m.group(1)) if m else 0


# Commands that can make another queue entry current (so fermatad's practice memory of it may apply), and how long
# after its answer that can take.
ENTERING_WORDS = {"play", "playid", "next", "previous", "seek", "seekid"}
MEMORY_WINDOW_S = 2.5


def enters_track(step):
    lines = step.get("list") or [step.get("cmd") or ""]
    return any((line.split() or [""])[0] in ENTERING_WORDS for line in lines)


POSITION_WORDS = {"play", "playid", "pause", "stop", "seek", "seekcur", "seekid", "next", "previous", "delete",
                  "deleteid", "clear", "loop_set", "loop_clear", "tempo"}


def moves_position(step):
    return any(argv(line)[0] in POSITION_WORDS for line in (step.get("list") or [step["cmd"]]) if argv(line))


# ---- reading what the cut left ------------------------------------------------------------------------------------

def fermata_saved_position(raw):
    """(entry, seconds, source) as fermatad's loadHead picks it: the newer of player_state and the position file."""
    db = os.path.join(raw, "library.sqlite")
    if not os.path.exists(db):
        return None, None, "no database"
    with tempfile.TemporaryDirectory() as tmp:
        for f in glob.glob(db + "*"):
            if not f.endswith("-shm"):
                shutil.copy(f, tmp)
        con = sqlite3.connect(os.path.join(tmp, "library.sqlite"))
        try:
            row = con.execute("SELECT current_entry, position_frames, sample_rate, position_seq, transport "
                              "FROM player_state WHERE id = 1").fetchone()
        except sqlite3.Error as error:
            return None, None, "player_state: %s" % error
        finally:
            con.close()
    best = None
    path = db + "-position"
    if os.path.exists(path):
        data = open(path, "rb").read()
        for offset in (0, 512, 4096):
            rec = data[offset:offset + 48]
            if len(rec) < 48:
                continue
            magic, seq, entry, frame, rate, check = struct.unpack("<6Q", rec)
            h = 0xcbf29ce484222325
            for byte in rec[:40]:
                h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
            if magic == 0x31534F504D524546 and h == check and (best is None or seq > best[0]):
                best = (seq, entry, frame, rate)
    if row is None:
        return None, None, "no player_state row"
    entry, frames, rate, seq, transport = row
    seq &= 0xFFFFFFFFFFFFFFFF
    if best and best[0] > seq:
        return best[1], best[2] / max(best[3], 1), "position file (seq %d > %d)" % (best[0], seq)
    return entry, frames / max(rate, 1), "database (seq %d%s)" % (seq, ", file %d" % best[0] if best else ", no file record")


def mpd_state_file(raw):
    path = os.path.join(raw, "state")
    if not os.path.exists(path):
        return None
    out = {"playlist": []}
    inside = False
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line == "playlist_begin":
            inside = True
        elif line == "playlist_end":
            inside = False
        elif inside:
            out["playlist"].append(line.split(":", 1)[1] if ":" in line else line)
        elif ": " in line:
            k, v = line.split(": ", 1)
            out[k] = v
    return out


def integrity(path):
    if not os.path.exists(path):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        for f in glob.glob(path + "*"):
            if not f.endswith("-shm"):
                shutil.copy(f, tmp)
        try:
            con = sqlite3.connect(os.path.join(tmp, os.path.basename(path)))
            result = [r[0] for r in con.execute("PRAGMA integrity_check")]
            con.close()
            return "ok" if result == ["ok"] else "; ".join(result[:5])
        except sqlite3.Error as error:
            return str(error)


# ---- judging one cut ----------------------------------------------------------------------------------------------

def extrapolate(position, seconds, tempo, loop):
    p = position + seconds * tempo
    if loop and position < loop[1] and p >= loop[1] and loop[1] > loop[0]:
        p = loop[0] + (p - loop[1]) % (loop[1] - loop[0])
    return p


def judge(work, cut):
    session_run = os.path.join(work, "run-%03d" % cut)
    check_run = os.path.join(work, "run-%03d" % (cut + 1))
    ev = events(os.path.join(session_run, "client.jsonl"))
    after = events(os.path.join(check_run, "client.jsonl"))
    daemon = next((e["argv"][0] for e in ev if e["ev"] == "exec"), "")
    fermata = not daemon.endswith("mpd")
    r = {"cut": cut, "daemon": "fermatad" if fermata else "mpd", "checks": {}, "notes": []}
    checks = r["checks"]

    def verdict(name, ok, why=""):
        checks[name] = "pass" if ok is True else ("n/a" if ok is None else "FAIL")
        if why and ok is not True:
            r["notes"].append("%s: %s" % (name, why))

    # The session: the state after the last answered command, and the command in flight.
    start = next((i for i, e in enumerate(ev) if e["ev"] == "session"), None)
    cut_ev = next((e for e in ev if e["ev"] == "cut"), None)
    if start is None or cut_ev is None:
        r["notes"].append("run: the session did not reach its cut (%s)" % os.path.join(session_run, "client.jsonl"))
        for name in CHECKS:
            checks[name] = "n/a"
        r["run_failed"] = True
        return r
    base = None
    for e in ev[:start]:
        if e["ev"] == "obs":
            base = e
    state = state_of(base)
    steps = {}
    last_obs = base
    last_position_obs = base
    answered = None  # the newest answered step
    unobserved = []  # answered steps since the newest read-back
    inflight = None
    for e in ev[start:]:
        if e["ev"] == "send":
            steps[e["seq"]] = e
            inflight = e
        elif e["ev"] == "reply":
            step = steps[e["seq"]]
            step["reply"] = e
            inflight = None
            if e["ok"]:
                state = apply_step(state, step)
            elif step.get("list"):
                state = apply_step(state, step, failed_index(e["ack"]))
            answered = step
            unobserved.append(step)
        elif e["ev"] == "obs":
            state = state_of(e, state)
            last_obs = e
            unobserved = []
        elif e["ev"] == "cut":
            r["control"] = bool(e.get("control"))
        elif e["ev"] == "client_error" and "control" not in r:
            r["notes"].append("client error before the cut: %s" % e["error"])
    # The power went off after the timer fired and after the last line the client logged (a control run's stop is
    # its SIGTERM, when the timer fired).
    t_end = cut_ev["t"] if cut_ev.get("control") else max(e["t"] for e in ev)
    r["cut_after_session_s"] = round(cut_ev["t"] - ev[start]["t"], 3)
    r["last_answered"] = (answered or {}).get("cmd") or (answered or {}).get("list")
    r["in_flight"] = inflight and (inflight.get("cmd") or inflight.get("list"))
    r["answered_not_read_back"] = [s.get("cmd") or s.get("list") for s in unobserved]

    accepted = [state]
    if inflight is not None:
        lines = inflight.get("list")
        if lines and not fermata:
            accepted += [apply_step(state, inflight, n) for n in range(1, len(lines) + 1)]
        else:
            accepted.append(apply_step(state, inflight))

    # The restart.
    first = next((e for e in after if e.get("tag") == "check_first"), None)
    settled = next((e for e in after if e.get("tag") == "check_settled"), None)
    exec_ev = next((e for e in after if e["ev"] == "exec"), None)
    ready = next((e for e in after if e["ev"] == "ready"), None)
    raw = os.path.join(check_run, "raw")
    daemon_log = open(os.path.join(check_run, "daemon.log"), errors="replace").read() \
        if os.path.exists(os.path.join(check_run, "daemon.log")) else ""

    # fs
    try:
        preen = int(open(os.path.join(check_run, "fsck-preen.rc")).read())
        full = int(open(os.path.join(check_run, "fsck-full.rc")).read())
        verdict("fs", preen == 0 and full == 0, "e2fsck -p exit %d, e2fsck -fn exit %d" % (preen, full))
    except (OSError, ValueError):
        verdict("fs", None, "no fsck result")

    # db
    if fermata:
        result = integrity(os.path.join(raw, "library.sqlite"))
        moved = re.search(r"damaged|moved aside", daemon_log)
        verdict("db", result == "ok" and not moved,
                "integrity_check: %s%s" % (result, "; log: " + moved.group(0) if moved else ""))
    else:
        problems = []
        tag_cache = os.path.join(raw, "tag_cache")
        if os.path.exists(tag_cache):
            try:
                with open(tag_cache, "rb") as f:
                    head = f.read(2)
                data = gzip.open(tag_cache).read() if head == b"\x1f\x8b" else open(tag_cache, "rb").read()
                if b"info_begin" not in data[:200] or b"info_end" not in data:
                    problems.append("tag_cache has no info block")
            except (OSError, EOFError) as error:
                problems.append("tag_cache: %s" % error)
        sticker = integrity(os.path.join(raw, "sticker.sql"))
        if sticker not in (None, "ok"):
            problems.append("sticker.sql: %s" % sticker)
        if re.search(r"(?i)corrupt|failed to load database", daemon_log):
            problems.append("log: database not loaded")
        verdict("db", not problems, "; ".join(problems))

    if settled is None or first is None:
        r["notes"].append("restart: the daemon did not answer (see %s)" % check_run)
        for name in ("queue", "transport", "modes", "loop", "tempo", "playlists", "practice"):
            verdict(name, None)
        verdict("start", False, "no answer: %s" % next((e for e in after if e["ev"] in ("not_ready", "daemon_exited")),
                                                        "no client log"))
        verdict("position", None)
        return r
    got = state_of(settled)
    got_first = state_of(first)

    def compare(name, keys, applies=True):
        if not applies:
            return verdict(name, None)
        wants = []
        for a in accepted:
            value = tuple(a.get(k, UNK) for k in keys)
            if UNK in value:
                return verdict(name, None, "the log cannot tell the acknowledged %s" % "/".join(keys))
            wants.append(value)
        have = tuple(got.get(k) for k in keys)
        ok = have in wants
        verdict(name, ok, "restored %s, acknowledged %s" % (have, " or ".join(map(str, wants))))

    # queue
    wants = []
    for a in accepted:
        q = a.get("queue")
        wants.append(q if not isinstance(q, list) else tuple(q))
    if UNK in wants:
        verdict("queue", None, "the log cannot tell the acknowledged queue")
    else:
        have = tuple(got["queue"])
        ok = any(have == w or (isinstance(w, tuple) and len(w) == 2 and w[0] == "perm" and tuple(sorted(have)) == w[1])
                 for w in wants)
        if not ok:
            older = [i for i, e in enumerate(ev) if e["ev"] == "obs" and tuple(e["queue"]) == have]
            verdict("queue", False, "restored %d entries %s; acknowledged %s%s" % (
                len(have), list(have), " or ".join(str(list(w)) for w in wants),
                " (an OLDER acknowledged queue)" if older else ""))
        else:
            verdict("queue", True)

    compare("transport", ["transport"])
    compare("modes", ["volume", "repeat", "random", "single", "consume"])
    # fermatad's practice memory: entering a track restores the loop and tempo last used on it, within a second or
    # two of the command (the recorder sees the change, then applies and saves it). A command that may have entered a
    # track shortly before the cut leaves the loop and tempo undecided: the acknowledged ones, or that track's memory.
    entering = [s for s in steps.values()
                if (s.get("reply") or {}).get("ok", s is inflight) and enters_track(s)
                and (s.get("reply") or {"t": t_end})["t"] >= t_end - MEMORY_WINDOW_S]
    why = entering and "a track was entered %.1f s before the cut (%s): its practice memory may apply" % (
        t_end - (entering[-1].get("reply") or {"t": t_end})["t"], entering[-1].get("cmd") or "a command list")
    entered = all(a.get("transport") in ("play", "pause") for a in accepted)
    for name, applies in (("loop", fermata), ("tempo", fermata and entered)):
        compare(name, [name], applies)
        if fermata and why and checks.get(name) == "FAIL":
            checks[name] = "n/a"  # either is right: the acknowledged value, or the entered track's memory
            r["notes"].append("%s: %s" % (name, why))

    # playlists
    pl_wants = [a.get("playlists") for a in accepted]
    if UNK in pl_wants:
        verdict("playlists", None, "the log cannot tell the acknowledged playlists")
    else:
        names = set(got.get("playlists", {})) | {n for w in pl_wants for n in w}
        bad = []
        for n in sorted(names):
            have = got["playlists"].get(n)
            options = [w.get(n) for w in pl_wants]
            if have not in options:
                bad.append("%s: restored %s, acknowledged %s" % (n, have, " or ".join(map(str, options))))
        leftovers = [os.path.basename(p) for p in glob.glob(os.path.join(raw, "playlists", "*.tmp"))]
        if leftovers:
            r["notes"].append("playlists: temporary files left by the cut: %s" % leftovers)
        verdict("playlists", not bad, "; ".join(bad))

    # position
    pos_obs = last_obs
    s = pos_obs["status"]
    movers = [st for st in unobserved + ([inflight] if inflight else []) if moves_position(st)]
    expected_transport = {a.get("transport") for a in accepted}
    if movers:
        verdict("position", None, "a command that moves the position was in flight or not read back: %s" %
                [m.get("cmd") or m.get("list") for m in movers])
    elif s.get("state") not in ("play", "pause") or expected_transport - {"play", "pause"}:
        verdict("position", None, "stopped")
    else:
        heard = float(s.get("elapsed", 0))
        tempo = float((pos_obs.get("loop") or {}).get("tempo", 100)) / 100
        loop = state_of(pos_obs).get("loop")
        if s["state"] == "play":
            expected = extrapolate(heard, t_end - pos_obs["ts"], tempo, loop)
        else:
            expected = heard
        song_file = pos_obs["queue"][int(s["song"])] if "song" in s and int(s["song"]) < len(pos_obs["queue"]) else None
        if fermata:
            entry, seconds, source = fermata_saved_position(raw)
            same = entry == int(s.get("songid", -1))
            what = "entry %s (heard entry %s)" % (entry, s.get("songid"))
        else:
            st = mpd_state_file(raw)
            if st is None:
                entry, seconds, source, same, what = None, None, "no state file", False, "no state file"
            else:
                cur = int(st.get("current", -1))
                f = st["playlist"][cur] if 0 <= cur < len(st["playlist"]) else None
                seconds = float(st.get("time", 0))
                same = f == song_file
                source = "state file"
                what = "%s (heard %s)" % (f, song_file)
        if seconds is None:
            verdict("position", False, "no saved position: %s" % source)
        else:
            loss = expected - seconds
            r["position_loss_s"] = round(loss, 3)
            r["position_source"] = source
            ok = same and -AHEAD_LIMIT <= loss <= POSITION_LIMIT
            verdict("position", ok, "%s; heard %.3f s at the cut, saved %.3f s (lost %.3f s) from %s" % (
                what, expected, seconds, loss, source))
            if not same:
                r.pop("position_loss_s", None)

    # practice
    if fermata:
        before = next((e for e in ev if e.get("tag") == "session_start"), None)
        p0 = (before or {}).get("practice") or {}
        p1 = first.get("practice") or {}
        if not p0 or not p1 or p0.get("from") != p1.get("from"):
            verdict("practice", None, "no practice totals, or a new day")
        else:
            limit = float(p0["total"]) + (t_end - before["t"]) + (first["t"] - exec_ev["t"]) + 1.0
            verdict("practice", float(p1["total"]) <= limit,
                    "total %.3f s after the restart, at most %.3f s could have been played" % (float(p1["total"]), limit))
    else:
        verdict("practice", None)

    # start
    problems = []
    if ready is None or ready["after"] > START_LIMIT:
        problems.append("answered after %s s" % (ready or {}).get("after"))
    if got_first["transport"] not in {a.get("transport") for a in accepted} and UNK not in expected_transport:
        problems.append("state %s at the first answer" % got_first["transport"])
    if "play" in expected_transport or "pause" in expected_transport:
        want_file = current_file(state)
        if want_file and current_file(got_first) != want_file and all(current_file(a) for a in accepted) \
                and current_file(got_first) not in {current_file(a) for a in accepted}:
            problems.append("resumed %s, not %s" % (current_file(got_first), want_file))
    r["ready_s"] = ready and round(ready["after"], 3)
    verdict("start", not problems, "; ".join(problems))
    return r


# ---- the table ----------------------------------------------------------------------------------------------------

def table(works):
    columns = []
    for work in works:
        results = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(work, "results", "cut-*.json")))]
        if not results:
            continue
        daemon = results[0]["daemon"]
        control = " control: clean stops" if any(r.get("control") for r in results) else ""
        col = {"name": "%s%s (%s)" % (daemon, control, os.path.basename(work.rstrip("/"))), "cuts": len(results)}
        col["runs failed"] = sum(1 for r in results if r.get("run_failed"))
        for c in CHECKS:
            values = [r["checks"].get(c, "n/a") for r in results if not r.get("run_failed")]
            fails = values.count("FAIL")
            checked = values.count("pass") + fails
            col[c] = "n/a" if checked == 0 else "%d / %d" % (fails, checked)
        losses = [r["position_loss_s"] for r in results if "position_loss_s" in r]
        col["worst position loss"] = "%.2f s" % max(losses) if losses else "n/a"
        ready = [r["ready_s"] for r in results if r.get("ready_s") is not None]
        col["slowest start"] = "%.1f s" % max(ready) if ready else "n/a"
        columns.append(col)
    status = 0
    for col in columns:
        if any(str(col[c]).startswith(tuple("123456789")) for c in CHECKS):
            status = max(status, 1)
        if col["runs failed"]:
            status = 2
    rows = ["cuts", "runs failed"] + CHECKS + ["worst position loss", "slowest start"]
    print("| check: failed / checked | " + " | ".join(c["name"] for c in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for row in rows:
        print("| %s | " % row + " | ".join(str(c.get(row, "")) for c in columns) + " |")
    return status if columns else 2


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cut", type=int)
    p.add_argument("--table", action="store_true")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("work", nargs="+")
    a = p.parse_args()
    if a.table:
        sys.exit(table(a.work))
    work = a.work[0]
    r = judge(work, a.cut)
    os.makedirs(os.path.join(work, "results"), exist_ok=True)
    with open(os.path.join(work, "results", "cut-%03d.json" % a.cut), "w") as f:
        json.dump(r, f, indent=1, default=str)
    fails = [c for c, v in r["checks"].items() if v == "FAIL"]
    loss = r.get("position_loss_s")
    print("cut %d (%s, %.1f s into the session): %s%s" % (
        a.cut, r["daemon"], r.get("cut_after_session_s", 0), "FAIL " + ",".join(fails) if fails else "ok",
        "" if loss is None else ", position lost %.2f s" % loss))
    for note in r["notes"]:
        if a.verbose or any(note.startswith(c + ":") for c in fails) or note.startswith(("run", "client", "restart")):
            print("    " + note)


if __name__ == "__main__":
    main()
