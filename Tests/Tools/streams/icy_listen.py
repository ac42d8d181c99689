#!/usr/bin/env python3
"""A listener that shows what a streaming client receives: HTTP headers, ICY metadata, Ogg stream headers, audio bytes.

    icy_listen.py URL [--duration S] [--out AUDIO] [--raw RAW] [--no-icy] [--until-title TEXT] [--max-bytes N]

Connects to an http:// URL over a plain socket (no redirects followed, so what the server says is what you see), sends
`Icy-MetaData: 1` unless --no-icy, and prints one JSON object a line on stdout:

  {"event": "headers", "t": 0.004, "status": "HTTP/1.0 200 OK", "headers": [["Content-Type", "audio/mpeg"], ...]}
  {"event": "icy", "t": 1.02, "audio_offset": 16000, "length": 48, "raw": "StreamTitle='x';", "title": "x"}
  {"event": "ogg-bos", "t": 0.01, "audio_offset": 0, "serial": 1234, "codec": "vorbis"}
  {"event": "ogg-tags", "t": 0.01, "audio_offset": 3850, "serial": 1234, "codec": "vorbis", "vendor": "...",
   "comments": ["TITLE=x", ...], "title": "x"}
  {"event": "title", "t": 1.02, "title": "x", "via": "icy" | "ogg"}      -- every time the current title changes
  {"event": "end", "t": 5.0, "audio_bytes": N, "bytes_at": {"0.1": .., "0.25": .., "0.5": .., "1": ..},
   "first_audio_t": 0.2, "burst_bytes": N, "reason": "..."}

"t" is seconds since the connection was made. `audio_offset` counts audio bytes (ICY metadata blocks removed) before
the event. `bytes_at` gives how many audio bytes had arrived 0.1/0.25/0.5/1 s after connecting: the burst a server
sends on connect; `burst_bytes` those within 100 ms of the first audio byte (at `first_audio_t`). --out writes the audio bytes (metadata removed), --raw the whole body as received.

Exit status: 0 when it ran to --duration/--max-bytes/--until-title, or the server closed the stream; 1 on a connection
or HTTP error; 2 when --until-title was given and the title was not seen.

Also importable: `Listener(url, ...)` runs in a thread and calls `on_event(dict)` for each event (measure.py uses it).
"""
import argparse
import json
import re
import signal
import socket
import sys
import threading
import time
import urllib.parse

NEXT_KEY_RE = re.compile(rb"[A-Za-z]+='")


def parse_icy_title(meta: bytes):
    """StreamTitle='...'; -- titles may hold quotes and "';" of their own, so the value ends at the first "';" that is
    followed by the end of the block (NUL padding) or by another key (StreamUrl='...')."""
    meta = meta.rstrip(b"\0")
    start = meta.find(b"StreamTitle='")
    if start < 0:
        return None
    start += len(b"StreamTitle='")
    end = meta.find(b"';", start)
    first = end
    while end >= 0:
        rest = meta[end + 2:].lstrip()
        if not rest or NEXT_KEY_RE.match(rest):
            break
        end = meta.find(b"';", end + 1)
    if end < 0:
        end = first if first >= 0 else len(meta)  # unterminated: what a lenient client would take
    return meta[start:end].decode("utf-8", "replace")


def parse_vorbis_comment(data: bytes):
    """vendor_length(le32) vendor count(le32) {length(le32) "KEY=value"}*  ->  (vendor, [comments])"""
    pos = 0
    n = int.from_bytes(data[pos:pos + 4], "little"); pos += 4
    vendor = data[pos:pos + n].decode("utf-8", "replace"); pos += n
    count = int.from_bytes(data[pos:pos + 4], "little"); pos += 4
    comments = []
    for _ in range(min(count, 10000)):
        if pos + 4 > len(data):
            break
        n = int.from_bytes(data[pos:pos + 4], "little"); pos += 4
        comments.append(data[pos:pos + n].decode("utf-8", "replace")); pos += n
    return vendor, comments


