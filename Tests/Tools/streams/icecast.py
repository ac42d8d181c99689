#!/usr/bin/env python3
"""A throw-away Icecast 2 server on loopback, fed by ffmpeg, for stream-playback tests.  (stdlib only)

    icecast.py fixtures DIR [--seconds 20]           make the source files (deterministic signal, every codec)
    icecast.py start DIR [--port N] [--burst-size B] [--metaint N] [--charset CS] [--dump]
                                                      write DIR/icecast.xml, run icecast2, wait, print the port
    icecast.py feed DIR MOUNT FILE [FILE...] [--format F] [--sender ffmpeg|python] [--once]
                                                      send FILE to /MOUNT in real time (background), print its URL
    icecast.py unfeed DIR MOUNT                       stop that source (the mount goes away)
    icecast.py title DIR MOUNT TEXT [--artist A]      set the title through the admin API
    icecast.py url DIR MOUNT | status DIR | env DIR   the listen URL | status-json | shell variables
    icecast.py stop DIR                               stop the feeders and icecast2 started in DIR

Exit status 77 means "skip": icecast2 or ffmpeg is missing (with CI set and running as root, `start` first tries
`apt-get install -y icecast2`). Everything is kept in DIR: icecast.xml, state.json (port, passwords, pids),
log/ (icecast's error.log and access.log, and with --dump each mount's dump-<mount> file: exactly what icecast
received from the source), feed-<mount>.log and .pid.

The server (see README.md for the measured facts):
  * listens on 127.0.0.1 only, on --port or a free port; source and admin passwords are random per start;
  * runs in the foreground (no -b), as the current user; as root it must drop privileges itself: Icecast 2.4
    refuses to run as root ("ERROR: You should not run icecast2 as root / Use the changeowner directive") unless
    <security><changeowner> names a user, so as root the config names Debian's icecast2:icecast (the package creates
    them), and the log directory is made writable for that user (it writes its logs after the setuid);
  * <burst-size> (default 65535 bytes, Icecast's own default) is what a new listener gets at once from the recent
    past, before the live edge: at 128 kb/s that is ~4 s of audio, at 43 kb/s Vorbis ~12 s. --burst-size 0 turns
    the burst off (burst-on-connect 0): a listener then starts at the live edge;
  * --metaint sets <mp3-metadata-interval> for every mount (Icecast's default 16000 bytes): the ICY title can only
    change at these points, so at 128 kb/s a new title needs up to 1 s to reach a listener, at 32 kb/s up to 4 s;
  * --charset sets the mounts' <charset> (Icecast's default ISO8859-1): the charset of the ICY metadata it sends on
    MP3/AAC mounts. An admin update's song= is converted from the request's charset= to the mount's: with neither
    given, the bytes pass through unchanged, so `title` (which sends no charset= unless told) puts UTF-8 text into
    the ICY block as UTF-8. With charset=UTF-8 and the default mount charset, "Café ☕" reaches listeners as Latin-1
    "Caf\xe9 &#9749;" (an XML character reference for what Latin-1 lacks).

Formats (--format, default from the file): how ffmpeg sends each with `-c copy` (no re-encoding):
  mp3          audio/mpeg  -f mp3 -id3v2_version 0 -write_xing 0  (the bytes sent are the file's MP3 frames)
  aac          audio/aac   -f adts                                 (ADTS frames, byte for byte)
  ogg          audio/ogg   -f ogg -page_duration 200000   Ogg Vorbis (packets copied; ffmpeg writes its own pages)
  opus         audio/ogg   -f ogg -page_duration 200000   Ogg Opus
  flac         audio/ogg   -f ogg -page_duration 200000   FLAC in Ogg: Icecast gives late listeners the headers
  flac-native  audio/flac  -f flac   native FLAC: Icecast's generic handler, a late listener gets no STREAMINFO
Icecast passes MP3/AAC/native FLAC through as bytes (its "generic" handler: ICY metadata is inserted for listeners
that ask), but it parses Ogg: it gives each new listener the codec headers first, then pages from the burst point;
for Vorbis it re-pages the stream and adds a "server=Icecast 2.4.4" comment.

--sender python sends the files' bytes exactly (HTTP PUT, paced by Ogg granule positions, or by the average bit rate
for other formats), one after the other and looping (unless --once). Several Ogg files make a chained stream: the only
way to change an Ogg Opus or Ogg FLAC mount's title, since Icecast refuses admin metadata updates for them.
"""
import argparse
import base64
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # importing the sibling tools leaves no __pycache__ in the tree
SKIP = 77

