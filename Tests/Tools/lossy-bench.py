#!/usr/bin/python3
"""Fermata beside MPD on lossy formats, in one run (issue 23's benchmark).

Measures, for MPD (Debian's mpd) and fermatad on the same files:
  scan   first `update` of an empty database and no-change `update`s of a generated MP3 library (--tracks, default
         20,000) and M4A/AAC library (--m4a, default 5,000): time from sending `update` to `status` without
         `updating_db` (polled every --poll s, as the mpd-compare harness does); VmRSS/RssAnon/RssFile/VmHWM after each
  cpu    CPU seconds (utime+stime of the daemon, /proc/PID/stat) per audio second, playing one long MP3, M4A (AAC-LC)
         and Opus file (--cpu-seconds long) to the end through the ALSA `null` PCM (unpaced), and over a real-time
         window on the paced null output with --paced-window; RSS after each
  floor  the command-line decoders on the same long files (mpg123 -q -t, ffmpeg -f null, opusdec --float):
         CPU (wait4 rusage) per audio second -- what decoding alone costs

Libraries: a handful of short distinct clips, each encoded once (lame with several settings; ffmpeg -c:a aac, moov
before and after mdat), copied into ARTIST/ALBUM/NN TITLE.ext with distinct tags per copy written by python3-mutagen
(ID3v2.4 TIT2/TPE1/TPE2/TALB/TRCK/TDRC/TCON; MP4 (c)nam/(c)ART/aART/(c)alb/trkn/(c)day/(c)gen). Names come from
mpd-compare's gen-library.py; everything follows --seed. Cached under --work and reused while the parameters match.

The daemons are started by mpd-compare's bench.py (its Daemon class, MPD configuration, ALSA `benchnull` PCM and
/proc readers), MPD as that harness configures it and fermatad through the BENCH_* variables (see FERMATA_CMD).
Run it through lossy-bench.sh, which picks the binaries and checks the packages.
"""
import argparse, importlib.util, io, json, os, random, shutil, sqlite3, statistics, subprocess, sys, time

FORMAT_VERSION = 1  # bump when the generated files change, so cached libraries are rebuilt

# fermatad from the BENCH_* variables bench.py sets (as mpd-compare's daemon-mpd.sh does for MPD): paced -> `null`,
# alsa-null -> the harness's `benchnull` ALSA PCM (ALSA_CONFIG_PATH points at its asoundrc).
FERMATA_CMD = ('"$LOSSY_BENCH_FERMATAD" --config "$BENCH_STATE_DIR/fermata.toml" --music "$BENCH_MUSIC_DIR" '
               '--state "$BENCH_STATE_DIR" --listen "$BENCH_HOST:$BENCH_PORT" --socket "" --board off --resume off '
               '--output "$(case $BENCH_OUTPUT in alsa-null) echo benchnull;; *) echo null;; esac)"')
# realtime_priority = 0: MPD asks for no real-time scheduling by default, and the bench machine is shared.
FERMATA_TOML = '[audio]\nrealtime_priority = 0\n\n[log]\nlevel = "notice"\n'

# Encoder settings of the library's sources, one per clip of gen-library.py's SOURCES (duration, two tones).
# (label, lame arguments, sample rate, channels)
MP3_VARIANTS = [("CBR 128", ["-b", "128"], 44100, 2), ("VBR V2", ["-V", "2"], 44100, 2),
                ("CBR 320", ["-b", "320"], 44100, 2), ("VBR V0", ["-V", "0"], 44100, 2),
                ("CBR 192 48 kHz", ["-b", "192"], 48000, 2), ("VBR V5 mono", ["-V", "5", "-m", "m"], 44100, 1),
                ("ABR 160", ["--abr", "160"], 44100, 2)]
# (label, bitrate, sample rate, channels, moov before mdat)
M4A_VARIANTS = [("AAC 128k", "128k", 44100, 2, False), ("AAC 192k faststart", "192k", 44100, 2, True),
                ("AAC 256k", "256k", 44100, 2, False), ("AAC 160k 48 kHz", "160k", 48000, 2, False),
                ("AAC 96k mono", "96k", 44100, 1, True), ("AAC 128k faststart", "128k", 44100, 2, True),
                ("AAC 320k", "320k", 44100, 2, False)]
FORMATS = ("mp3", "m4a", "opus")
FORMAT_LABEL = {"mp3": "MP3", "m4a": "AAC (M4A)", "opus": "Opus"}

bench = genlib = None  # mpd-compare's bench.py and gen-library.py, loaded in main()
A = None


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL, **kw)


