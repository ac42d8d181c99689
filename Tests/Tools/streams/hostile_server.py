#!/usr/bin/env python3
"""A hostile (and a few friendly) HTTP servers in one, for stream-playback failure tests.  (stdlib only)

    hostile_server.py [--port 0] [--mp3 FILE] [--media DIR] [--lifetime 3600] [--max-conn-seconds 600]

Listens on 127.0.0.1:PORT (0: a free port) with one thread a connection, and prints one JSON line on stdout when
ready: {"port": N, "base": "http://127.0.0.1:N", "dead_url": "http://127.0.0.1:1/"}. Requests are parsed by hand
and answered over the raw socket, so every byte a path sends is the one described here. Every endless body ends
when the client goes away, after --max-conn-seconds, or when the server's --lifetime is over; the server exits by
itself then (and on SIGTERM/SIGINT).

The audio: --mp3 FILE (a CBR MP3 without ID3, e.g. icecast.py fixtures' src.mp3), else built-in silent MPEG-1 Layer
III frames (128 kb/s, 44.1 kHz stereo, all-zero side info: any decoder plays them as digital silence). "Real time"
is the file's bit rate from its first frame header, "fast" as fast as the client reads.

| path                          | what it does                                                   | what a player should do      |
|-------------------------------|----------------------------------------------------------------|------------------------------|
| /ok.mp3                       | 200 audio/mpeg, the MP3 looping at real time; ?metaint=N       | play; titles from ICY        |
|   ?metaint=16000&title=T      |  icy-metaint N and StreamTitle='T' (only when the request has  |                              |
|   &titles=A|B&every=S         |  Icy-MetaData: 1, or &force=1); rotating titles every S s;     |                              |
|   &loop=0 &burst=BYTES        |  loop=0: one pass with Content-Length; burst: first BYTES fast |                              |
| /media/NAME                   | a file of --media DIR, type by extension, options as /ok.mp3   | play                         |
| /icy-status                   | "ICY 200 OK" status line (SHOUTcast v1), icy-metaint 8192      | play (libcurl takes it)      |
| /404  /500  /503              | that status, a small HTML body (503: Retry-After: 2)           | clear error; bounded retries |
| /redirect-ok                  | 302 -> /ok.mp3 (query kept)                                    | play                         |
| /redirect-relative            | 302 Location: ok.mp3 (relative reference)                      | play                         |
| /redirect-chain?n=N           | N hops of 302, then /ok.mp3                                    | play while N <= its limit    |
| /redirect-loop                | 302 -> itself                                                  | stop after its limit: error  |
| /redirect-a, /redirect-b      | A -> B -> A ...                                                | same                         |
| /redirect-file                | 302 -> file:///etc/passwd                                      | refuse (never read the file) |
| /redirect-ftp                 | 302 -> ftp://127.0.0.1:1/x                                     | refuse                       |
| /redirect-scheme?to=URL       | 302 -> URL (any scheme: gopher:, data:, dict:, ...)            | refuse all but http(s)       |
| /redirect-no-location         | 302 without Location                                           | clear error                  |
| /cut?after=BYTES              | 200 audio at real time, then closes after BYTES                | error or bounded reconnect   |
|   &hold=1                     |  ... or keeps the socket open and silent (until the client     | time out: error/reconnect    |
|                               |  closes or --max-conn-seconds)                                 |                              |
|   &length=1                   |  ... and claims a Content-Length bigger than what it sends    |                              |
| /trickle?rate=B               | 200 audio at B bytes/s (default 2000: 1/8 of 128 kb/s); rate=0:| underrun, stays responsive;  |
|                               |  the headers, then nothing (a stall)                           |  stall: time out             |
| /silent-accept                | reads the request, never answers                               | time out: clear error        |
| /close-immediately            | reads the request, closes without a byte                       | "empty reply" error          |
| /reset                        | reads the request, resets the connection (RST)                 | error                        |
| /slow-headers?interval=1      | the response headers one byte per interval seconds, then audio | time out (or play, slowly)   |
| /huge-header?size=10000000    | 200 with one header line of SIZE bytes, then audio             | bounded: error, no 10 MB use |
|   &name=1                     |  the huge part is the header's name, not its value             |                              |
| /endless-header               | 200, then a header line that never ends ('a' forever, fast)    | error at its header limit    |
| /many-headers?n=100000        | 200 with N small headers, then audio                           | bounded: error or play       |
| /malformed-headers?kind=K     | K: nocolon, nul, lf (bare LF line ends), badstatus (HTTP/1.1   | error or play; never crash   |
|                               |  999 Weird), nostatus (no status line: body at once, HTTP/0.9),|                              |
|                               |  fold (obsolete line folding), spacename ("Content Type:"),    |                              |
|                               |  dupctype (two Content-Types), hugestatus (64 KiB reason)      |                              |
| /icy-huge-title               | ICY stream whose metadata blocks are all 255*16 = 4080 bytes:  | ignore/truncate the title,   |
|   ?mode=spread&size=10000000  |  spread: a 10 MB StreamTitle over ~2500 blocks (the first with | keep playing, memory bounded |
|   &metaint=16000              |  StreamTitle=' and no end, then only 'A's, the last ending ';);|                              |
|   mode=unterminated&count=N   |  unterminated: N blocks of StreamTitle='AAAA... without quote; |                              |
|   mode=binary                 |  binary: random bytes (NULs, quotes) in every block            |                              |
| /icy-bad-metaint?value=V      | icy-metaint: V (e.g. -1, 0, 99999999999, abc, "", 1e3), audio  | treat as no metadata (or     |
|   &actual=N                   |  without blocks; &actual=N: blocks every N bytes whatever V    |  error); never crash         |
| /zeros?rate=B                 | 200 audio/mpeg, endless 0x00 bytes (fast, or B bytes/s)        | no sync: error after a bound |
| /random?seed=S&rate=B         | 200 audio/mpeg, endless random bytes (seeded)                  | resync attempts bounded      |
| /wrong-type?body=html|mp3     | 200 text/html: an HTML page, or (body=mp3) the MP3 stream      | html: clear error; mp3: may  |
|                               |                                                                |  sniff and play              |
| /chunked?bad=0                | Transfer-Encoding: chunked audio, chunks of 1..8192 bytes, with| play; bad=1: error           |
|                               |  extensions; bad=1: a non-hex chunk size after ~16 KiB         |                              |
| /gzip?honest=0                | Content-Encoding: gzip on the audio (honest=1: only when asked | don't ask (no Accept-        |
|                               |  with Accept-Encoding: gzip)                                   |  Encoding); see README       |
| /playlist.m3u                 | the dead URL, then /ok.mp3 (?order=ok-first swaps them)         | skip the dead entry, play    |
| /playlist.m3u8                | the same as #EXTM3U/#EXTINF, UTF-8 (a plain list, not HLS)     | same                         |
| /playlist.pls                 | the same as [playlist] File1=/File2=                           | same                         |
| /playlist.xspf                | the same as XSPF <track><location>                             | same                         |
| /playlist-loop.m3u            | lists itself (and nothing else)                                | detect the loop: error       |
| /playlist-nested.m3u          | lists /playlist.pls                                            | follow once: play            |
| /playlist-hls.m3u8            | an HLS media playlist (#EXT-X-TARGETDURATION, .ts segments)    | clear "HLS unsupported"      |
| /playlist-huge.m3u            | a 1 GiB playlist, Content-Length 1073741824, made on the fly   | refuse beyond its cap        |
|   ?size=N&kind=urls|comments  |  urls: one URL a line; comments: '#' lines, one URL at the end;|                              |
|   |oneline&chunked=1          |  oneline: no newline at all; chunked: no Content-Length        |                              |
| /stats                        | JSON: requests per path and the last 500 requests (t, path,    | (for the test)               |
|   ?reset=1                    |  query, headers); reset=1 clears after answering               |                              |

"Dead URL": http://127.0.0.1:1/ (nothing listens on port 1: connection refused at once). For a slow DNS answer see
slow_dns.py.
"""
import argparse
import gzip
import json
import os
import random
import select
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
import urllib.parse
import zlib