FORMATS = {
    "mp3": ("audio/mpeg", ["-f", "mp3", "-id3v2_version", "0", "-write_xing", "0"]),
    "aac": ("audio/aac", ["-f", "adts"]),
    # Ogg pages of 0.2 s (ffmpeg's default is 1 s): Icecast applies an admin title update to a Vorbis mount at the
    # next page from the source, so the page length bounds how soon a new title reaches listeners.
    "ogg": ("audio/ogg", ["-f", "ogg", "-page_duration", "200000"]),
    "opus": ("audio/ogg", ["-f", "ogg", "-page_duration", "200000"]),
    "flac": ("audio/ogg", ["-f", "ogg", "-page_duration", "200000"]),
    "flac-native": ("audio/flac", ["-f", "flac"]),
}
# reference.py's codec names -> feed formats
CODEC_FORMAT = {"mp3": "mp3", "aac": "aac", "vorbis": "ogg", "opus": "opus", "flac-ogg": "flac", "flac": "flac-native"}

# The fixture signal: two chirps (220 Hz rising 60 Hz/s, 330 Hz rising 40 Hz/s) with a quiet tone on top; no period
# shorter than the file, so a window of it is found in one place only; deterministic (ffmpeg's aevalsrc, bitexact).
SIGNAL = ("aevalsrc=exprs='0.35*sin(2*PI*(220*t+30*t*t))+0.05*sin(2*PI*3150*t)"
          "|0.35*sin(2*PI*(330*t+20*t*t))+0.05*sin(2*PI*1234*t*t/20+t)':s={rate}:d={seconds}")
BITEXACT = ["-fflags", "+bitexact", "-flags:a", "+bitexact"]
FIXTURES = [  # file, sample rate, encoder arguments
    ("src.mp3", 44100, ["-c:a", "libmp3lame", "-b:a", "128k", "-write_xing", "0", "-id3v2_version", "0"]),
    # -aac_pns 0: perceptual noise substitution fills bands with noise from a generator whose state depends on every
    # band decoded since the start, so a listener that joins mid-stream never matches there. Without PNS AAC is
    # bit-exact 2 frames after joining.
    ("src.aac", 44100, ["-c:a", "aac", "-b:a", "256k", "-aac_pns", "0", "-f", "adts"]),
    # managed bit rate (~130 kb/s): at the chirp's own VBR (~45 kb/s) Icecast's 64 KiB burst is 12 s of audio, and
    # Icecast's re-paging of Vorbis (~4 KiB pages) delays title changes by a second
    ("src.ogg", 44100, ["-c:a", "libvorbis", "-b:a", "128k", "-minrate", "128k", "-maxrate", "128k"]),
    ("src.opus", 48000, ["-c:a", "libopus", "-b:a", "128k"]),
    ("src.flac", 44100, ["-c:a", "flac"]),
    ("src.oga", 44100, ["-c:a", "flac", "-f", "ogg"]),
]


def log(*a):
    print("icecast.py:", *a, file=sys.stderr, flush=True)


def skip(msg):
    print(f"SKIP: {msg}", file=sys.stderr)
    sys.exit(SKIP)