# ---------------------------------------------------------------- generated files
def synth_wav(path, seconds, f1, f2, rate, channels):
    """Two tones (one per channel, or mixed for mono), 16-bit WAV, exactly rate*seconds frames."""
    if channels == 2:
        expr = f"0.3*sin(2*PI*{f1}*t)|0.3*sin(2*PI*{f2}*t)"
    else:
        expr = f"0.15*sin(2*PI*{f1}*t)+0.15*sin(2*PI*{f2}*t)"
    run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
         "-i", f"aevalsrc=exprs='{expr}':s={rate}:d={seconds}", "-c:a", "pcm_s16le", path])


def make_sources(sdir, kind):
    """The handful of encoded clips: [(duration, label, bytes)]; cached in sdir."""
    os.makedirs(sdir, exist_ok=True)
    out = []
    variants = MP3_VARIANTS if kind == "mp3" else M4A_VARIANTS
    for i, ((dur, f1, f2), v) in enumerate(zip(genlib.SOURCES, variants)):
        dst = os.path.join(sdir, f"src{i}.{kind}")
        if not os.path.exists(dst):
            wav = os.path.join(sdir, f"src{i}-{kind}.wav")
            rate, ch = v[2], v[3]
            synth_wav(wav, dur, f1, f2, rate, ch)
            if kind == "mp3":
                run(["lame", "--quiet", *v[1], wav, dst + ".tmp"])
            else:
                flags = ["-movflags", "+faststart"] if v[4] else []
                run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", v[1],
                     "-map_metadata", "-1", "-fflags", "+bitexact", *flags, "-f", "mp4", dst + ".tmp"])
            os.rename(dst + ".tmp", dst)
            os.remove(wav)
        with open(dst, "rb") as f:
            out.append((dur, v[0], f.read()))
    return out


def tag_mp3(data, t):
    from mutagen.id3 import ID3, TALB, TCON, TDRC, TIT2, TPE1, TPE2, TRCK
    buf = io.BytesIO(data)
    tags = ID3()
    for frame in (TIT2(encoding=3, text=t["title"]), TPE1(encoding=3, text=t["artist"]),
                  TPE2(encoding=3, text=t["artist"]), TALB(encoding=3, text=t["album"]),
                  TRCK(encoding=3, text=f"{t['track']}/{t['tracks']}"), TDRC(encoding=3, text=str(t["year"])),
                  TCON(encoding=3, text=t["genre"])):
        tags.add(frame)
    tags.save(buf, v2_version=4)
    return buf.getvalue()


def tag_m4a(data, t):
    from mutagen.mp4 import MP4
    buf = io.BytesIO(data)
    m = MP4(buf)
    if m.tags is None:
        m.add_tags()
    m.tags["\xa9nam"] = [t["title"]]
    m.tags["\xa9ART"] = [t["artist"]]
    m.tags["aART"] = [t["artist"]]
    m.tags["\xa9alb"] = [t["album"]]
    m.tags["trkn"] = [(t["track"], t["tracks"])]
    m.tags["\xa9day"] = [str(t["year"])]
    m.tags["\xa9gen"] = [t["genre"]]
    buf.seek(0)
    m.save(buf)
    return buf.getvalue()


