#!/usr/bin/env python3
"""Fetches a URL with the machine's libcurl (through ctypes, stdlib only) the way a player would, and says what
happened: which error, after how long, how many bytes, which redirects. It shows what libcurl itself does with each
hostile server path, with its defaults and with the options README.md recommends for fermatad.

    curl_probe.py URL [--preset default|recommended] [--max-time 5] [--max-bytes N] [--set OPTION=VALUE ...]
    curl_probe.py --matrix BASE [--preset ...]     every hostile_server.py path under BASE, one JSON line each

  default      libcurl's defaults plus FOLLOWLOCATION=1 (what a naive client does)
  recommended  PROTOCOLS_STR=http,https  REDIR_PROTOCOLS_STR=http,https  FOLLOWLOCATION=1  MAXREDIRS=5
               CONNECTTIMEOUT_MS=5000 (it covers the name lookup)  LOW_SPEED_LIMIT=1 LOW_SPEED_TIME=10
               HTTP200ALIASES="ICY 200 OK"  HTTPHEADER="Icy-MetaData: 1"  NOSIGNAL=1  MAXFILESIZE (playlists only)
--set takes CURLOPT names without the prefix: --set MAXREDIRS=2 --set ACCEPT_ENCODING=identity.

Output: {"url", "preset", "result": N, "error": "...", "errbuf": "...", "http_code", "content_type", "bytes",
"namelookup_s", "total_s", "redirects", "effective_url", "headers_bytes", "stopped": "max-bytes" | "max-time" | null}.
Stopping at --max-bytes or --max-time is the probe's own doing (result 23 or 28), not a failure of the stream.
"""
import argparse
import ctypes
import ctypes.util
import json
import sys
import time

LONG, OBJ, FUNC, OFF_T = 0, 10000, 20000, 30000
OPTS = {  # name: (number, kind)
    "URL": (10002, "str"), "WRITEFUNCTION": (20011, "func"), "HEADERFUNCTION": (20079, "func"),
    "FOLLOWLOCATION": (52, "long"), "MAXREDIRS": (68, "long"), "CONNECTTIMEOUT_MS": (156, "long"),
    "TIMEOUT_MS": (155, "long"), "LOW_SPEED_LIMIT": (19, "long"), "LOW_SPEED_TIME": (20, "long"),
    "HTTPHEADER": (10023, "slist"), "HTTP200ALIASES": (10104, "slist"), "ACCEPT_ENCODING": (10102, "str"),
    "MAXFILESIZE": (114, "long"), "PROTOCOLS_STR": (10318, "str"), "REDIR_PROTOCOLS_STR": (10319, "str"),
    "NOSIGNAL": (99, "long"), "HTTP09_ALLOWED": (285, "long"), "ERRORBUFFER": (10010, "ptr"),
    "USERAGENT": (10018, "str"), "DNS_SERVERS": (10211, "str"), "RESOLVE": (10203, "slist"),
    "HTTP_CONTENT_DECODING": (158, "long"), "BUFFERSIZE": (98, "long"),
}
INFO_STRING, INFO_LONG, INFO_DOUBLE, INFO_OFF_T = 0x100000, 0x200000, 0x300000, 0x600000

RECOMMENDED = {
    "PROTOCOLS_STR": "http,https", "REDIR_PROTOCOLS_STR": "http,https", "FOLLOWLOCATION": 1, "MAXREDIRS": 5,
    "CONNECTTIMEOUT_MS": 5000, "LOW_SPEED_LIMIT": 1, "LOW_SPEED_TIME": 10, "HTTP200ALIASES": ["ICY 200 OK"],
    "HTTPHEADER": ["Icy-MetaData: 1"], "NOSIGNAL": 1, "USERAGENT": "fermatad-probe/1",
}
DEFAULT = {"FOLLOWLOCATION": 1, "NOSIGNAL": 1}

WRITE_CB = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p)