class OggScanner:
    """Splits Ogg pages out of a byte stream, reassembles the first packets of each logical stream and reports
    beginning-of-stream pages and the comment (tag) headers of Vorbis, Opus and FLAC-in-Ogg streams."""

    def __init__(self, emit):
        self.buf = bytearray()
        self.emit = emit
        self.streams = {}  # serial -> {"codec", "packets", "partial"}
        self.consumed = 0  # bytes of the audio stream before self.buf
        self.pages = 0

    def feed(self, data: bytes):
        self.buf += data
        while True:
            i = self.buf.find(b"OggS")
            if i < 0:
                keep = len(self.buf) - 3 if len(self.buf) > 3 else 0
                self.consumed += keep
                del self.buf[:keep]
                return
            if i:
                self.consumed += i
                del self.buf[:i]
            if len(self.buf) < 27:
                return
            nseg = self.buf[26]
            if len(self.buf) < 27 + nseg:
                return
            lacing = self.buf[27:27 + nseg]
            size = 27 + nseg + sum(lacing)
            if len(self.buf) < size:
                return
            page = bytes(self.buf[:size])
            offset = self.consumed
            self.consumed += size
            del self.buf[:size]
            self.page(page, lacing, offset)

    def page(self, page, lacing, offset):
        self.pages += 1
        flags = page[5]
        serial = int.from_bytes(page[14:18], "little")
        body = page[27 + len(lacing):]
        if flags & 2:
            self.streams[serial] = {"codec": None, "packets": 0, "partial": b""}
        st = self.streams.get(serial)
        if st is None or st["packets"] > 3:  # joined mid-stream without its headers, or past the headers
            return
        pos = 0
        partial = st["partial"] if flags & 1 else b""
        for lace in lacing:
            partial += body[pos:pos + lace]
            pos += lace
            if lace < 255:
                self.packet(serial, st, partial, offset, bos=bool(flags & 2) and st["packets"] == 0)
                partial = b""
                if st["packets"] > 3:
                    break
        st["partial"] = partial

    def packet(self, serial, st, pkt, offset, bos):
        st["packets"] += 1
        if st["packets"] == 1:
            codec = ("vorbis" if pkt.startswith(b"\x01vorbis") else "opus" if pkt.startswith(b"OpusHead")
                     else "flac" if pkt.startswith(b"\x7fFLAC") else "theora" if pkt.startswith(b"\x80theora")
                     else "speex" if pkt.startswith(b"Speex") else "unknown")
            st["codec"] = codec
            self.emit({"event": "ogg-bos", "audio_offset": offset, "serial": serial, "codec": codec})
            return
        tags = None
        if st["codec"] == "vorbis" and pkt.startswith(b"\x03vorbis"):
            tags = pkt[7:]
        elif st["codec"] == "opus" and pkt.startswith(b"OpusTags"):
            tags = pkt[8:]
        elif st["codec"] == "flac" and pkt and pkt[0] & 0x7F == 4:
            tags = pkt[4:]
        if tags is not None:
            vendor, comments = parse_vorbis_comment(tags)
            title = None
            for c in comments:
                if c.upper().startswith("TITLE="):
                    title = c[6:]
            artist = next((c[7:] for c in comments if c.upper().startswith("ARTIST=")), None)
            self.emit({"event": "ogg-tags", "audio_offset": offset, "serial": serial, "codec": st["codec"],
                       "vendor": vendor, "comments": comments, "title": title, "artist": artist})