def need(tool, package):
    if shutil.which(tool) is None:
        skip(f"{tool} is not installed (Debian package {package})")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def state_path(d):
    return os.path.join(d, "state.json")


def load_state(d):
    try:
        with open(state_path(d)) as f:
            return json.load(f)
    except FileNotFoundError:
        sys.exit(f"icecast.py: no server started in {d} (no state.json)")


def save_state(d, st):
    tmp = state_path(d) + ".tmp"
    with open(tmp, "w") as f:
        json.dump(st, f, indent=1)
    os.replace(tmp, state_path(d))


def mount_name(m):
    return "/" + m.lstrip("/")


def safe(m):
    return m.strip("/").replace("/", "_")


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child of ours counts as dead
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def http_get(url, auth=None, timeout=5):
    req = urllib.request.Request(url)
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode())
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read()


def status_json(st):
    _, body = http_get(f"http://127.0.0.1:{st['port']}/status-json.xsl")
    # Icecast 2.4.4's status-json can emit invalid JSON for a source with no title ("title": ,) on some versions;
    # be lenient
    text = body.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(text.replace(":,", ":null,").replace(":}", ":null}"))


def sources(st):
    src = status_json(st)["icestats"].get("source", [])
    return src if isinstance(src, list) else [src]


# ---------------------------------------------------------------- fixtures -------------------------------------------


def cmd_fixtures(a):
    need("ffmpeg", "ffmpeg")
    os.makedirs(a.dir, exist_ok=True)
    made = []
    for name, rate, enc in FIXTURES:
        out = os.path.join(a.dir, name)
        title = "Fermata fixture " + name
        cmd = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
               SIGNAL.format(rate=rate, seconds=a.seconds), "-ac", "2", *enc, *BITEXACT,
               "-metadata", f"title={title}", "-metadata:s:a:0", f"title={title}", out]
        subprocess.run(cmd, check=True)
        made.append({"file": out, "bytes": os.path.getsize(out), "title": title})
    # the same Opus and Vorbis audio with another title, for chained-stream title changes (feed --sender python)
    for name in ("src.opus", "src.ogg"):
        base, ext = os.path.splitext(name)
        out = os.path.join(a.dir, base + "-b" + ext)
        # Ogg keeps tags per stream (-metadata:s:a:0); a link of a chain needs its own serial number (-serial_offset)
        subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", os.path.join(a.dir, name), "-c", "copy",
                        *BITEXACT[:2], "-metadata:s:a:0", "title=Fermata fixture B", "-serial_offset", "1000", out],
                       check=True)
        made.append({"file": out, "bytes": os.path.getsize(out), "title": "Fermata fixture B"})
    print(json.dumps(made, indent=1))


# ---------------------------------------------------------------- start / stop ---------------------------------------


def ensure_icecast():
    if shutil.which("icecast2"):
        return
    if os.geteuid() == 0 and os.environ.get("CI"):
        log("icecast2 missing: apt-get install -y icecast2 (CI, root)")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        if subprocess.run(["apt-get", "install", "-y", "-qq", "icecast2"], env=env).returncode != 0:
            subprocess.run(["apt-get", "update", "-qq"], env=env)
            subprocess.run(["apt-get", "install", "-y", "-qq", "icecast2"], env=env)
        if shutil.which("icecast2"):
            return
    skip("icecast2 is not installed (Debian package icecast2; tests install it only as root with CI set)")


def world_traversable(path):
    """Can any user reach `path` (every directory above it searchable by others)?"""
    p = os.path.abspath(path)
    while True:
        if not os.stat(p).st_mode & 0o001:
            return False
        parent = os.path.dirname(p)
        if parent == p:
            return True
        p = parent


def xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def write_config(d, st, a, logdir, dump_mounts):
    sec = "<chroot>0</chroot>"
    if os.geteuid() == 0:
        sec += f"<changeowner><user>{st['run_user']}</user><group>{st['run_group']}</group></changeowner>"
    default_mount = []
    if a.metaint:
        default_mount.append(f"<mp3-metadata-interval>{a.metaint}</mp3-metadata-interval>")
    if a.charset:
        default_mount.append(f"<charset>{xml_escape(a.charset)}</charset>")
    mounts = ""
    if default_mount:
        mounts += '  <mount type="default">' + "".join(default_mount) + "</mount>\n"
    for m in dump_mounts:
        mounts += (f'  <mount type="normal"><mount-name>{xml_escape(mount_name(m))}</mount-name>'
                   + "".join(default_mount)
                   + f"<dump-file>{xml_escape(os.path.join(logdir, 'dump-' + safe(m)))}</dump-file></mount>\n")
    burst_on = 1 if a.burst_size > 0 else 0
    web = "/usr/share/icecast2/web" if os.path.isdir("/usr/share/icecast2/web") else "/etc/icecast2/web"
    admin = "/usr/share/icecast2/admin" if os.path.isdir("/usr/share/icecast2/admin") else "/etc/icecast2/admin"
    xml = f"""<!-- Written by Tests/Tools/streams/icecast.py for one test run: loopback only, random passwords. -->
<icecast>
  <location>loopback test</location>
  <admin>nobody@localhost</admin>
  <hostname>127.0.0.1</hostname>
  <limits>
    <clients>200</clients>
    <sources>20</sources>
    <queue-size>{a.queue_size}</queue-size>
    <client-timeout>30</client-timeout>
    <header-timeout>15</header-timeout>
    <source-timeout>{a.source_timeout}</source-timeout>
    <!-- A new listener first gets up to burst-size bytes of the recent stream at once (the "burst on connect"),
         then the live stream: it joins burst-size bytes behind the live edge. 0 here: no burst. -->
    <burst-on-connect>{burst_on}</burst-on-connect>
    <burst-size>{max(a.burst_size, 0)}</burst-size>
  </limits>
  <authentication>
    <source-password>{st['source_password']}</source-password>
    <relay-password>{st['relay_password']}</relay-password>
    <admin-user>admin</admin-user>
    <admin-password>{st['admin_password']}</admin-password>
  </authentication>
  <listen-socket>
    <port>{st['port']}</port>
    <bind-address>127.0.0.1</bind-address>
  </listen-socket>
{mounts}  <fileserve>1</fileserve>
  <paths>
    <basedir>/usr/share/icecast2</basedir>
    <logdir>{xml_escape(logdir)}</logdir>
    <webroot>{web}</webroot>
    <adminroot>{admin}</adminroot>
    <alias source="/" destination="/status.xsl"/>
  </paths>
  <logging>
    <accesslog>access.log</accesslog>
    <errorlog>error.log</errorlog>
    <loglevel>{a.loglevel}</loglevel>
    <logsize>100000</logsize>
  </logging>
  <security>{sec}</security>
</icecast>
"""
    path = os.path.join(d, "icecast.xml")
    with open(path, "w") as f:
        f.write(xml)
    os.chmod(path, 0o644)
    return path