DEAD_URL = "http://127.0.0.1:1/"
SILENT_FRAME = bytes([0xFF, 0xFB, 0x90, 0x64]) + bytes(417 - 4)  # MPEG-1 L3 128k 44.1k joint stereo, zero side info
MP3_BITRATES = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0]


class Stop(Exception):
    """The client went away, or a time limit ran out."""


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.requests = []
        self.started = time.time()

    def add(self, path, query, headers):
        with self.lock:
            self.counts[path] = self.counts.get(path, 0) + 1
            self.requests.append({"t": round(time.time(), 3), "path": path, "query": query,
                                  "headers": {k: v[:200] for k, v in list(headers.items())[:40]}})
            del self.requests[:-500]

    def snapshot(self, reset):
        with self.lock:
            out = {"started": self.started, "now": time.time(), "counts": dict(self.counts),
                   "requests": list(self.requests)}
            if reset:
                self.counts.clear()
                self.requests.clear()
            return out


def mp3_byte_rate(data):
    i = 0
    if data.startswith(b"ID3") and len(data) > 10:
        size = (data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9]
        i = 10 + size
    while i + 4 <= len(data):
        if data[i] == 0xFF and data[i + 1] & 0xE0 == 0xE0:
            kbps = MP3_BITRATES[data[i + 2] >> 4]
            if kbps:
                return kbps * 1000 // 8
        i += 1
    return 16000


