#!/usr/bin/env python3
"""Checks the stream tools against a real Icecast and measures the facts README.md quotes.  (stdlib only)

    selfcheck.py [--work DIR] [--trials 10] [--capture 6] [--skip-titles] [--json OUT]

Makes the fixtures, starts Icecast (icecast.py), feeds every format with ffmpeg (and a chained Opus mount with the
python sender), then for each mount:
  * captures --capture seconds as a listener (icy_listen.py, without ICY) and reports the burst;
  * checks the bytes: for MP3, ADTS and native FLAC the capture must be one contiguous run of the looped file's bytes
    (so `-c copy` and Icecast both preserve them); for Ogg it reports whether the packets survived, through the PCM;
  * decodes the capture with the reference decoder and compares it with the reference decode of the source
    (reference.py compare): the PCM a player produces must match after the warm-up;
  * measures, --trials times, the delay from an admin title update to the title appearing in a listener's stream
    (ICY StreamTitle for MP3/AAC, a new Vorbis comment header for Ogg Vorbis) and reports median and max;
  * checks that Icecast refuses admin updates for Opus, and that a chained Opus stream's new tags reach a listener.
Prints one line per check and ends with "N passed, N failed"; exit status 0 when all passed, 77 when Icecast or
ffmpeg is missing.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # importing the sibling tools leaves no __pycache__ in the tree
sys.path.insert(0, HERE)
import icy_listen  # noqa: E402

PY = sys.executable
ICECAST = os.path.join(HERE, "icecast.py")
REFERENCE = os.path.join(HERE, "reference.py")

MOUNTS = [  # mount, fixture, format, codec for reference.py
    ("test.mp3", "src.mp3", "mp3", "mp3"),
    ("test.aac", "src.aac", "aac", "aac"),
    ("test.ogg", "src.ogg", "ogg", "vorbis"),
    ("test.opus", "src.opus", "opus", "opus"),
    ("test.flac.ogg", "src.oga", "flac", "flac-ogg"),
    ("test.flac", "src.flac", "flac-native", "flac"),
]

results = []


def check(name, ok, **info):
    results.append({"check": name, "ok": bool(ok), **info})
    print(f"{'PASS' if ok else 'FAIL'} {name} " + json.dumps(info), flush=True)


def run(*cmd, ok_codes=(0,)):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 77:
        print(p.stderr.strip())
        sys.exit(77)
    if p.returncode not in ok_codes:
        raise RuntimeError(f"{' '.join(cmd)} -> {p.returncode}: {p.stderr.strip()[-1500:]}")
    return p


def capture(url, seconds, out, icy=False):
    lst = icy_listen.Listener(url, icy=icy, duration=seconds, out=out)
    lst.run()
    end = lst.events[-1]
    return lst, end


def title_latency(d, st_url, mount, trials):
    """Admin update -> the title in a listener's stream. The listener runs throughout; each trial sets a new title
    and waits for it (at most 10 s)."""
    seen = {}
    cond = threading.Condition()

    def on_event(ev):
        if ev["event"] == "title":
            with cond:
                seen.setdefault(ev["title"], time.monotonic())
                cond.notify_all()

    lst = icy_listen.Listener(st_url, icy=True, duration=trials * 12 + 10, on_event=on_event).start()
    time.sleep(2.5)  # past the burst: the listener is at the live edge
    lat = []
    for i in range(trials):
        text = f"trial {i} {time.time():.3f}"
        t0 = time.monotonic()
        run(PY, ICECAST, "title", d, mount, text)
        t_sent = time.monotonic()
        with cond:
            cond.wait_for(lambda: text in seen, timeout=10)
        if text in seen:
            lat.append({"from_request": seen[text] - t0, "admin_call": t_sent - t0})
        else:
            lat.append(None)
        time.sleep(0.3 + (i % 5) * 0.17)  # spread the updates over the metadata interval
    lst.stop()
    return lat


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default=None)
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--capture", type=float, default=6.0)
    ap.add_argument("--skip-titles", action="store_true")
    ap.add_argument("--only-titles", default=None, help="comma-separated mounts: just the title latency of these")
    ap.add_argument("--json", default=None, help="write every result here")
    ap.add_argument("--keep", action="store_true", help="leave Icecast running")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="streams-selfcheck-")
    os.makedirs(work, exist_ok=True)
    fx = os.path.join(work, "fixtures")
    if not os.path.exists(os.path.join(fx, "src-b.opus")):
        run(PY, ICECAST, "fixtures", fx)
    d = os.path.join(work, "icecast")
    port = run(PY, ICECAST, "start", d, *sum((["--dump", m] for m, *_ in MOUNTS), [])).stdout.strip()
    print(f"icecast on 127.0.0.1:{port} (work {work})", flush=True)
    try:
        urls = {}
        for mount, src, fmt, _codec in MOUNTS:
            urls[mount] = run(PY, ICECAST, "feed", d, mount, os.path.join(fx, src), "--format", fmt).stdout.strip()
        urls["chain.opus"] = run(PY, ICECAST, "feed", d, "chain.opus", os.path.join(fx, "src.opus"),
                                 os.path.join(fx, "src-b.opus"), "--sender", "python").stdout.strip()
        time.sleep(5)  # let the queues fill: a listener then gets the whole burst

        if not a.only_titles:
            # captures, all at once (each listener is independent; real time for all)
            caps = {}
            threads = []
            for mount, src, fmt, codec in MOUNTS:
                out = os.path.join(work, "cap-" + mount)

                def job(mount=mount, out=out):
                    caps[mount] = capture(urls[mount], a.capture, out)
                threads.append(threading.Thread(target=job))
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for mount, src, fmt, codec in MOUNTS:
                lst, end = caps[mount]
                out = os.path.join(work, "cap-" + mount)
                ctype = dict(next(e for e in lst.events if e["event"] == "headers")["headers"]).get("Content-Type")
                check(f"{mount} plays", end["audio_bytes"] > 0, content_type=ctype, audio_bytes=end["audio_bytes"],
                      first_audio_t=end["first_audio_t"], burst_bytes=end["burst_bytes"], bytes_at=end["bytes_at"])
                data = open(out, "rb").read()
                srcpath = os.path.join(fx, src)
                if fmt in ("mp3", "aac", "flac-native"):
                    file = open(srcpath, "rb").read()
                    body = file[file.find(b"\xff\xf8"):] if fmt == "flac-native" else file  # frames after the headers
                    pos = (body * 3).find(data)
                    check(f"{mount} bytes are the file's", pos >= 0, offset_in_file=pos % len(body) if pos >= 0 else None,
                          capture_bytes=len(data),
                          starts_on_frame_sync=len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0)
                pcm = out + ".f32"
                run(PY, REFERENCE, "decode", out, pcm, "--codec", codec, "--format", "f32le")
                p = run(PY, REFERENCE, "compare", srcpath, pcm, "--capture-format", "f32le", "--codec", codec,
                        ok_codes=(0, 1))
                v = json.loads(p.stdout)
                check(f"{mount} PCM matches the reference", v["verdict"] == "exact",
                      **{k: v.get(k) for k in ("verdict", "decoder", "offset_seconds", "compared_frames", "exact_frames",
                                               "max_abs_diff", "exact_from", "exact_from_seconds", "head")})
                # the same capture as s16 (what an s16 output would write)
                pcm16 = out + ".s16"
                run(PY, REFERENCE, "decode", out, pcm16, "--codec", codec, "--format", "s16le")
                p = run(PY, REFERENCE, "compare", srcpath, pcm16, "--capture-format", "s16le", "--codec", codec,
                        ok_codes=(0, 1))
                v = json.loads(p.stdout)
                check(f"{mount} s16 PCM matches the reference", v["verdict"] == "exact",
                      **{k: v.get(k) for k in ("verdict", "exact_from_seconds", "max_abs_diff", "exact_frames",
                                               "compared_frames")})

            # Opus and Ogg FLAC mounts refuse admin title updates
            for mount in ("test.opus", "test.flac.ogg"):
                p = run(PY, ICECAST, "title", d, mount, "x", ok_codes=(0, 1))
                check(f"{mount} refuses admin title updates", p.returncode == 1, message=p.stderr.strip()[:160])

            # a chained Opus stream: the second link's tags reach a listener (the python sender switches every 20 s)
            # (the python sender alternates the two files every 20 s: wait for a change of title, at most 45 s)
            changed = threading.Event()
            holder = {}

            def on_chain(ev):
                if ev["event"] == "title":
                    holder.setdefault("titles", []).append((ev["t"], ev["title"]))
                    if len(holder["titles"]) >= 2:
                        changed.set()
            lst = icy_listen.Listener(urls["chain.opus"], icy=False, duration=45, on_event=on_chain).start()
            changed.wait(45)
            lst.stop()
            titles = holder.get("titles", [])
            check("chain.opus: a new link's OpusTags title reaches a listener", len(titles) >= 2 and
                  titles[0][1] != titles[1][1], titles=titles)

        if not a.skip_titles:
            for mount in (a.only_titles.split(",") if a.only_titles else
                          ("test.mp3", "test.aac", "test.ogg", "test.flac")):
                lat = title_latency(d, urls[mount], mount, a.trials)
                got = [x["from_request"] for x in lat if x]
                info = {"trials": len(lat), "seen": len(got)}
                if got:
                    info.update(median_s=round(statistics.median(got), 3), max_s=round(max(got), 3),
                                min_s=round(min(got), 3),
                                admin_call_median_s=round(statistics.median(x["admin_call"] for x in lat if x), 4))
                check(f"{mount}: admin title -> listener within 2 s", len(got) == len(lat) and max(got) < 2.0,
                      **info)
    finally:
        if not a.keep:
            run(PY, ICECAST, "stop", d)
    passed = sum(r["ok"] for r in results)
    failed = len(results) - passed
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"work": work, "results": results}, f, indent=1)
    print(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