def make_library(kind, tracks, seed):
    """WORK/lib-KIND-N-sS/{music/, manifest.tsv, gen-info.json}; the manifest lives beside the music, not in it."""
    base = os.path.join(A.work, f"lib-{kind}-{tracks}-s{seed}")
    music = os.path.join(base, "music")
    params = {"kind": kind, "tracks": tracks, "seed": seed, "version": FORMAT_VERSION}
    info_path = os.path.join(base, "gen-info.json")
    if os.path.exists(info_path):
        with open(info_path) as f:
            info = json.load(f)
        if {k: info.get(k) for k in params} == params:
            return base, info
    log(f"generating the {tracks}-track {kind} library in {music}")
    t0 = time.monotonic()
    if os.path.exists(base):
        shutil.rmtree(base)
    os.makedirs(music)
    srcs = make_sources(os.path.join(A.work, "sources"), kind)
    rng = random.Random(seed)
    tagger = tag_mp3 if kind == "mp3" else tag_m4a
    manifest, made, used_artists, nbytes = [], 0, set(), 0
    while made < tracks:  # the same shape as gen-library.py's
        artist = genlib.safe(genlib.name(rng, 3))
        if artist in used_artists:
            artist += f" {len(used_artists)}"
        used_artists.add(artist)
        genre = rng.choice(genlib.GENRES)
        for _ in range(rng.randint(1, 4)):
            if made >= tracks:
                break
            album = genlib.safe(genlib.name(rng, 4))
            year = rng.randint(1960, 2024)
            os.makedirs(os.path.join(music, artist, album), exist_ok=True)
            ntr = min(rng.randint(8, 14), tracks - made)
            for tn in range(1, ntr + 1):
                title = genlib.safe(genlib.name(rng, 4))
                dur, label, data = rng.choice(srcs)
                rel = os.path.join(artist, album, f"{tn:02d} {title}.{kind}")
                out = tagger(data, {"title": title, "artist": artist, "album": album, "track": tn,
                                    "tracks": ntr, "year": year, "genre": genre})
                with open(os.path.join(music, rel), "wb") as f:
                    f.write(out)
                nbytes += len(out)
                manifest.append(f"{rel}\t{dur}\t{kind}\t{label}")
                made += 1
    with open(os.path.join(base, "manifest.tsv"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    info = dict(params, artists=len(used_artists), bytes=nbytes,
                audio_seconds=round(sum(float(l.split("\t")[1]) for l in manifest), 1),
                seconds_to_generate=round(time.monotonic() - t0, 1))
    with open(info_path, "w") as f:
        json.dump(info, f)
    log("generated", info)
    return base, info


def make_long_files(seconds, seed):
    """One long MP3 (lame -V 2), M4A (AAC-LC 192k) and Opus (128k) of `seconds`, from one signal; cached."""
    base = os.path.join(A.work, f"long-{seconds}s-s{seed}")
    music = os.path.join(base, "music")
    info_path = os.path.join(base, "gen-info.json")
    if os.path.exists(info_path):
        with open(info_path) as f:
            return base, json.load(f)
    log(f"encoding the {seconds} s long files in {music}")
    if os.path.exists(base):
        shutil.rmtree(base)
    os.makedirs(os.path.join(music, "Long"))
    wav = os.path.join(base, "long.wav")
    # gliding tones, a slow tremolo on two overtones and a little pink noise: a realistic bitrate for every encoder
    left = "0.2*sin(2*PI*(220+30*sin(2*PI*0.05*t))*t)+0.08*sin(2*PI*1760*t)*(0.5+0.5*sin(2*PI*0.5*t))"
    right = "0.2*sin(2*PI*(330+20*sin(2*PI*0.07*t))*t)+0.08*sin(2*PI*2637*t)*(0.5+0.5*sin(2*PI*0.3*t))"
    run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-filter_complex",
         f"aevalsrc=exprs='{left}|{right}':s=44100:d={seconds}[t];"
         f"anoisesrc=c=pink:a=0.04:r=44100:d={seconds}:seed={seed},pan=stereo|c0=c0|c1=c0[n];"
         "[t][n]amerge=inputs=2,pan=stereo|c0=c0+c2|c1=c1+c3[out]", "-map", "[out]", "-c:a", "pcm_s16le", wav])
    files = {}
    for kind in FORMATS:
        rel = os.path.join("Long", f"long.{kind}")
        dst = os.path.join(music, rel)
        if kind == "mp3":
            run(["lame", "--quiet", "-V", "2", "--tt", "Long MP3", "--ta", "Bench", "--tl", "Long", wav, dst])
        elif kind == "m4a":
            run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "192k",
                 "-metadata", "title=Long AAC", "-metadata", "artist=Bench", "-metadata", "album=Long", dst])
        else:
            run(["opusenc", "--quiet", "--bitrate", "128", "--serial", str(seed), "--title", "Long Opus",
                 "--artist", "Bench", "--album", "Long", wav, dst])
        files[kind] = {"rel": rel, "bytes": os.path.getsize(dst), "seconds": float(seconds)}
    os.remove(wav)
    info = {"seconds": seconds, "seed": seed, "files": files}
    with open(info_path, "w") as f:
        json.dump(info, f)
    return base, info


def read_manifest(base):
    with open(os.path.join(base, "manifest.tsv")) as f:
        return [line.rstrip("\n").split("\t")[0] for line in f if line.strip()]


# ---------------------------------------------------------------- daemons (through bench.py)
def daemon(which, state_dir, music, output="paced"):
    """A bench.Daemon for `which` ('mpd' | 'fermata'); bench.py reads its ARGS when starting it."""
    bench.ARGS.daemon = "mpd" if which == "mpd" else "custom"
    bench.ARGS.daemon_cmd = None if which == "mpd" else FERMATA_CMD
    if which == "fermata":
        with open(os.path.join(state_dir, "fermata.toml"), "w") as f:
            f.write(FERMATA_TOML)
    return bench.Daemon(state_dir, music, A.port, output=output)


def start(which, d):
    bench.ARGS.daemon = "mpd" if which == "mpd" else "custom"
    bench.ARGS.daemon_cmd = None if which == "mpd" else FERMATA_CMD
    d.start()
    return d.connect(timeout=60)


def update_polled(c, timeout=3600.0):
    """`update`, then `status` every --poll s until updating_db is gone; seconds from sending `update`."""
    t0 = time.monotonic()
    c.update()
    while "updating_db" in c.status():
        if time.monotonic() - t0 > timeout:
            raise TimeoutError("update did not end")
        time.sleep(A.poll)
    return time.monotonic() - t0