class Listener:
    def __init__(self, url, icy=True, duration=None, max_bytes=None, until_title=None, out=None, raw=None,
                 on_event=None, timeout=10.0, quiet=False):
        u = urllib.parse.urlsplit(url)
        if u.scheme != "http":
            raise ValueError("only http:// URLs")
        self.host, self.port = u.hostname, u.port or 80
        self.path = (u.path or "/") + ("?" + u.query if u.query else "")
        self.icy, self.duration, self.max_bytes, self.until_title = icy, duration, max_bytes, until_title
        self.out, self.raw, self.timeout = out, raw, timeout
        self.on_event = on_event or (lambda e: None)
        self.audio_bytes = 0
        self.title = None
        self.titles = []
        self.events = []
        self.t0 = None
        self.stop_flag = threading.Event()
        self.reason = None
        self.bytes_at = {}
        self.first_audio_t = None  # seconds from connect to the first audio byte
        self.burst_bytes = None  # audio bytes that arrived within 100 ms of the first
        self.thread = None
        self.ok = False
        self.sock = None

    def emit(self, ev):
        ev = {"event": ev.pop("event"), "t": round(time.monotonic() - self.t0, 4), **ev}
        self.events.append(ev)
        self.on_event(ev)
        title = ev.get("title") if ev["event"] in ("icy", "ogg-tags") else None
        if title is not None and title != self.title:
            self.title = title
            self.titles.append((time.monotonic(), title))
            t = {"event": "title", "t": ev["t"], "title": title, "via": "icy" if ev["event"] == "icy" else "ogg"}
            self.events.append(t)
            self.on_event(t)
            if self.until_title is not None and title == self.until_title:
                self.reason = "title seen"
                self.stop_flag.set()

    def start(self):
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.stop_flag.set()
        if self.thread:
            self.thread.join(5)

    def run(self):
        self.t0 = time.monotonic()
        out = open(self.out, "wb") if self.out else None
        raw = open(self.raw, "wb") if self.raw else None
        try:
            self._run(out, raw)
        except (OSError, ValueError) as e:
            self.reason = self.reason or f"error: {e}"
        finally:
            if self.sock:
                self.sock.close()
            for f in (out, raw):
                if f:
                    f.close()
            marks = {}
            for k, v in sorted(self.bytes_at.items()):
                marks[str(k)] = v
            self.emit({"event": "end", "audio_bytes": self.audio_bytes, "bytes_at": marks,
                       "first_audio_t": None if self.first_audio_t is None else round(self.first_audio_t, 4),
                       "burst_bytes": self.burst_bytes, "reason": self.reason or "stopped"})

    def _run(self, out, raw):
        s = socket.create_connection((self.host, self.port), timeout=self.timeout)
        self.sock = s
        req = (f"GET {self.path} HTTP/1.0\r\nHost: {self.host}:{self.port}\r\nUser-Agent: fermata-icy-listen/1\r\n"
               + ("Icy-MetaData: 1\r\n" if self.icy else "") + "\r\n")
        s.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(65536)
            if not chunk:
                raise OSError("connection closed before the end of the headers")
            head += chunk
            if len(head) > 1 << 20:
                raise OSError("headers longer than 1 MiB")
        head, body = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        headers = [tuple(x.strip() for x in l.split(":", 1)) for l in lines[1:] if ":" in l]
        self.emit({"event": "headers", "status": lines[0], "headers": headers})
        status = lines[0].split()
        if len(status) < 2 or status[1] != "200":
            self.reason = "http status " + lines[0]
            return
        self.ok = True
        hmap = {k.lower(): v for k, v in headers}
        metaint = int(hmap["icy-metaint"]) if self.icy and hmap.get("icy-metaint", "").isdigit() else 0
        ogg = OggScanner(lambda ev: self.emit({**ev, "audio_offset": ev["audio_offset"]}))
        is_ogg = "ogg" in hmap.get("content-type", "")
        left = metaint  # audio bytes before the next metadata length byte
        meta_len, meta = None, b""
        marks = [0.1, 0.25, 0.5, 1.0]
        s.settimeout(0.05)
        data = body
        while not self.stop_flag.is_set():
            now = time.monotonic() - self.t0
            while marks and now >= marks[0]:
                self.bytes_at[marks.pop(0)] = self.audio_bytes
            if self.duration is not None and now >= self.duration:
                self.reason = "duration"
                break
            if not data:
                try:
                    data = s.recv(65536)
                except socket.timeout:
                    continue
                if not data:
                    self.reason = "server closed"
                    break
            if raw:
                raw.write(data)
            audio = bytearray()
            i = 0
            while i < len(data):
                if not metaint:
                    audio += data[i:]
                    break
                if meta_len is None and left > 0:
                    n = min(left, len(data) - i)
                    audio += data[i:i + n]
                    left -= n
                    i += n
                elif meta_len is None:
                    meta_len = data[i] * 16
                    i += 1
                    meta = b""
                if meta_len is not None:
                    n = min(meta_len - len(meta), len(data) - i)
                    meta += data[i:i + n]
                    i += n
                    if len(meta) == meta_len:
                        if audio:
                            self._audio(bytes(audio), out, ogg if is_ogg else None)
                            audio = bytearray()
                        if meta_len:
                            self.emit({"event": "icy", "audio_offset": self.audio_bytes, "length": meta_len,
                                       "raw": meta.rstrip(b"\0").decode("utf-8", "replace"),
                                       "title": parse_icy_title(meta)})
                        meta_len, left = None, metaint
            if audio:
                self._audio(bytes(audio), out, ogg if is_ogg else None)
            data = b""
            if self.max_bytes is not None and self.audio_bytes >= self.max_bytes:
                self.reason = "max bytes"
                break
        for m in marks:
            self.bytes_at[m] = self.audio_bytes

    def _audio(self, audio, out, ogg):
        now = time.monotonic() - self.t0
        if self.first_audio_t is None:
            self.first_audio_t = now
        if now - self.first_audio_t <= 0.1:
            self.burst_bytes = self.audio_bytes + len(audio)
        if ogg is not None:
            ogg.feed(audio)
        self.audio_bytes += len(audio)
        if out:
            out.write(audio)


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends us quietly
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("url")
    ap.add_argument("--duration", type=float, default=None, help="stop after S seconds (default: 10 unless other limits)")
    ap.add_argument("--max-bytes", type=int, default=None)
    ap.add_argument("--until-title", default=None, help="stop once this title is the current one")
    ap.add_argument("--no-icy", action="store_true", help="do not send Icy-MetaData: 1")
    ap.add_argument("--out", help="write the audio bytes (ICY metadata removed) here")
    ap.add_argument("--raw", help="write the body exactly as received here")
    ap.add_argument("--quiet", action="store_true", help="print only the title and end events")
    a = ap.parse_args()
    duration = a.duration if a.duration is not None else (None if a.max_bytes or a.until_title else 10.0)
    if a.until_title is not None and duration is None:
        duration = 30.0

    def show(ev):
        if a.quiet and ev["event"] not in ("title", "end", "headers"):
            return
        print(json.dumps(ev), flush=True)

    lst = Listener(a.url, icy=not a.no_icy, duration=duration, max_bytes=a.max_bytes, until_title=a.until_title,
                   out=a.out, raw=a.raw, on_event=show)
    lst.run()
    if not lst.ok:
        sys.exit(1)
    if a.until_title is not None and lst.title != a.until_title:
        sys.exit(2)


if __name__ == "__main__":
    main()