def cmd_start(a):
    ensure_icecast()
    d = os.path.abspath(a.dir)
    os.makedirs(d, exist_ok=True)
    if os.path.exists(state_path(d)):
        old = json.load(open(state_path(d)))
        if old.get("pid") and pid_alive(old["pid"]):
            sys.exit(f"icecast.py: a server from {d} is still running (pid {old['pid']}): stop it first")
    st = {"port": a.port or free_port(), "source_password": secrets.token_hex(8), "relay_password": secrets.token_hex(8),
          "admin_password": secrets.token_hex(8), "feeds": {}, "burst_size": a.burst_size, "metaint": a.metaint or 16000}
    logdir = os.path.join(d, "log")
    if os.geteuid() == 0:
        import grp
        import pwd
        user, group = "icecast2", "icecast"
        try:
            pwd.getpwnam(user)
            grp.getgrnam(group)
        except KeyError:
            user, group = "nobody", "nogroup"
        st["run_user"], st["run_group"] = user, group
        uid, gid = pwd.getpwnam(user).pw_uid, grp.getgrnam(group).gr_gid
        if os.path.islink(logdir):
            os.unlink(logdir)
        if world_traversable(d):
            os.makedirs(logdir, exist_ok=True)
        else:
            # DIR (or a folder above it, e.g. a mkdtemp()) is closed to other users: icecast2, after its setuid,
            # could not open its logs there. Keep them in a folder it can reach and link it into DIR.
            real = tempfile.mkdtemp(prefix="icecast-log-")
            os.chmod(real, 0o755)
            os.symlink(real, logdir)
            logdir = real
        os.chown(logdir, uid, gid)
    else:
        os.makedirs(logdir, exist_ok=True)
        st["run_user"] = st["run_group"] = None
    st["logdir"] = os.path.realpath(logdir)
    dump = [m for m in (a.dump or [])]
    # A free port is only free until someone binds it: a suite beside this one may have been handed the same port and
    # started its own icecast2 on it. So the server that answers must be ours (our admin password is accepted), and
    # when ours could not bind, a new port is tried (unless --port named one).
    for attempt in range(1, 9):
        cfg = write_config(d, st, a, st["logdir"], dump)
        proc, why = start_icecast(d, st, cfg, a.timeout)
        if proc is not None:
            break
        if a.port or attempt == 8:
            sys.exit(why)
        log(f"attempt {attempt} on port {st['port']}: {why.splitlines()[0]}; another port")
        st["port"] = free_port()
    if a.foreground:
        print(st["port"], flush=True)
        try:
            proc.wait()
        except KeyboardInterrupt:
            proc.terminate()
        return
    print(st["port"])


def start_icecast(d, st, cfg, timeout):
    """Runs icecast2 with `cfg` and waits until it answers our admin password on its port: (process, None), or
    (None, why) when it exited (a port another took) or did not answer within `timeout` s (it is then stopped)."""
    out = open(os.path.join(d, "icecast.out"), "wb")
    proc = subprocess.Popen(["icecast2", "-c", cfg], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)
    st["pid"] = proc.pid
    save_state(d, st)
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            text = open(os.path.join(d, "icecast.out"), errors="replace").read()
            errlog = os.path.join(st["logdir"], "error.log")
            if os.path.exists(errlog):
                text += open(errlog, errors="replace").read()[-2000:]
            return None, f"icecast.py: icecast2 exited with {proc.returncode}:\n{text}"
        try:
            code, _ = http_get(f"http://127.0.0.1:{st['port']}/admin/stats",
                               auth=("admin", st["admin_password"]), timeout=1)
            if code == 200:
                if proc.poll() is None:
                    return proc, None
                continue  # answered by another server while ours was exiting: the exit is reported above
        except urllib.error.HTTPError as error:
            if error.code == 401:  # another icecast2 holds the port: ours cannot have bound it
                stop_pid(proc.pid, "icecast2")
                return None, f"icecast.py: port {st['port']} is another icecast2's"
        except (OSError, urllib.error.URLError):
            pass
        if time.monotonic() > deadline:
            proc.terminate()
            return None, f"icecast.py: icecast2 did not answer on 127.0.0.1:{st['port']} within {timeout} s"
        time.sleep(0.05)


def stop_pid(pid, name, grace=3.0):
    if not pid or not pid_alive(pid):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    end = time.monotonic() + grace
    while time.monotonic() < end and pid_alive(pid):
        time.sleep(0.05)
    if pid_alive(pid):
        log(f"{name} (pid {pid}) ignored SIGTERM: SIGKILL")
        os.kill(pid, signal.SIGKILL)


