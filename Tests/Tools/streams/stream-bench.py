#!/usr/bin/env python3
"""Network streams beside MPD, one run: CPU per second of a 128 kb/s MP3 stream and of a 256 kb/s AAC (ADTS) stream,
and the daemon's resident memory while it streams.  (stdlib only; Debian's icecast2, ffmpeg, mpd)

    stream-bench.py [--fermatad PATH] [--seconds 60] [--rounds 2] [--json FILE]

One Icecast 2 on loopback (icecast.py) is fed the fixtures' MP3 (128 kb/s CBR) and AAC (256 kb/s ADTS) in real time.
Each daemon in turn -- fermatad (by default .build/release/fermatad, else .build/debug/fermatad) and MPD 0.23 -- plays
one mount to a paced null output (fermatad `--output null`, MPD's `null` output with `sync "yes"`: both discard audio
at the real-time rate, so the figure is the daemon's own work: fetching, demuxing, decoding, converting), after a
5 s warm-up, for --seconds; its CPU time (utime + stime of every thread, /proc/PID/stat) is read before and after,
and its VmRSS and RssAnon at the end. The daemons alternate, --rounds times for each format, so a load that comes and
goes touches both. Prints one line per run, a table of medians with the ratio fermata / MPD, and a JSON line.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory(pid):
    values = {}
    for line in open(f"/proc/{pid}/status"):
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "RssAnon"):
            values[key] = int(rest.split()[0]) / 1024
    return values


def mpd_command(port, line):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        f = s.makefile("rwb")
        f.readline()
        f.write((line + "\n").encode())
        f.flush()
        out = []
        while True:
            answer = f.readline().decode()
            if not answer or answer.startswith("OK") or answer.startswith("ACK"):
                return out, answer.strip()
            out.append(answer.strip())


def wait_answering(port, proc, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        if proc.poll() is not None:
            raise SystemExit(f"the daemon exited ({proc.returncode})")
        try:
            mpd_command(port, "ping")
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the daemon did not answer")


def start_fermatad(binary, work, period_ms=None):
    port = free_port()
    os.makedirs(f"{work}/music", exist_ok=True)
    # An explicit configuration (a host's /etc/fermata/fermata.toml cannot change the figure); --period-ms sets
    # audio.period_ms (the default 5 ms is for practice: a tap heard within a period or two).
    with open(f"{work}/fermata.toml", "w") as f:
        f.write("# stream-bench\n" + (f"[audio]\nperiod_ms = {period_ms}\n" if period_ms else ""))
    proc = subprocess.Popen([binary, "--config", f"{work}/fermata.toml", "--music", f"{work}/music", "--state", f"{work}/state", "--output", "null",
                             "--listen", f"127.0.0.1:{port}", "--socket", "", "--web", "", "--board", "off",
                             "--resume", "off"], stdout=open(f"{work}/log", "w"), stderr=subprocess.STDOUT)
    return proc, port


def start_mpd(work):
    port = free_port()
    os.makedirs(f"{work}/music", exist_ok=True)
    os.makedirs(f"{work}/playlists", exist_ok=True)
    with open(f"{work}/mpd.conf", "w") as f:
        f.write(f"""music_directory "{work}/music"