CONTENT_TYPES = {".mp3": "audio/mpeg", ".aac": "audio/aac", ".ogg": "audio/ogg", ".oga": "audio/ogg",
                 ".opus": "audio/ogg", ".flac": "audio/flac", ".m3u": "audio/x-mpegurl",
                 ".m3u8": "application/vnd.apple.mpegurl", ".pls": "audio/x-scpls", ".xspf": "application/xspf+xml"}


class Handler(socketserver.BaseRequestHandler):
    server: "Server"

    # ------------------------------------------------------------------ plumbing
    def setup(self):
        self.sock = self.request
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.deadline = min(time.monotonic() + self.server.max_conn_seconds, self.server.end_time)

    def check(self):
        if time.monotonic() > self.deadline or self.server.stopping:
            raise Stop()

    def send(self, data):
        self.check()
        self.sock.settimeout(max(0.1, self.deadline - time.monotonic()))
        try:
            self.sock.sendall(data)
        except (OSError, socket.timeout):
            raise Stop()

    def client_gone(self, wait):
        """Waits up to `wait` s; True when the client closed (or sent something we then drop)."""
        r, _, _ = select.select([self.sock], [], [], wait)
        if r:
            try:
                return self.sock.recv(65536) == b""
            except OSError:
                return True
        return False

    def hold(self):
        """Keeps the connection open and silent until the client closes or a limit runs out."""
        while True:
            self.check()
            if self.client_gone(0.5):
                raise Stop()

    def read_request(self):
        self.sock.settimeout(30)
        buf = b""
        while b"\r\n\r\n" not in buf and b"\n\n" not in buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            buf += chunk
            if len(buf) > 256 * 1024:
                return None
        head = buf.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0].decode("latin-1")
        lines = head.replace("\r\n", "\n").split("\n")
        parts = lines[0].split()
        if len(parts) < 2:
            return None
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        u = urllib.parse.urlsplit(parts[1])
        return parts[0], u.path, u.query, dict(urllib.parse.parse_qsl(u.query, keep_blank_values=True)), headers

    def handle(self):
        try:
            req = self.read_request()
        except OSError:
            return
        if req is None:
            return
        self.method, self.path, self.query_string, self.q, self.headers = req
        if self.path != "/stats":
            self.server.stats.add(self.path, self.query_string, self.headers)
        route = ROUTES.get(self.path)
        if route is None and self.path.startswith("/media/"):
            route = Handler.r_media
        try:
            if route is None:
                self.simple(404, "Not Found", f"no such path: {self.path}")
            else:
                route(self)
        except Stop:
            pass
        except (OSError, ValueError) as e:
            if not isinstance(e, (BrokenPipeError, ConnectionResetError)):
                print(f"hostile_server: {self.path}: {e!r}", file=sys.stderr, flush=True)
        finally:
            try:
                self.sock.close()
            except OSError:
                pass

    # ------------------------------------------------------------------ helpers
    @property
    def base(self):
        return f"http://127.0.0.1:{self.server.port}"

    def head(self, status="200 OK", headers=(), proto="HTTP/1.1"):
        lines = [f"{proto} {status}"] + [f"{k}: {v}" for k, v in headers]
        self.send(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"))

    def simple(self, code, reason, text, extra=()):
        body = f"<!DOCTYPE html><html><head><title>{code} {reason}</title></head><body><h1>{code} {reason}</h1>" \
               f"<p>{text}</p></body></html>\n".encode()
        self.head(f"{code} {reason}", [("Content-Type", "text/html; charset=utf-8"),
                                       ("Content-Length", len(body)), ("Connection", "close"), *extra])
        if self.method != "HEAD":
            self.send(body)

    def redirect(self, location, code="302 Found"):
        hdrs = [("Content-Length", 0), ("Connection", "close")]
        if location is not None:
            hdrs.insert(0, ("Location", location))
        self.head(code, hdrs)

    def audio_source(self, path=None):
        if path is None:
            return self.server.mp3, self.server.mp3_rate
        data = open(path, "rb").read()
        rate = mp3_byte_rate(data) if path.endswith(".mp3") else max(len(data) // 20, 1)
        return data, rate

    def audio_bytes(self, data, rate, paced=True, burst=0, loop=True):
        """Yields chunks of the looping audio: `rate` bytes/s when paced (10 chunks a second), the first `burst`
        bytes at once."""
        pos = 0
        sent = 0
        t0 = time.monotonic()
        step = max(rate // 10, 1)
        while True:
            self.check()
            if pos >= len(data):
                if not loop:
                    return
                pos = 0
            n = min(step if paced else 65536, len(data) - pos)
            chunk = data[pos:pos + n]
            pos += n
            if paced and sent >= burst:
                due = t0 + (sent - burst) / rate
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            elif paced and sent < burst:
                t0 = time.monotonic()
            sent += n
            yield chunk

    def icy_stream(self, chunks, metaint, title_for, repeat=False):
        """Interleaves ICY metadata blocks every `metaint` audio bytes into the chunks; title_for() gives the title
        to announce now (a block is sent when it changes, a zero length byte otherwise, unless repeat)."""
        left = metaint
        last = None
        for chunk in chunks:
            out = bytearray()
            while chunk:
                n = min(left, len(chunk))
                out += chunk[:n]
                chunk = chunk[n:]
                left -= n
                if left == 0:
                    title = title_for()
                    if title != last or repeat:
                        meta = f"StreamTitle='{title}';".encode("utf-8")[:255 * 16]
                        meta += bytes(-len(meta) % 16)
                        out.append(len(meta) // 16)
                        out += meta
                        last = title
                    else:
                        out.append(0)
                    left = metaint
            yield bytes(out)

    def stream_audio(self, ctype="audio/mpeg", data=None, rate=None, extra=(), proto="HTTP/1.1", status="200 OK"):
        """The /ok.mp3 behaviour, shared by /media/, /icy-status, /slow-headers and friends."""
        if data is None:
            data, rate = self.audio_source()
        q = self.q
        loop = q.get("loop", "1") != "0"
        burst = int(q.get("burst", "0") or 0)
        want_icy = self.headers.get("icy-metadata") == "1" or q.get("force") == "1"
        metaint = int(q.get("metaint", "0") or 0) if want_icy else 0
        titles = [t for t in q.get("titles", q.get("title", "")).split("|")] or [""]
        every = float(q.get("every", "10") or 10)
        t0 = time.monotonic()
        hdrs = [("Content-Type", ctype), ("icy-name", "fermata hostile server"), ("icy-br", str(rate * 8 // 1000)),
                ("Cache-Control", "no-cache"), *extra]
        if metaint:
            hdrs.append(("icy-metaint", metaint))
        if not loop and not metaint:
            hdrs.append(("Content-Length", len(data)))
        hdrs.append(("Connection", "close"))
        self.head(status, hdrs, proto=proto)
        if self.method == "HEAD":
            return
        chunks = self.audio_bytes(data, rate, burst=burst, loop=loop)
        if metaint:
            chunks = self.icy_stream(chunks, metaint,
                                     lambda: titles[int((time.monotonic() - t0) / every) % len(titles)])
        for c in chunks:
            self.send(c)

    # ------------------------------------------------------------------ friendly
    def r_ok(self):
        self.stream_audio()

    def r_media(self):
        name = urllib.parse.unquote(self.path[len("/media/"):])
        root = self.server.media
        full = os.path.realpath(os.path.join(root or "/nonexistent", name))
        if not root or not full.startswith(os.path.realpath(root) + os.sep) or not os.path.isfile(full):
            return self.simple(404, "Not Found", "no such media file")
        data, rate = self.audio_source(full)
        self.stream_audio(CONTENT_TYPES.get(os.path.splitext(name)[1].lower(), "application/octet-stream"),
                          data, rate)

    def r_icy_status(self):
        self.headers["icy-metadata"] = "1"
        self.q.setdefault("metaint", "8192")
        self.q.setdefault("title", "ICY status line")
        self.stream_audio(proto="ICY", status="200 OK")

    def r_404(self):
        self.simple(404, "Not Found", "nothing here")

    def r_500(self):
        self.simple(500, "Internal Server Error", "broken")

    def r_503(self):
        self.simple(503, "Service Unavailable", "come back later", extra=[("Retry-After", "2")])

    # ------------------------------------------------------------------ redirects
    def r_redirect_ok(self):
        self.redirect("/ok.mp3" + ("?" + self.query_string if self.query_string else ""))

    def r_redirect_relative(self):
        self.redirect("ok.mp3" + ("?" + self.query_string if self.query_string else ""))

    def r_redirect_chain(self):
        n = int(self.q.get("n", "5"))
        self.redirect(f"/redirect-chain?n={n - 1}" if n > 0 else "/ok.mp3")

    def r_redirect_loop(self):
        self.redirect("/redirect-loop")

    def r_redirect_a(self):
        self.redirect("/redirect-b")

    def r_redirect_b(self):
        self.redirect("/redirect-a")

    def r_redirect_file(self):
        self.redirect("file:///etc/passwd")

    def r_redirect_ftp(self):
        self.redirect("ftp://127.0.0.1:1/x.mp3")

    def r_redirect_scheme(self):
        self.redirect(self.q.get("to", "gopher://127.0.0.1:1/"))

    def r_redirect_no_location(self):
        self.redirect(None)

    # ------------------------------------------------------------------ broken transfers
    def r_cut(self):
        after = int(self.q.get("after", "100000"))
        data, rate = self.audio_source()
        hdrs = [("Content-Type", "audio/mpeg")]
        if self.q.get("length") == "1":
            hdrs.append(("Content-Length", after * 2))
        self.head("200 OK", hdrs + [("Connection", "close")])
        sent = 0
        for c in self.audio_bytes(data, rate):
            c = c[:after - sent]
            self.send(c)
            sent += len(c)
            if sent >= after:
                break
        if self.q.get("hold") == "1":
            self.hold()

    def r_trickle(self):
        rate = int(self.q.get("rate", "2000"))
        data, _ = self.audio_source()
        self.head("200 OK", [("Content-Type", "audio/mpeg"), ("Connection", "close")])
        if rate <= 0:  # headers, then nothing at all: a stall
            self.hold()
        for c in self.audio_bytes(data, rate):
            self.send(c)

    def r_silent_accept(self):
        self.hold()

    def r_close_immediately(self):
        pass

    def r_reset(self):
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def r_slow_headers(self):
        interval = float(self.q.get("interval", "1"))
        head = b"HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nConnection: close\r\n\r\n"
        for i in range(len(head)):
            self.send(head[i:i + 1])
            if self.client_gone(interval):
                raise Stop()
        data, rate = self.audio_source()
        for c in self.audio_bytes(data, rate):
            self.send(c)

    # ------------------------------------------------------------------ hostile headers
    def r_huge_header(self):
        size = int(self.q.get("size", str(10 * 1000 * 1000)))
        self.send(b"HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\n")
        if self.q.get("name") == "1":
            self.send(b"X-")
            self.send_repeated(b"N" * 65536, size)
            self.send(b": v\r\n")
        else:
            self.send(b"X-Huge: ")
            self.send_repeated(b"a" * 65536, size)
            self.send(b"\r\n")
        self.send(b"Connection: close\r\n\r\n")
        data, rate = self.audio_source()
        for c in self.audio_bytes(data, rate):
            self.send(c)

    def send_repeated(self, block, total):
        while total > 0:
            self.send(block[:total])
            total -= len(block)

    def r_endless_header(self):
        self.send(b"HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nX-Endless: ")
        block = b"a" * 65536
        while True:
            self.send(block)

    def r_many_headers(self):
        n = int(self.q.get("n", "100000"))
        self.send(b"HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\n")
        buf = bytearray()
        for i in range(n):
            buf += b"X-Header-%d: value %d\r\n" % (i, i)
            if len(buf) > 65536:
                self.send(bytes(buf))
                buf.clear()
        self.send(bytes(buf) + b"Connection: close\r\n\r\n")
        data, rate = self.audio_source()
        for c in self.audio_bytes(data, rate):
            self.send(c)

    def r_malformed_headers(self):
        kind = self.q.get("kind", "nocolon")
        heads = {
            "nocolon": b"HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nThis line has no colon\r\n\r\n",
            "nul": b"HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nX-Nul: a\0b\r\n\0\r\n\r\n",
            "lf": b"HTTP/1.1 200 OK\nContent-Type: audio/mpeg\nicy-metaint: 0\n\n",
            "badstatus": b"HTTP/1.1 999 Weird\r\nContent-Type: audio/mpeg\r\n\r\n",
            "nostatus": b"",
            "fold": b"HTTP/1.1 200 OK\r\nContent-Type: audio/\r\n mpeg\r\nX-Folded: a\r\n\tb\r\n\r\n",
            "spacename": b"HTTP/1.1 200 OK\r\nContent Type: audio/mpeg\r\nicy metaint: 16000\r\n\r\n",
            "dupctype": b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Type: audio/mpeg\r\n\r\n",
            "hugestatus": b"HTTP/1.1 200 " + b"O" * 65536 + b"\r\nContent-Type: audio/mpeg\r\n\r\n",
        }
        if kind not in heads:
            return self.simple(400, "Bad Request", "kinds: " + ", ".join(heads))
        self.send(heads[kind])
        data, rate = self.audio_source()
        for c in self.audio_bytes(data, rate):
            self.send(c)

    # ------------------------------------------------------------------ hostile ICY
    def r_icy_huge_title(self):
        mode = self.q.get("mode", "spread")
        metaint = int(self.q.get("metaint", "16000"))
        size = int(self.q.get("size", str(10 * 1000 * 1000)))
        count = int(self.q.get("count", "1000"))
        rng = random.Random(int(self.q.get("seed", "1")))
        data, rate = self.audio_source()
        self.head("200 OK", [("Content-Type", "audio/mpeg"), ("icy-metaint", metaint), ("icy-name", "huge titles"),
                             ("Connection", "close")])
        blocks = self.huge_blocks(mode, size, count, rng)
        audio = self.audio_bytes(data, rate, paced=False)
        pending = bytearray()
        for block in blocks:  # metaint audio bytes, then a metadata block; as fast as the client reads
            while len(pending) < metaint:
                pending += next(audio)
            self.send(bytes(pending[:metaint]) + bytes([len(block) // 16]) + block)
            del pending[:metaint]
        # then a normal stream, paced, titled "after"
        self.q["title"] = "after the huge title"
        self.headers["icy-metadata"] = "1"
        for c in self.icy_stream(self.audio_bytes(data, rate), metaint, lambda: "after the huge title"):
            self.send(c)

    @staticmethod
    def huge_blocks(mode, size, count, rng):
        full = 255 * 16
        if mode == "spread":
            text = b"StreamTitle='"
            remaining = size
            first = True
            while remaining > 0:
                room = full - (len(text) if first else 0)
                n = min(room, remaining)
                body = (text if first else b"") + b"A" * n
                remaining -= n
                first = False
                if remaining <= 0:
                    body = body[:full - 2] + b"';" if len(body) + 2 > full else body + b"';"
                yield body + bytes(-len(body) % 16)
        elif mode == "unterminated":
            for _ in range(count):
                yield (b"StreamTitle='" + b"A" * full)[:full]
        elif mode == "binary":
            for _ in range(count):
                yield bytes(rng.getrandbits(8) for _ in range(full))
        else:
            raise ValueError("mode: spread, unterminated, binary")

    def r_icy_bad_metaint(self):
        value = self.q.get("value", "-1")
        actual = int(self.q.get("actual", "0") or 0)
        data, rate = self.audio_source()
        self.head("200 OK", [("Content-Type", "audio/mpeg"), ("icy-metaint", value), ("Connection", "close")])
        chunks = self.audio_bytes(data, rate)
        if actual > 0:
            chunks = self.icy_stream(chunks, actual, lambda: "bad metaint")
        for c in chunks:
            self.send(c)

    # ------------------------------------------------------------------ hostile bodies
    def endless(self, make_block, ctype="audio/mpeg"):
        rate = int(self.q.get("rate", "0") or 0)
        self.head("200 OK", [("Content-Type", ctype), ("Connection", "close")])
        t0 = time.monotonic()
        sent = 0
        while True:
            block = make_block(max(rate // 10, 1) if rate else 65536)
            if rate:
                delay = t0 + sent / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            self.send(block)
            sent += len(block)

    def r_zeros(self):
        zero = bytes(65536)
        self.endless(lambda n: zero[:n])

    def r_random(self):
        rng = random.Random(int(self.q.get("seed", "1")))
        self.endless(lambda n: rng.randbytes(n))

    def r_wrong_type(self):
        if self.q.get("body", "html") == "mp3":
            return self.stream_audio(ctype="text/html")
        body = (b"<!DOCTYPE html><html><head><title>Radio Example</title></head><body><h1>Listen live!</h1>"
                b"<p>Our stream moved. <a href=\"/ok.mp3\">Click here</a>.</p>" + b"<p>lorem ipsum</p>" * 200 +
                b"</body></html>\n")
        self.head("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", len(body)),
                             ("Connection", "close")])
        self.send(body)

    def r_chunked(self):
        bad = self.q.get("bad") == "1"
        data, rate = self.audio_source()
        self.head("200 OK", [("Content-Type", "audio/mpeg"), ("Transfer-Encoding", "chunked"),
                             ("Connection", "close")])
        rng = random.Random(7)
        sent = 0
        for c in self.audio_bytes(data, rate):
            while c:
                n = min(len(c), rng.randint(1, 8192))
                ext = ";ext=1" if rng.random() < 0.1 else ""
                self.send(b"%x%s\r\n" % (n, ext.encode()) + c[:n] + b"\r\n")
                c = c[n:]
                sent += n
            if bad and sent > 16384:
                self.send(b"zz-not-hex\r\n")
                self.hold()

    def r_gzip(self):
        honest = self.q.get("honest") == "1"
        asked = "gzip" in self.headers.get("accept-encoding", "")
        data, rate = self.audio_source()
        if honest and not asked:
            return self.stream_audio()
        self.head("200 OK", [("Content-Type", "audio/mpeg"), ("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding"),
                             ("Connection", "close")])
        comp = zlib.compressobj(6, zlib.DEFLATED, 31)  # gzip wrapper
        for c in self.audio_bytes(data, rate):
            out = comp.compress(c) + comp.flush(zlib.Z_SYNC_FLUSH)
            if out:
                self.send(out)

    # ------------------------------------------------------------------ playlists
    def playlist_entries(self):
        ok = self.base + "/ok.mp3"
        return [ok, DEAD_URL] if self.q.get("order") == "ok-first" else [DEAD_URL, ok]

    def send_doc(self, ctype, text):
        body = text.encode("utf-8")
        self.head("200 OK", [("Content-Type", ctype), ("Content-Length", len(body)), ("Connection", "close")])
        if self.method != "HEAD":
            self.send(body)

    def r_playlist_m3u(self):
        self.send_doc("audio/x-mpegurl", "".join(u + "\n" for u in self.playlist_entries()))

    def r_playlist_m3u8(self):
        lines = ["#EXTM3U"]
        for i, u in enumerate(self.playlist_entries()):
            lines += [f"#EXTINF:-1,Entry {i + 1} – “{'dead' if u == DEAD_URL else 'ok'}”", u]
        self.send_doc("application/vnd.apple.mpegurl", "\n".join(lines) + "\n")

    def r_playlist_pls(self):
        e = self.playlist_entries()
        text = "[playlist]\n" + "".join(f"File{i + 1}={u}\nTitle{i + 1}=Entry {i + 1}\nLength{i + 1}=-1\n"
                                        for i, u in enumerate(e)) + f"NumberOfEntries={len(e)}\nVersion=2\n"
        self.send_doc("audio/x-scpls", text)

    def r_playlist_xspf(self):
        tracks = "".join(f"    <track><location>{u}</location><title>Entry {i + 1}</title></track>\n"
                         for i, u in enumerate(self.playlist_entries()))
        self.send_doc("application/xspf+xml", '<?xml version="1.0" encoding="UTF-8"?>\n'
                      '<playlist version="1" xmlns="http://xspf.org/ns/0/">\n  <trackList>\n'
                      + tracks + "  </trackList>\n</playlist>\n")

    def r_playlist_loop(self):
        self.send_doc("audio/x-mpegurl", self.base + "/playlist-loop.m3u\n")

    def r_playlist_nested(self):
        self.send_doc("audio/x-mpegurl", self.base + "/playlist.pls\n")

    def r_playlist_hls(self):
        self.send_doc("application/vnd.apple.mpegurl",
                      "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:1\n"
                      + "".join(f"#EXTINF:6.0,\n{self.base}/404?segment={i}.ts\n" for i in range(1, 4)))

    def r_playlist_huge(self):
        size = int(self.q.get("size", str(1 << 30)))
        kind = self.q.get("kind", "urls")
        chunked = self.q.get("chunked") == "1"
        url = (self.base + "/ok.mp3\n").encode()
        if kind == "urls":
            head, line, tail = b"#EXTM3U\n", url, b""
        elif kind == "comments":
            head, line, tail = b"#EXTM3U\n", b"# " + b"padding " * 8 + b"\n", b"\n" + url
        elif kind == "oneline":
            head, line, tail = b"", b"x" * 64, b""
        else:
            return self.simple(400, "Bad Request", "kind: urls, comments, oneline")
        block = line * max(1, 65536 // len(line))
        hdrs = [("Content-Type", "audio/x-mpegurl"), ("Connection", "close")]
        hdrs.append(("Transfer-Encoding", "chunked") if chunked else ("Content-Length", size))
        self.head("200 OK", hdrs)

        def out(b):
            if b:  # an empty chunk would end a chunked body
                self.send(b"%x\r\n" % len(b) + b + b"\r\n" if chunked else b)
        left = size - len(head) - len(tail)
        out(head)
        while left > 0:
            b = block[:left]
            out(b)
            left -= len(b)
        out(tail)
        if chunked:
            self.send(b"0\r\n\r\n")

    # ------------------------------------------------------------------ the test's view
    def r_stats(self):
        body = json.dumps(self.server.stats.snapshot(self.q.get("reset") == "1"), indent=1).encode()
        self.head("200 OK", [("Content-Type", "application/json"), ("Content-Length", len(body)),
                             ("Connection", "close")])
        self.send(body)


ROUTES = {
    "/ok.mp3": Handler.r_ok, "/icy-status": Handler.r_icy_status,
    "/404": Handler.r_404, "/500": Handler.r_500, "/503": Handler.r_503,
    "/redirect-ok": Handler.r_redirect_ok, "/redirect-relative": Handler.r_redirect_relative,
    "/redirect-chain": Handler.r_redirect_chain, "/redirect-loop": Handler.r_redirect_loop,
    "/redirect-a": Handler.r_redirect_a, "/redirect-b": Handler.r_redirect_b,
    "/redirect-file": Handler.r_redirect_file, "/redirect-ftp": Handler.r_redirect_ftp,
    "/redirect-scheme": Handler.r_redirect_scheme, "/redirect-no-location": Handler.r_redirect_no_location,
    "/cut": Handler.r_cut, "/trickle": Handler.r_trickle, "/silent-accept": Handler.r_silent_accept,
    "/close-immediately": Handler.r_close_immediately, "/reset": Handler.r_reset,
    "/slow-headers": Handler.r_slow_headers, "/huge-header": Handler.r_huge_header,
    "/endless-header": Handler.r_endless_header, "/many-headers": Handler.r_many_headers,
    "/malformed-headers": Handler.r_malformed_headers, "/icy-huge-title": Handler.r_icy_huge_title,
    "/icy-bad-metaint": Handler.r_icy_bad_metaint, "/zeros": Handler.r_zeros, "/random": Handler.r_random,
    "/wrong-type": Handler.r_wrong_type, "/chunked": Handler.r_chunked, "/gzip": Handler.r_gzip,
    "/playlist.m3u": Handler.r_playlist_m3u, "/playlist.m3u8": Handler.r_playlist_m3u8,
    "/playlist.pls": Handler.r_playlist_pls, "/playlist.xspf": Handler.r_playlist_xspf,
    "/playlist-loop.m3u": Handler.r_playlist_loop, "/playlist-nested.m3u": Handler.r_playlist_nested,
    "/playlist-hls.m3u8": Handler.r_playlist_hls, "/playlist-huge.m3u": Handler.r_playlist_huge,
    "/stats": Handler.r_stats,
}


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, port, args):
        super().__init__(("127.0.0.1", port), Handler)
        self.port = self.server_address[1]
        self.stats = Stats()
        self.max_conn_seconds = args.max_conn_seconds
        self.end_time = time.monotonic() + args.lifetime
        self.stopping = False
        self.media = args.media
        if args.mp3:
            self.mp3 = open(args.mp3, "rb").read()
        else:
            self.mp3 = SILENT_FRAME * 383  # ~10 s
        self.mp3_rate = mp3_byte_rate(self.mp3)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--mp3", help="the MP3 that /ok.mp3 and the audio paths send (default: built-in silence)")
    ap.add_argument("--media", help="a folder served under /media/")
    ap.add_argument("--lifetime", type=float, default=3600, help="exit after this many seconds (default 3600)")
    ap.add_argument("--max-conn-seconds", type=float, default=600, help="longest life of one connection")
    a = ap.parse_args()
    srv = Server(a.port, a)

    def stop(*_):
        srv.stopping = True
        threading.Thread(target=srv.shutdown, daemon=True).start()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threading.Timer(a.lifetime, stop).start()
    print(json.dumps({"port": srv.port, "base": f"http://127.0.0.1:{srv.port}", "dead_url": DEAD_URL,
                      "mp3_byte_rate": srv.mp3_rate}), flush=True)
    srv.serve_forever(poll_interval=0.2)
    srv.server_close()
    os._exit(0)  # the lifetime timer and handler threads are daemons or bounded: don't wait for them


if __name__ == "__main__":
    main()