def cmd_stop(a):
    d = os.path.abspath(a.dir)
    st = load_state(d)
    for m, f in list(st.get("feeds", {}).items()):
        stop_pid(f.get("pid"), f"feeder {m}")
    stop_pid(st.get("pid"), "icecast2")
    st["feeds"] = {}
    st["pid"] = None
    save_state(d, st)


# ---------------------------------------------------------------- feeding --------------------------------------------


def wait_mount(st, mount, timeout, proc=None, logfile=None):
    url = f"http://127.0.0.1:{st['port']}{mount_name(mount)}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            text = open(logfile, errors="replace").read()[-2000:] if logfile else ""
            sys.exit(f"icecast.py: the feeder for {mount} exited with {proc.returncode}:\n{text}")
        try:
            if any(s.get("listenurl") == url for s in sources(st)):
                return url
        except (OSError, urllib.error.URLError, ValueError):
            pass
        time.sleep(0.05)
    sys.exit(f"icecast.py: {mount} did not appear within {timeout} s")


def cmd_feed(a):
    d = os.path.abspath(a.dir)
    st = load_state(d)
    if a.sender == "ffmpeg":
        need("ffmpeg", "ffmpeg")
    fmt = a.format
    if fmt is None:
        sys.path.insert(0, HERE)
        import reference
        fmt = CODEC_FORMAT[reference.probe_codec(a.files[0])]
    ctype, mux = FORMATS[fmt]
    m = mount_name(a.mount)
    old = st["feeds"].get(m)
    if old and pid_alive(old["pid"]):
        sys.exit(f"icecast.py: {m} is already fed (pid {old['pid']}): unfeed it first")
    logfile = os.path.join(d, f"feed-{safe(m)}.log")
    if a.sender == "ffmpeg":
        if len(a.files) != 1:
            sys.exit("icecast.py: --sender ffmpeg sends one file; use --sender python for several")
        loop = [] if a.once else ["-stream_loop", "-1"]
        cmd = ["ffmpeg", "-nostdin", "-v", "warning", "-re", *loop, "-i", os.path.abspath(a.files[0]), "-map", "0:a:0",
               "-c", "copy", "-fflags", "+bitexact", "-content_type", ctype, "-ice_name", "fermata test " + m,
               *mux, f"icecast://source:{st['source_password']}@127.0.0.1:{st['port']}{m}"]
    else:
        cmd = [sys.executable, os.path.abspath(__file__), "_send", d, m, ctype, *(["--once"] if a.once else []),
               *[os.path.abspath(f) for f in a.files]]
    with open(logfile, "wb") as lf:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=lf, stderr=subprocess.STDOUT,
                                start_new_session=True)
    st["feeds"][m] = {"pid": proc.pid, "files": [os.path.abspath(f) for f in a.files], "format": fmt,
                      "content_type": ctype, "sender": a.sender, "started": time.time()}
    save_state(d, st)
    url = wait_mount(st, m, a.timeout, proc, logfile)
    print(url)


def cmd_unfeed(a):
    d = os.path.abspath(a.dir)
    st = load_state(d)
    m = mount_name(a.mount)
    f = st["feeds"].pop(m, None)
    if f is None:
        sys.exit(f"icecast.py: {m} is not fed from {d}")
    stop_pid(f["pid"], f"feeder {m}")
    save_state(d, st)


def ogg_pages(data):
    """(offset, end, granulepos, serial, header_type) of each page."""
    pos = 0
    while True:
        i = data.find(b"OggS", pos)
        if i < 0 or i + 27 > len(data):
            return
        nseg = data[i + 26]
        size = 27 + nseg + sum(data[i + 27:i + 27 + nseg])
        yield i, i + size, int.from_bytes(data[i + 6:i + 14], "little", signed=True), \
            int.from_bytes(data[i + 14:i + 18], "little"), data[i + 5]
        pos = i + size


