#!/usr/bin/env python3
"""The security scenario's network: a network namespace joined to this one by a veth pair, so that a browser inside
it reaches fermatad from an address that is not loopback (as a phone on the LAN would).

    netns.py up NAME OCTET     namespace NAME; veth pair (this side 10.213.OCTET.1/30, NAME's side 10.213.OCTET.2/30);
                               loopback up inside (chromedriver listens there). Prints {"host": ..., "peer": ...}.
    netns.py down NAME OCTET   removes them (what is left of them; never fails).

Needs root and iproute2's `ip`. Exit status 0, or 1 with the failing command's output on stderr.
"""
import json
import shutil
import subprocess
import sys


def ip(*args, check=True):
    tool = shutil.which("ip") or "/usr/sbin/ip"
    r = subprocess.run([tool] + list(args), capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.stderr.write("ip %s: %s%s" % (" ".join(args), r.stdout, r.stderr))
        down(NAME, OCTET)
        sys.exit(1)
    return r


def down(name, octet):
    ip("netns", "del", name, check=False)
    ip("link", "del", "fw%sh" % octet, check=False)


if __name__ == "__main__":
    what, NAME, OCTET = sys.argv[1], sys.argv[2], sys.argv[3]
    host, peer = "10.213.%s.1" % OCTET, "10.213.%s.2" % OCTET
    outside, inside = "fw%sh" % OCTET, "fw%sn" % OCTET
    if what == "down":
        down(NAME, OCTET)
        sys.exit(0)
    down(NAME, OCTET)  # a leftover of an interrupted run
    ip("netns", "add", NAME)
    ip("link", "add", outside, "type", "veth", "peer", "name", inside)
    ip("link", "set", inside, "netns", NAME)
    ip("addr", "add", host + "/30", "dev", outside)
    ip("link", "set", outside, "up")
    ip("-n", NAME, "addr", "add", peer + "/30", "dev", inside)
    ip("-n", NAME, "link", "set", inside, "up")
    ip("-n", NAME, "link", "set", "lo", "up")
    print(json.dumps({"host": host, "peer": peer, "namespace": NAME}))