lib = ctypes.CDLL(ctypes.util.find_library("curl") or "libcurl.so.4")
lib.curl_easy_init.restype = ctypes.c_void_p
lib.curl_easy_setopt.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
lib.curl_easy_perform.argtypes = [ctypes.c_void_p]
lib.curl_easy_cleanup.argtypes = [ctypes.c_void_p]
lib.curl_easy_getinfo.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
lib.curl_easy_strerror.restype = ctypes.c_char_p
lib.curl_slist_append.restype = ctypes.c_void_p
lib.curl_slist_append.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.curl_slist_free_all.argtypes = [ctypes.c_void_p]
lib.curl_version.restype = ctypes.c_char_p
lib.curl_global_init(3)


def probe(url, options, max_time=5.0, max_bytes=None):
    h = lib.curl_easy_init()
    keep = []  # keep C buffers and callbacks alive
    state = {"bytes": 0, "headers": 0, "stopped": None, "t0": time.monotonic()}

    def on_write(ptr, size, n, _ud):
        total = size * n
        state["bytes"] += total
        if max_bytes is not None and state["bytes"] >= max_bytes:
            state["stopped"] = "max-bytes"
            return 0  # abort: CURLE_WRITE_ERROR
        return total

    def on_header(ptr, size, n, _ud):
        state["headers"] += size * n
        return size * n

    wcb, hcb = WRITE_CB(on_write), WRITE_CB(on_header)
    keep += [wcb, hcb]
    errbuf = ctypes.create_string_buffer(256)
    keep.append(errbuf)
    slists = []

    def setopt(name, value):
        num, kind = OPTS[name]
        if kind == "long":
            rc = lib.curl_easy_setopt(h, num, ctypes.c_void_p(int(value)))
        elif kind == "str":
            b = ctypes.c_char_p(str(value).encode())
            keep.append(b)
            rc = lib.curl_easy_setopt(h, num, ctypes.cast(b, ctypes.c_void_p))
        elif kind == "slist":
            sl = None
            for item in (value if isinstance(value, list) else [value]):
                sl = lib.curl_slist_append(sl, item.encode())
            slists.append(sl)
            rc = lib.curl_easy_setopt(h, num, ctypes.c_void_p(sl))
        elif kind == "func":
            rc = lib.curl_easy_setopt(h, num, ctypes.cast(value, ctypes.c_void_p))
        else:
            rc = lib.curl_easy_setopt(h, num, ctypes.cast(value, ctypes.c_void_p))
        return rc

    setopt("URL", url)
    setopt("WRITEFUNCTION", wcb)
    setopt("HEADERFUNCTION", hcb)
    setopt("ERRORBUFFER", errbuf)
    setopt("TIMEOUT_MS", int(max_time * 1000))
    setopt_errors = {}
    for k, v in options.items():
        rc = setopt(k, v)
        if rc:
            setopt_errors[k] = f"{rc}: {lib.curl_easy_strerror(rc).decode()}"
    rc = lib.curl_easy_perform(h)
    elapsed = time.monotonic() - state["t0"]

    def info_long(n):
        v = ctypes.c_long(0)
        lib.curl_easy_getinfo(h, INFO_LONG + n, ctypes.byref(v))
        return v.value

    def info_str(n):
        v = ctypes.c_char_p()
        lib.curl_easy_getinfo(h, INFO_STRING + n, ctypes.byref(v))
        return v.value.decode("utf-8", "replace") if v.value else None

    def info_double(n):
        v = ctypes.c_double(0)
        lib.curl_easy_getinfo(h, INFO_DOUBLE + n, ctypes.byref(v))
        return round(v.value, 3)

    out = {"url": url, "result": rc, "error": lib.curl_easy_strerror(rc).decode(),
           "errbuf": errbuf.value.decode("utf-8", "replace"), "http_code": info_long(2),
           "content_type": info_str(18), "bytes": state["bytes"], "headers_bytes": state["headers"],
           "namelookup_s": info_double(4), "total_s": round(elapsed, 3), "redirects": info_long(20),
           "effective_url": info_str(1),
           "stopped": state["stopped"] or ("max-time" if rc == 28 and elapsed >= max_time * 0.95 else None)}
    if setopt_errors:
        out["setopt_errors"] = setopt_errors
    lib.curl_easy_cleanup(h)
    for sl in slists:
        lib.curl_slist_free_all(sl)
    return out