def ogg_schedule(data):
    """Pieces of an Ogg file (end offset, seconds of audio before it), one a page, from the granule positions."""
    rates = {}
    base = {}
    out = []
    total = 0.0
    for start, end, gp, serial, htype in ogg_pages(data):
        body = data[start + 27 + data[start + 26]:end]
        if htype & 2:  # BOS: the codec's granule rate
            rates[serial] = (48000 if body.startswith(b"OpusHead") else
                             int.from_bytes(body[12:16], "little") if body.startswith(b"\x01vorbis") else
                             int.from_bytes(body[27:30], "big") >> 4 if body.startswith(b"\x7fFLAC") else 48000)
            base[serial] = None
        if gp >= 0 and serial in rates:
            if base[serial] is None:
                base[serial] = (total, gp)
            t0, g0 = base[serial]
            total = max(total, t0 + (gp - g0) / rates[serial])
        out.append((end, total))
    return out


def byte_schedule(path, data):
    """Pieces of a non-Ogg file paced at its average rate (ffprobe's duration), 4 KiB each."""
    dur = None
    try:
        out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of",
                              "default=nw=1:nk=1", path], capture_output=True, text=True).stdout.strip()
        dur = float(out)
    except (OSError, ValueError):
        pass
    rate = len(data) / dur if dur else 16000.0
    return [(min(i + 4096, len(data)), min(i + 4096, len(data)) / rate) for i in range(0, len(data), 4096)]