def fermata_scan_report(c):
    try:
        return c.scan_status()
    except Exception as ex:  # an older fermatad
        return {"error": repr(ex)}


def fermata_issues(state_dir, limit=20):
    db = os.path.join(state_dir, "library.sqlite")
    if not os.path.exists(db):
        return None
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        n = con.execute("SELECT count(*) FROM scan_issue").fetchone()[0]
        rows = con.execute("SELECT path, kind, reason FROM scan_issue ORDER BY path LIMIT ?", (limit,)).fetchall()
        con.close()
        return {"count": n, "first": rows}
    except sqlite3.Error as ex:
        return {"error": repr(ex)}


def missing_songs(c, base, limit=10):
    have = {x["file"] for x in c.listall() if "file" in x}
    want = read_manifest(base)
    miss = [u for u in want if u not in have]
    return {"missing": len(miss), "first_missing": miss[:limit], "extra": len(have - set(want))}


def check_songs(c, base, limit=5):
    """Tags and durations as the daemon reports them against what was written: title, artist, album and track
    number from the file's path (they are the same strings), duration within 50 ms of the source clip's."""
    want = {}
    with open(os.path.join(base, "manifest.tsv")) as f:
        for line in f:
            if line.strip():
                rel, dur = line.rstrip("\n").split("\t")[:2]
                artist, album, fn = rel.split(os.sep)
                want[rel] = {"artist": artist, "album": album, "title": os.path.splitext(fn)[0][3:],
                             "track": int(fn[:2]), "duration": float(dur)}
    tags, durs = [], []
    for song in c.listallinfo():
        w = want.get(song.get("file"))
        if w is None:
            continue
        got = {"artist": song.get("artist"), "album": song.get("album"), "title": song.get("title"),
               "track": (lambda t: int(t.split("/")[0]) if t and t.split("/")[0].isdigit() else t)(song.get("track"))}
        bad = {k: (got[k], w[k]) for k in got if got[k] != w[k]}
        if bad:
            tags.append((song["file"], bad))
        d = float(song.get("duration", song.get("time", "nan")))
        if not abs(d - w["duration"]) <= 0.05:
            durs.append((song["file"], d, w["duration"]))
    return {"tag_mismatches": len(tags), "first_tag_mismatches": tags[:limit],
            "duration_off": len(durs), "first_duration_off": durs[:limit]}


def queue_session(which, base, expected):
    """The footprint a box lives with: the library scanned, 16,384 of its tracks queued (MPD's default limit), RSS;
    then a clean stop and
    a start that restores that queue, RSS again (MPD from its state file, Fermata from its database)."""
    sd = bench.fresh_dir(os.path.join(A.work, "run", f"queue-{which}"))
    music = os.path.join(base, "music")
    if which == "mpd":
        bench.ARGS.daemon, bench.ARGS.daemon_cmd = "mpd", None
        bench.prime_empty_db(sd, A.port)
    d = daemon(which, sd, music)
    c = start(which, d)
    r = {}
    try:
        update_polled(c)
        # MPD holds at most 16,384 entries unless configured otherwise (max_playlist_length): queue that many, the
        # same files in both, in one command list.
        files = sorted(x["file"] for x in c.listall() if "file" in x)[:16384]
        c.command_list_ok_begin()
        for path in files:
            c.add(path)
        c.command_list_end()
        r["queued"] = int(c.status().get("playlistlength", -1))
        time.sleep(1.0)
        r["mem_queued"] = bench.proc_mem(d.pid)
    finally:
        c.disconnect()
        d.stop()
    d = daemon(which, sd, music)
    c = start(which, d)
    try:
        deadline = time.monotonic() + 120
        while int(c.status().get("playlistlength", -1)) < r["queued"] and time.monotonic() < deadline:
            time.sleep(0.05)
        r["restored"] = int(c.status().get("playlistlength", -1))
        time.sleep(1.0)
        r["mem_restarted"] = bench.proc_mem(d.pid)
    finally:
        c.disconnect()
        d.stop()
    log(f"queue {which}: {r['queued']} queued, RSS {r['mem_queued']['rss_kib'] / 1024:.1f} MiB; after a restart "
        f"{r['restored']} entries, RSS {r['mem_restarted']['rss_kib'] / 1024:.1f} MiB")
    return r


