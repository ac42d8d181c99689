#!/usr/bin/env python3
"""A tiny, slow DNS server for "slow DNS answer" tests.  (stdlib only, UDP)

    slow_dns.py [--address 127.53.0.1] [--port 53] [--delay 2.0] [--aaaa] [--lifetime 3600]

Prints {"address": A, "port": P, "delay": D} on stdout when ready, then one JSON line per query on stderr.
Answers, for names under .test (case-insensitive):
  NAME.test                 A 127.0.0.1 after --delay seconds (AAAA: no data -- or ::1 with --aaaa -- after the same
                            delay, so getaddrinfo(AF_UNSPEC), which asks both, waits for the delay and no longer)
  NAME.delay-MS.test        the same after MS milliseconds (e.g. x.delay-0.test answers at once, x.delay-8000.test
  delay-MS.test             after 8 s)
  never.test, *.never.test  never answered (the resolver times out: glibc's default is 5 s per try, 2 tries per
                            server, per address family; RES_OPTIONS="timeout:1 attempts:1" shortens it)
  nx.test, *.nx.test        NXDOMAIN at once
  servfail.test             SERVFAIL at once
  anything else             REFUSED at once
Each answer is sent from its own timer, so slow answers don't hold up others. Exits after --lifetime seconds.

Port 53 is the only port glibc's resolver can use (resolv.conf has no port syntax), and binding it needs root
(or a network namespace of one's own). The default address 127.53.0.1 is a loopback address nothing else uses
(all of 127.0.0.0/8 is loopback on Linux), so it does not clash with a resolver on 127.0.0.1/127.0.0.53.
with_dns.sh points one command (the daemon under test) at this server: see README.md "Slow DNS".
"""
import argparse
import json
import socket
import struct
import sys
import threading
import time

NOERROR, SERVFAIL, NXDOMAIN, REFUSED = 0, 2, 3, 5
QTYPE = {1: "A", 28: "AAAA", 5: "CNAME", 15: "MX", 16: "TXT", 33: "SRV", 65: "HTTPS", 255: "ANY"}


def parse_query(data):
    if len(data) < 12:
        return None
    qid, flags, qd = struct.unpack(">HHH", data[:6])
    if flags & 0x8000 or qd != 1:
        return None
    pos, labels = 12, []
    while True:
        if pos >= len(data):
            return None
        n = data[pos]
        pos += 1
        if n == 0:
            break
        if n & 0xC0:
            return None
        labels.append(data[pos:pos + n].decode("ascii", "replace"))
        pos += n
    if pos + 4 > len(data):
        return None
    qtype, qclass = struct.unpack(">HH", data[pos:pos + 4])
    question = data[12:pos + 4]
    return qid, flags, ".".join(labels).lower(), qtype, qclass, question


def response(qid, flags, question, rcode, answers=()):
    rflags = 0x8000 | (flags & 0x7800) | 0x0400 | (flags & 0x0100) | 0x0080 | rcode  # QR, opcode, AA, RD, RA
    out = struct.pack(">HHHHHH", qid, rflags, 1, len(answers), 0, 0) + question
    for rtype, rdata in answers:
        out += struct.pack(">HHHIH", 0xC00C, rtype, 1, 5, len(rdata)) + rdata
    return out


def decide(name, qtype, default_delay, aaaa):
    """(delay or None for never, rcode, answers)"""
    if not (name == "test" or name.endswith(".test")):
        return 0.0, REFUSED, []
    labels = name.split(".")
    if "never" in labels:
        return None, None, None
    if "nx" in labels:
        return 0.0, NXDOMAIN, []
    if "servfail" in labels:
        return 0.0, SERVFAIL, []
    delay = default_delay
    for label in labels:
        if label.startswith("delay-") and label[6:].isdigit():
            delay = int(label[6:]) / 1000.0
    if qtype == 1:
        return delay, NOERROR, [(1, socket.inet_aton("127.0.0.1"))]
    if qtype == 28 and aaaa:
        return delay, NOERROR, [(28, socket.inet_pton(socket.AF_INET6, "::1"))]
    return delay, NOERROR, []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--address", default="127.53.0.1")
    ap.add_argument("--port", type=int, default=53, help="53 (the default) is what resolv.conf can name; 0: free")
    ap.add_argument("--delay", type=float, default=2.0)
    ap.add_argument("--aaaa", action="store_true", help="answer AAAA ::1 too (default: no AAAA data)")
    ap.add_argument("--lifetime", type=float, default=3600)
    a = ap.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.bind((a.address, a.port))
    except PermissionError:
        sys.exit(f"slow_dns.py: cannot bind {a.address}:{a.port} (port 53 needs root or a namespace of one's own;"
                 " see README.md)")
    sock.settimeout(0.5)
    port = sock.getsockname()[1]
    print(json.dumps({"address": a.address, "port": port, "delay": a.delay}), flush=True)
    lock = threading.Lock()
    pending = [0]
    end = time.monotonic() + a.lifetime
    t0 = time.monotonic()

    def send(pkt, addr, info):
        try:
            sock.sendto(pkt, addr)
        except OSError:
            pass
        with lock:
            pending[0] -= 1
        out = {k: v for k, v in info.items() if k != "_t"}
        out.update(answered_after=round(time.monotonic() - info["_t"], 3), t=round(time.monotonic() - t0, 3))
        print(json.dumps(out), file=sys.stderr, flush=True)

    while time.monotonic() < end:
        try:
            data, addr = sock.recvfrom(4096)
        except socket.timeout:
            continue
        except OSError:
            break
        q = parse_query(data)
        if q is None:
            continue
        qid, flags, name, qtype, _qclass, question = q
        delay, rcode, answers = decide(name, qtype, a.delay, a.aaaa)
        info = {"name": name, "type": QTYPE.get(qtype, qtype), "from": f"{addr[0]}:{addr[1]}",
                "delay": delay, "rcode": rcode, "_t": time.monotonic()}
        if delay is None:
            print(json.dumps({k: v for k, v in info.items() if k != "_t"} | {"answer": "never",
                             "t": round(time.monotonic() - t0, 3)}), file=sys.stderr, flush=True)
            continue
        with lock:
            if pending[0] > 10000:
                continue
            pending[0] += 1
        pkt = response(qid, flags, question, rcode, answers)
        if delay <= 0:
            send(pkt, addr, info)
        else:
            t = threading.Timer(delay, send, (pkt, addr, info))
            t.daemon = True
            t.start()


if __name__ == "__main__":
    main()