def cmd_send(a):
    """The python sender (runs in the background, started by `feed --sender python`): exact bytes, real time."""
    st = load_state(a.dir)
    pieces = []
    for path in a.files:
        data = open(path, "rb").read()
        sched = ogg_schedule(data) if data.startswith(b"OggS") else byte_schedule(path, data)
        pieces.append((path, data, sched))
    s = socket.create_connection(("127.0.0.1", st["port"]))
    auth = base64.b64encode(f"source:{st['source_password']}".encode()).decode()
    s.sendall((f"PUT {a.mount} HTTP/1.1\r\nHost: 127.0.0.1:{st['port']}\r\nAuthorization: Basic {auth}\r\n"
               f"Content-Type: {a.content_type}\r\nIce-Public: 0\r\nIce-Name: fermata test {a.mount}\r\n"
               f"User-Agent: fermata-icecast-py/1\r\nExpect: 100-continue\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk:
            sys.exit(f"icecast closed the source connection: {head!r}")
        head += chunk
    status = head.split(b"\r\n", 1)[0]
    if b" 200 " not in status + b" " and b" 100 " not in status + b" ":
        sys.exit(f"icecast refused the source: {head.decode(errors='replace')}")
    print(f"source accepted: {status.decode(errors='replace')}", flush=True)
    t0 = time.monotonic()
    elapsed_audio = 0.0
    while True:
        for path, data, sched in pieces:
            print(f"{time.monotonic() - t0:.3f} sending {path}", flush=True)
            pos = 0
            for end, t in sched:
                due = t0 + elapsed_audio + t
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                s.sendall(data[pos:end])
                pos = end
            elapsed_audio += sched[-1][1] if sched else 0
        if a.once:
            break
    s.close()


# ---------------------------------------------------------------- metadata and queries ------------------------------


def cmd_title(a):
    st = load_state(os.path.abspath(a.dir))
    m = mount_name(a.mount)
    q = {"mount": m, "mode": "updinfo"}
    if a.charset:
        q["charset"] = a.charset
    if a.artist is not None:
        q["artist"] = a.artist
        q["title"] = a.text
    else:
        q["song"] = a.text
    url = f"http://127.0.0.1:{st['port']}/admin/metadata?" + urllib.parse.urlencode(q)
    try:
        code, body = http_get(url, auth=("admin", st["admin_password"]))
    except urllib.error.HTTPError as e:
        code, body = e.code, e.read()
    text = body.decode("utf-8", "replace")
    # Icecast answers 200 both when it took the update and when the mount refuses updates (Ogg Opus, Ogg FLAC):
    # the <message> says which.
    msg = text.split("<message>", 1)[-1].split("</message>", 1)[0] if "<message>" in text else text.strip()
    if code == 200 and "successful" in msg:
        print(json.dumps({"mount": m, "title": a.text, "message": msg, "t": time.time()}))
        return
    sys.exit(f"icecast.py: title update on {m} refused ({code}): {msg}"
             + ("  -- Icecast takes admin updates only for non-Ogg and Ogg Vorbis mounts; for Opus/FLAC use a chained"
                " stream (feed --sender python A.opus B.opus)" if "will not accept" in msg else ""))


def cmd_url(a):
    st = load_state(os.path.abspath(a.dir))
    print(f"http://127.0.0.1:{st['port']}{mount_name(a.mount)}")


def cmd_status(a):
    st = load_state(os.path.abspath(a.dir))
    print(json.dumps(status_json(st), indent=1))


def cmd_env(a):
    st = load_state(os.path.abspath(a.dir))
    print(f"ICECAST_PORT={st['port']}\nICECAST_SOURCE_PASSWORD={st['source_password']}\n"
          f"ICECAST_ADMIN_PASSWORD={st['admin_password']}\nICECAST_LOGDIR={st['logdir']}\nICECAST_PID={st['pid']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("fixtures")
    p.add_argument("dir")
    p.add_argument("--seconds", type=float, default=20)
    p = sub.add_parser("start")
    p.add_argument("dir")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--burst-size", type=int, default=65535, help="bytes (default 65535, Icecast's; 0 = no burst)")
    p.add_argument("--metaint", type=int, default=0, help="ICY metadata interval in bytes (default Icecast's 16000)")
    p.add_argument("--charset", default=None, help="the mounts' <charset> (Icecast's default ISO8859-1)")
    p.add_argument("--queue-size", type=int, default=524288)
    p.add_argument("--source-timeout", type=int, default=10)
    p.add_argument("--loglevel", type=int, default=3, help="1 error .. 4 debug (default 3 info)")
    p.add_argument("--dump", action="append", metavar="MOUNT", help="keep what the source sends to MOUNT in log/")
    p.add_argument("--timeout", type=float, default=15)
    p.add_argument("--foreground", action="store_true", help="stay until icecast2 exits")
    p = sub.add_parser("feed")
    p.add_argument("dir")
    p.add_argument("mount")
    p.add_argument("files", nargs="+")
    p.add_argument("--format", choices=list(FORMATS))
    p.add_argument("--sender", choices=["ffmpeg", "python"], default="ffmpeg")
    p.add_argument("--once", action="store_true", help="send once, do not loop")
    p.add_argument("--timeout", type=float, default=15)
    p = sub.add_parser("_send")
    p.add_argument("dir")
    p.add_argument("mount")
    p.add_argument("content_type")
    p.add_argument("--once", action="store_true")
    p.add_argument("files", nargs="+")
    p = sub.add_parser("unfeed")
    p.add_argument("dir")
    p.add_argument("mount")
    p = sub.add_parser("title")
    p.add_argument("dir")
    p.add_argument("mount")
    p.add_argument("text")
    p.add_argument("--artist")
    p.add_argument("--charset", default=None, help="send charset=CS (default: none; see README: Icecast and charsets)")
    for name in ("url",):
        p = sub.add_parser(name)
        p.add_argument("dir")
        p.add_argument("mount")
    for name in ("status", "stop", "env"):
        p = sub.add_parser(name)
        p.add_argument("dir")
    a = ap.parse_args()
    {"fixtures": cmd_fixtures, "start": cmd_start, "stop": cmd_stop, "feed": cmd_feed, "unfeed": cmd_unfeed,
     "_send": cmd_send, "title": cmd_title, "url": cmd_url, "status": cmd_status, "env": cmd_env}[a.cmd](a)


if __name__ == "__main__":
    main()