def scan_session(which, kind, base, expected, rep):
    sd = bench.fresh_dir(os.path.join(A.work, "run", f"scan-{kind}-{which}-{rep}"))
    music = os.path.join(base, "music")
    if which == "mpd":
        bench.ARGS.daemon, bench.ARGS.daemon_cmd = "mpd", None
        bench.prime_empty_db(sd, A.port)  # an existing empty db, else MPD scans by itself at start
    d = daemon(which, sd, music)
    c = start(which, d)
    try:
        r = {"rep": rep, "songs_before": int(c.stats().get("songs", -1)), "mem_start": bench.proc_mem(d.pid)}
        cpu0 = bench.proc_cpu(d.pid)
        r["first_s"] = update_polled(c)
        r["first_cpu_s"] = bench.proc_cpu(d.pid) - cpu0
        time.sleep(0.2)
        r["songs"] = int(c.stats().get("songs", -1))
        r["mem_first"] = bench.proc_mem(d.pid)
        if which == "fermata":
            r["scan_status_first"] = fermata_scan_report(c)
        if r["songs"] != expected:
            r["missing"] = missing_songs(c, base)
            if which == "fermata":
                r["issues"] = fermata_issues(sd)
            log(f"WARNING {which} {kind}: {r['songs']} songs after the first scan, {expected} expected:",
                r.get("missing"), r.get("issues", ""))
        if rep == 0:
            r["check"] = check_songs(c, base)
            if r["check"]["tag_mismatches"] or r["check"]["duration_off"]:
                log(f"NOTE {which} {kind}: {r['check']}")
        r["nochange_s"] = []
        for _ in range(A.rescans):
            time.sleep(0.3)
            r["nochange_s"].append(update_polled(c))
        r["songs_after_rescan"] = int(c.stats().get("songs", -1))
        r["mem_rescan"] = bench.proc_mem(d.pid)
        if which == "fermata":
            r["scan_status_rescan"] = fermata_scan_report(c)
            iss = fermata_issues(sd)
            if iss and iss.get("count"):
                r["issues"] = iss
                log(f"NOTE fermata {kind}: {iss['count']} scan issues, first: {iss['first'][:3]}")
        log(f"scan {kind} {which} rep {rep}: first {r['first_s']:.3f} s, no change "
            f"{', '.join(f'{x:.3f}' for x in r['nochange_s'])} s, songs {r['songs']}, "
            f"RSS {r['mem_rescan']['rss_kib'] / 1024:.1f} MiB")
    finally:
        c.disconnect()
        d.stop()
    return r


def cpu_session(which, base, info, mode):
    """One daemon on the long files: each played to the end (mode alsa-null) or for a window (paced), --cpu-reps
    times; utime+stime of the daemon per audio second."""
    sd = bench.fresh_dir(os.path.join(A.work, "run", f"cpu-{which}-{mode}"))
    music = os.path.join(base, "music")
    if which == "mpd":
        bench.ARGS.daemon, bench.ARGS.daemon_cmd = "mpd", None
        bench.prime_empty_db(sd, A.port)
    d = daemon(which, sd, music, output=mode)
    c = start(which, d)
    out = {}
    try:
        update_polled(c)
        for kind in FORMATS:
            rel, audio_s = info["files"][kind]["rel"], info["files"][kind]["seconds"]
            runs = []
            for rep in range(A.cpu_reps):
                c.clear()
                c.add(rel)
                dur = float(c.playlistinfo()[0].get("duration", "nan"))
                time.sleep(0.5)
                if mode == "alsa-null":
                    cpu0, ns0, t0 = bench.proc_cpu(d.pid), bench.proc_cpu_ns(d.pid), time.monotonic()
                    c.play(0)
                    bench.wait_state(c, "stop", timeout=max(600.0, 20 * audio_s))
                    cpu1, ns1, t1 = bench.proc_cpu(d.pid), bench.proc_cpu_ns(d.pid), time.monotonic()
                    r = {"audio_s": audio_s, "wall_s": t1 - t0, "cpu_s": cpu1 - cpu0, "cpu_sched_s": ns1 - ns0,
                         "cpu_per_audio_s": (cpu1 - cpu0) / audio_s, "x_realtime": audio_s / (t1 - t0)}
                else:
                    c.play(0)
                    time.sleep(2.0)
                    c.disconnect()  # no client traffic during the window (and MPD drops clients idle for 60 s)
                    cpu0, ns0, t0 = bench.proc_cpu(d.pid), bench.proc_cpu_ns(d.pid), time.monotonic()
                    time.sleep(A.paced_window)
                    cpu1, ns1, t1 = bench.proc_cpu(d.pid), bench.proc_cpu_ns(d.pid), time.monotonic()
                    c = d.connect()
                    st = c.status()
                    c.stop()
                    r = {"window_s": t1 - t0, "cpu_s": cpu1 - cpu0, "cpu_sched_s": ns1 - ns0,
                         "cpu_per_audio_s": (cpu1 - cpu0) / (t1 - t0),
                         "state_at_end": st.get("state"), "elapsed_at_end": st.get("elapsed")}
                r["duration_reported"] = dur
                r["error"] = c.status().get("error")
                if r["error"] or not abs(dur - audio_s) < 0.1 or r.get("x_realtime", 0) > 20000:
                    log(f"WARNING {which} {kind}: error {r['error']!r}, duration {dur} s (file: {audio_s} s), "
                        f"{r.get('x_realtime', 0):.0f}x real time")
                r.update(bench.proc_mem(d.pid))
                runs.append(r)
                log(f"cpu {mode} {which} {kind} rep {rep}: {r['cpu_per_audio_s']:.5f} s per audio s, "
                    f"RSS {r['rss_kib'] / 1024:.1f} MiB" +
                    (f", {r['x_realtime']:.0f}x real time" if "x_realtime" in r else ""))
            out[kind] = runs
    finally:
        c.disconnect()
        d.stop()
    return out