MATRIX = [  # path, max_time, max_bytes
    ("/ok.mp3", 2, None), ("/404", 3, None), ("/redirect-loop", 3, None), ("/redirect-a", 3, None),
    ("/redirect-chain?n=3", 2, None), ("/redirect-chain?n=8", 2, None), ("/redirect-relative", 2, None),
    ("/redirect-file", 3, None), ("/redirect-ftp", 3, None), ("/redirect-scheme?to=dict://127.0.0.1:1/x", 3, None),
    ("/redirect-no-location", 3, None), ("/cut?after=20000", 5, None), ("/cut?after=20000&length=1", 5, None),
    ("/cut?after=20000&hold=1", 15, None), ("/trickle?rate=1000", 3, None), ("/trickle?rate=0", 15, None),
    ("/silent-accept", 15, None), ("/close-immediately", 3, None), ("/reset", 3, None),
    ("/slow-headers?interval=0.2", 8, None), ("/huge-header", 5, None), ("/huge-header?size=90000", 2, None),
    ("/endless-header", 5, None), ("/many-headers", 5, None), ("/many-headers?n=1000", 2, None),
    ("/malformed-headers?kind=nocolon", 2, None), ("/malformed-headers?kind=nul", 2, None),
    ("/malformed-headers?kind=lf", 2, None), ("/malformed-headers?kind=badstatus", 2, None),
    ("/malformed-headers?kind=nostatus", 2, None), ("/malformed-headers?kind=fold", 2, None),
    ("/malformed-headers?kind=spacename", 2, None), ("/malformed-headers?kind=dupctype", 2, None),
    ("/malformed-headers?kind=hugestatus", 2, None), ("/icy-status", 2, None),
    ("/icy-huge-title", 3, 50_000_000), ("/icy-bad-metaint?value=-1", 2, None), ("/zeros", 3, 10_000_000),
    ("/random", 3, 10_000_000), ("/wrong-type", 3, None), ("/chunked", 2, None), ("/chunked?bad=1", 4, None),
    ("/gzip", 2, None), ("/playlist.pls", 3, None), ("/playlist-huge.m3u", 10, None),
    ("/playlist-huge.m3u?chunked=1", 10, None),
]


def parse_value(v):
    if "|" in v:
        return v.split("|")
    try:
        return int(v)
    except ValueError:
        return v


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("url", nargs="?")
    ap.add_argument("--preset", choices=["default", "recommended"], default="recommended")
    ap.add_argument("--max-time", type=float, default=5.0)
    ap.add_argument("--max-bytes", type=int, default=None)
    ap.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE")
    ap.add_argument("--matrix", metavar="BASE", help="probe every hostile_server.py path under BASE")
    a = ap.parse_args()
    opts = dict(RECOMMENDED if a.preset == "recommended" else DEFAULT)
    for s in a.set:
        k, v = s.split("=", 1)
        opts[k.upper().removeprefix("CURLOPT_")] = parse_value(v)
    if a.matrix:
        print(json.dumps({"libcurl": lib.curl_version().decode(), "preset": a.preset, "options": opts}), flush=True)
        for path, mt, mb in MATRIX:
            o = dict(opts)
            if "playlist" in path and a.preset == "recommended":
                o["MAXFILESIZE"] = 1 << 20
            print(json.dumps({"path": path, **probe(a.matrix.rstrip("/") + path, o, mt, mb)}), flush=True)
        return
    if not a.url:
        ap.error("URL or --matrix BASE")
    print(json.dumps({"preset": a.preset, **probe(a.url, opts, a.max_time, a.max_bytes)}))


if __name__ == "__main__":
    main()