db_file "{work}/db"
state_file "{work}/state"
playlist_directory "{work}/playlists"
log_file "{work}/log"
bind_to_address "127.0.0.1"
port "{port}"
auto_update "no"
zeroconf_enabled "no"
audio_output {{
    type "null"
    name "paced-null"
    sync "yes"
    mixer_type "none"
}}
""")
    proc = subprocess.Popen(["mpd", "--no-daemon", f"{work}/mpd.conf"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    return proc, port


def measure(kind, binary, url, seconds, scratch, period_ms=None):
    work = tempfile.mkdtemp(prefix=f"stream-bench-{kind}-", dir=scratch)
    proc, port = start_fermatad(binary, work, period_ms) if kind == "fermata" else start_mpd(work)
    try:
        wait_answering(port, proc)
        mpd_command(port, f'add "{url}"')
        mpd_command(port, "play")
        time.sleep(5)
        status = dict(line.split(": ", 1) for line in mpd_command(port, "status")[0] if ": " in line)
        if status.get("state") != "play":
            raise SystemExit(f"{kind} is not playing {url}: {status}")
        before, started = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(seconds)
        cpu, wall = cpu_seconds(proc.pid) - before, time.monotonic() - started
        mem = memory(proc.pid)
        status = dict(line.split(": ", 1) for line in mpd_command(port, "status")[0] if ": " in line)
        if status.get("state") != "play":
            raise SystemExit(f"{kind} stopped playing {url}: {status}")
        return {"cpu_per_second": cpu / wall, "rss_mb": mem.get("VmRSS"), "rss_anon_mb": mem.get("RssAnon")}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    release, debug = f"{ROOT}/.build/release/fermatad", f"{ROOT}/.build/debug/fermatad"
    ap.add_argument("--fermatad", default=release if os.path.exists(release) else debug)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--period-ms", type=int, help="fermatad's audio.period_ms (default: its own default, 5)")
    a = ap.parse_args()
    for tool in ("icecast2", "ffmpeg", "mpd"):
        if not shutil.which(tool):
            print(f"stream-bench: {tool} is missing", file=sys.stderr)
            sys.exit(77)
    scratch = tempfile.mkdtemp(prefix="stream-bench-")
    ice = f"{scratch}/icecast"
    os.makedirs(ice)
    tool = [sys.executable, f"{HERE}/icecast.py"]
    subprocess.run(tool + ["fixtures", ice, "--seconds", "30"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(tool + ["start", ice], check=True, stdout=subprocess.DEVNULL)
    results = []
    try:
        urls = {name: subprocess.run(tool + ["feed", ice, name, f"{ice}/{file}"], check=True, capture_output=True,
                                     text=True).stdout.strip().splitlines()[-1]
                for name, file in (("mp3", "src.mp3"), ("aac", "src.aac"))}
        print(f"fermatad: {a.fermatad}; MPD: {subprocess.run(['mpd', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}")
        for fmt, url in urls.items():
            for round_ in range(a.rounds):
                for kind in ("fermata", "mpd") if round_ % 2 == 0 else ("mpd", "fermata"):
                    r = measure(kind, a.fermatad, url, a.seconds, scratch, a.period_ms)
                    r.update(format=fmt, daemon=kind, round=round_)
                    results.append(r)
                    print(f"{fmt:4} {kind:8} round {round_}: CPU {r['cpu_per_second'] * 100:6.3f} % "
                          f"(s per s), RSS {r['rss_mb']:.1f} MB, RssAnon {r['rss_anon_mb']:.1f} MB", flush=True)
    finally:
        subprocess.run(tool + ["stop", ice], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(scratch, ignore_errors=True)
    print()
    print(f"{'stream':18} {'CPU fermata':>12} {'CPU MPD':>10} {'ratio':>6}   {'RSS fermata':>11} {'RSS MPD':>8}"
          f"   {'RssAnon f.':>10} {'RssAnon MPD':>11}")
    summary = {}
    for fmt, label in (("mp3", "MP3 128 kb/s"), ("aac", "AAC 256 kb/s")):
        def med(kind, key):
            return statistics.median(r[key] for r in results if r["format"] == fmt and r["daemon"] == kind)
        f_cpu, m_cpu = med("fermata", "cpu_per_second"), med("mpd", "cpu_per_second")
        summary[fmt] = {k: med(d, key) for d in ("fermata", "mpd")
                        for k, key in ((f"{d}_cpu", "cpu_per_second"), (f"{d}_rss_mb", "rss_mb"),
                                       (f"{d}_rss_anon_mb", "rss_anon_mb"))}
        print(f"{label:18} {f_cpu * 100:10.3f} % {m_cpu * 100:8.3f} % {f_cpu / m_cpu:6.2f}   "
              f"{med('fermata', 'rss_mb'):9.1f} MB {med('mpd', 'rss_mb'):5.1f} MB   "
              f"{med('fermata', 'rss_anon_mb'):8.1f} MB {med('mpd', 'rss_anon_mb'):8.1f} MB")
    line = json.dumps({"fermatad": a.fermatad, "seconds": a.seconds, "rounds": a.rounds, "summary": summary,
                       "runs": results})
    print(line)
    if a.json:
        open(a.json, "w").write(line + "\n")


if __name__ == "__main__":
    main()