def floor(base, info):
    """The command-line decoders' CPU per audio second on the same files (rusage of the child)."""
    music = os.path.join(base, "music")
    cmds = {"mp3": lambda f: ["mpg123", "-q", "-t", f],
            "m4a": lambda f: ["ffmpeg", "-nostdin", "-v", "error", "-threads", "1", "-i", f, "-f", "null", "-"],
            "opus": lambda f: ["opusdec", "--quiet", "--rate", "48000", "--float", f, "/dev/null"]}
    out = {}
    for kind in FORMATS:
        f = os.path.join(music, info["files"][kind]["rel"])
        runs = []
        for _ in range(A.cpu_reps):
            p = subprocess.Popen(cmds[kind](f), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            if p.returncode != 0:
                raise RuntimeError(f"{cmds[kind](f)} failed: {p.returncode}")
            cpu = ru.ru_utime + ru.ru_stime
            runs.append({"cpu_s": cpu, "cpu_per_audio_s": cpu / info["files"][kind]["seconds"],
                         "maxrss_kib": ru.ru_maxrss})
        out[kind] = {"command": " ".join(cmds[kind]("FILE")), "runs": runs}
        log(f"floor {kind}: {statistics.median(r['cpu_per_audio_s'] for r in runs):.5f} s per audio s "
            f"({out[kind]['command']})")
    return out


# ---------------------------------------------------------------- table
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def span(xs, fmt):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "–"
    m = fmt.format(statistics.median(xs))
    return m if len(xs) == 1 or min(xs) == max(xs) else f"{m} ({fmt.format(min(xs))}–{fmt.format(max(xs))})"


def ratio(f, m):
    return None if f is None or m in (None, 0) else f / m


def verdict(r, target):
    if r is None or target is None:
        return ""
    return f"≤ {target}× {'PASS' if r <= target else 'FAIL'}"


def mem_cell(mems):
    """'VmRSS / RssAnon / RssFile' in MiB, medians of bench.proc_mem() readings."""
    def mib(k):
        v = med([m.get(k) for m in mems])
        return "–" if v is None else f"{v / 1024:.1f}"
    return f"{mib('rss_kib')} / {mib('anon_kib')} / {mib('file_kib')}"


def table(res):
    rows = []
    add = lambda *cells: rows.append("| " + " | ".join(cells) + " |")
    add("What", "MPD", "Fermata", "Fermata/MPD", "target", "floor: CLI decoder")
    add(*["---"] * 6)
    for kind in ("mp3", "m4a"):
        if kind not in res.get("scan", {}):
            continue
        s = res["scan"][kind]
        info = s["library"]
        name = f"{kind.upper()} library, {info['tracks']:,} tracks ({info['bytes'] / 2**20:.0f} MiB)"
        m, f = s["mpd"], s["fermata"]
        first_m, first_f = [r["first_s"] for r in m], [r["first_s"] for r in f]
        nc_m = [med(r["nochange_s"]) for r in m]
        nc_f = [med(r["nochange_s"]) for r in f]
        r1, r2 = ratio(med(first_f), med(first_m)), ratio(med(nc_f), med(nc_m))
        add(f"{name}: first scan, s", span(first_m, "{:.3f}"), span(first_f, "{:.3f}"),
            f"{r1:.2f}×" if r1 else "–", verdict(r1, 0.7), "")
        add(f"{name}: no-change rescan, s", span(nc_m, "{:.3f}"), span(nc_f, "{:.3f}"),
            f"{r2:.2f}×" if r2 else "–", verdict(r2, 0.3), "")
        add(f"{name}: songs found", span([r["songs"] for r in m], "{:.0f}"),
            span([r["songs"] for r in f], "{:.0f}"), "", f"= {info['tracks']}", "")
        ck = lambda runs: next((f"{r['check']['tag_mismatches']} / {r['check']['duration_off']}"
                                for r in runs if "check" in r), "–")
        add(f"{name}: songs with a wrong tag / duration off by > 50 ms", ck(m), ck(f), "", "0 / 0", "")
        for key, label in (("mem_first", "after the first scan"), ("mem_rescan", "after the rescans")):
            rm = med([r[key]["rss_kib"] for r in m])
            rf = med([r[key]["rss_kib"] for r in f])
            rr = ratio(rf, rm)
            add(f"{name}: RSS {label}, MiB (VmRSS / RssAnon / RssFile)", mem_cell([r[key] for r in m]),
                mem_cell([r[key] for r in f]),
                f"{rr:.2f}×" if rr else "–", "", "")
        hm = med([r["mem_rescan"]["hwm_kib"] for r in m])
        hf = med([r["mem_rescan"]["hwm_kib"] for r in f])
        add(f"{name}: peak RSS (VmHWM), MiB", f"{hm / 1024:.1f}", f"{hf / 1024:.1f}",
            f"{ratio(hf, hm):.2f}×" if hm and hf else "–", "", "")
    q = res.get("queue")
    if q:
        for key, label in (("mem_queued", "library scanned, 16,384 tracks queued"),
                           ("mem_restarted", "after a restart restoring that queue")):
            rm, rf = q["mpd"][key]["rss_kib"], q["fermata"][key]["rss_kib"]
            rr = ratio(rf, rm)
            add(f"RSS, {label} ({q['fermata']['queued']:,} entries; MPD {q['mpd']['restored']:,} / Fermata "
                f"{q['fermata']['restored']:,} restored), MiB (VmRSS / RssAnon / RssFile)",
                mem_cell([q["mpd"][key]]), mem_cell([q["fermata"][key]]), f"{rr:.2f}×" if rr else "–", "< 1×", "")
    cpu = res.get("cpu", {})
    fl = res.get("floor", {})
    for mode, label in (("alsa-null", "unpaced, ALSA null PCM"), ("paced", "real time, paced null output")):
        if mode not in cpu:
            continue
        for kind in FORMATS:
            if kind not in cpu[mode].get("mpd", {}) or kind not in cpu[mode].get("fermata", {}):
                continue
            m = [r["cpu_per_audio_s"] for r in cpu[mode]["mpd"][kind]]
            f = [r["cpu_per_audio_s"] for r in cpu[mode]["fermata"][kind]]
            r = ratio(med(f), med(m))
            flo = ""
            if kind in fl:
                fv = med([x["cpu_per_audio_s"] for x in fl[kind]["runs"]])
                flo = f"{fv:.5f} (`{fl[kind]['command'].split()[0]}`; Fermata {med(f) / fv:.2f}×)" if fv else ""
            secs = res["long"]["files"][kind]["seconds"]
            add(f"CPU per audio second, {FORMAT_LABEL[kind]}, {secs:.0f} s file, {label}, s",
                span(m, "{:.5f}"), span(f, "{:.5f}"), f"{r:.2f}×" if r else "–", verdict(r, 1.0),
                flo if mode == "alsa-null" else "")
            mm, fm = cpu[mode]["mpd"][kind], cpu[mode]["fermata"][kind]
            rr = ratio(med([x["rss_kib"] for x in fm]), med([x["rss_kib"] for x in mm]))
            add(f"RSS after playing {FORMAT_LABEL[kind]} ({label}), MiB (VmRSS / RssAnon / RssFile)",
                mem_cell(mm), mem_cell(fm), f"{rr:.2f}×" if rr else "–", "", "")
    return "\n".join(rows)


# ---------------------------------------------------------------- main
def main():
    global A, bench, genlib
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fermatad", required=True, help="the fermatad binary (copied into WORK/bin first)")
    ap.add_argument("--mpd-compare", required=True, help="../shared/bench/mpd-compare")
    ap.add_argument("--work", default="/tmp/fermata-lossy-bench", help="libraries (cached), state dirs, results")
    ap.add_argument("--tracks", type=int, default=20000, help="MP3 library size")
    ap.add_argument("--m4a", type=int, default=5000, help="M4A library size")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=3, help="first scans per daemon and library (median)")
    ap.add_argument("--rescans", type=int, default=3, help="no-change rescans after each first scan (median)")
    ap.add_argument("--cpu-seconds", type=int, default=600, help="length of the long files played for CPU")
    ap.add_argument("--cpu-reps", type=int, default=3)
    ap.add_argument("--paced-window", type=float, default=0.0,
                    help="also measure CPU on the paced null output over this many seconds per play (0: not)")
    ap.add_argument("--tests", default="scan,cpu,floor",
                    help="comma-separated subset of scan,queue,cpu,floor; gen: only make the files")
    ap.add_argument("--mpd-mp3", default="stock", choices=["stock", "mpg123"],
                    help="MPD's MP3 decoder: Debian's plugin order (mad first) or mpg123 (mad disabled)")
    ap.add_argument("--port", type=int, default=6710)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--poll", type=float, default=0.002, help="status polling interval while updating, s")
    A = ap.parse_args()
    A.work = os.path.abspath(A.work)
    tests = set(A.tests.split(","))
    os.makedirs(os.path.join(A.work, "run"), exist_ok=True)

    bench = load_module(os.path.join(A.mpd_compare, "bench.py"), "mpd_compare_bench")
    genlib = load_module(os.path.join(A.mpd_compare, "gen-library.py"), "mpd_compare_gen_library")
    bench.ARGS = argparse.Namespace(host=A.host, port=A.port, external=False, daemon="mpd", daemon_cmd=None,
                                    pid=None, work=os.path.join(A.work, "run"), cold=False, capture=None)
    if A.mpd_mp3 == "mpg123":  # appended after the audio_output block of the harness's MPD configuration
        for k in bench.OUTPUTS:
            bench.OUTPUTS[k] += '\ndecoder {\n    plugin "mad"\n    enabled "no"\n}'
    from mpd import MPDClient
    MPDClient.add_command("scan_status", MPDClient._parse_object)

    # a private copy, so that a build replacing the binary during the run changes nothing
    bindir = os.path.join(A.work, "bin")
    os.makedirs(bindir, exist_ok=True)
    fermatad = os.path.join(bindir, "fermatad")
    shutil.copy2(A.fermatad, fermatad)
    os.environ["LOSSY_BENCH_FERMATAD"] = fermatad
    atexit_cleanup()

    res = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "fermatad": os.path.realpath(A.fermatad),
           "fermatad_mtime": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(A.fermatad))),
           "mpd_version": subprocess.run(["mpd", "--version"], capture_output=True, text=True).stdout.splitlines()[0],
           "mpd_mp3_decoder": "mad (Debian's plugin order)" if A.mpd_mp3 == "stock" else "mpg123",
           "args": vars(A), "nproc": os.cpu_count(), "loadavg_start": os.getloadavg()}
    libs = {}
    if tests & {"scan", "gen", "queue"}:
        for kind, n in (("mp3", A.tracks), ("m4a", A.m4a)):
            if n > 0:
                libs[kind] = make_library(kind, n, A.seed)
    if tests & {"cpu", "floor", "gen"}:
        long_base, long_info = make_long_files(A.cpu_seconds, A.seed)
        res["long"] = long_info
    if not tests & {"scan", "cpu", "floor", "queue"}:
        print(json.dumps({"libraries": {k: v[1] for k, v in libs.items()}, "long": res.get("long")}, indent=1))
        return

    if "floor" in tests:
        res["floor"] = floor(long_base, long_info)
    if "scan" in tests:
        res["scan"] = {}
        for kind, (base, info) in libs.items():
            # read the whole library once, so neither daemon pays for cold pages the other found warm
            for root, _, files in os.walk(os.path.join(base, "music")):
                for fn in files:
                    with open(os.path.join(root, fn), "rb") as f:
                        while f.read(1 << 20):
                            pass
            s = res["scan"][kind] = {"library": info, "mpd": [], "fermata": []}
            for rep in range(A.reps):
                order = ("mpd", "fermata") if rep % 2 == 0 else ("fermata", "mpd")  # interleaved
                for which in order:
                    s[which].append(scan_session(which, kind, base, info["tracks"], rep))
    if "queue" in tests and "mp3" in libs:
        base, info = libs["mp3"]
        res["queue"] = {which: queue_session(which, base, info["tracks"]) for which in ("mpd", "fermata")}
    if "cpu" in tests:
        res["cpu"] = {}
        modes = ["alsa-null"] + (["paced"] if A.paced_window > 0 else [])
        for mode in modes:
            res["cpu"][mode] = {which: cpu_session(which, long_base, long_info, mode) for which in ("mpd", "fermata")}
    res["loadavg_end"] = os.getloadavg()
    res["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")

    stamp = time.strftime("%Y%m%d-%H%M%S")
    out_json = os.path.join(A.work, f"results-{stamp}.json")
    with open(out_json, "w") as f:
        json.dump(res, f, indent=1, default=str)
    head = [f"Fermata beside {res['mpd_version']} (MP3 through {res['mpd_mp3_decoder']}); fermatad "
            f"{res['fermatad']} ({res['fermatad_mtime']}); {res['started']}, load average "
            f"{res['loadavg_start'][0]:.2f} at the start, {res['loadavg_end'][0]:.2f} at the end.",
            f"Medians of {A.reps} first scans (each followed by {A.rescans} no-change rescans) and {A.cpu_reps} plays; "
            "(min–max) when they differ. Results: " + out_json, ""]
    text = "\n".join(head) + table(res) + "\n"
    with open(os.path.join(A.work, f"table-{stamp}.md"), "w") as f:
        f.write(text)
    print(text)


def atexit_cleanup():
    import atexit, signal
    atexit.register(bench.cleanup)  # stops any daemon still running
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))


if __name__ == "__main__":
    main()
