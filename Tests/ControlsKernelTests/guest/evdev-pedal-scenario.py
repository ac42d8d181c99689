#!/usr/bin/python3
"""Guest side of ControlsKernelTests.realDaemonFootPedalThroughEvdev, run inside ../shared/kernel-lab:
    evdev-pedal-scenario.py OUT FERMATAD
OUT/music holds a.wav and b.wav. A virtual USB foot pedal is made through /dev/uinput with raw ioctls (no
python3-evdev): one key (KEY_B) with the kernel's own autorepeat (EV_REP: 250 ms, then every 33 ms). fermatad runs
with a configuration naming the pedal, and is started before the pedal exists. The scenario:
  1. another reader of the pedal's event node sees its events before fermatad holds it (the check can see them);
  2. the pedal is plugged in after fermatad started; a tap pauses, a tap plays: one toggle per tap;
  3. the pedal held 1.5 s (the kernel autorepeats it about 40 times): still one toggle;
  4. while fermatad holds the pedal, the other reader sees nothing;
  5. the pedal is destroyed and made again: fermatad has it again within 1 s, and 1 s after it was made a tap
     toggles again;
  6. the pedal is unplugged for good; SIGTERM; the log is left in OUT/daemon.log.
Results go to OUT/results, one "key value..." line each; the host-side test judges them.
"""
import fcntl
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

out, fermatad = sys.argv[1], sys.argv[2]
results = open(f"{out}/results", "w", buffering=1)
SOCK = "/tmp/fermata-mpd.sock"
NAME = b"Fermata Test FootSwitch"
EV_SYN, EV_KEY, EV_REP = 0, 1, 0x14
KEY_B = 48


def ioc(direction, kind, number, size):
    return (direction << 30) | (size << 16) | (ord(kind) << 8) | number


UI_SET_EVBIT, UI_SET_KEYBIT = ioc(1, "U", 100, 4), ioc(1, "U", 101, 4)
UI_DEV_SETUP, UI_DEV_CREATE, UI_DEV_DESTROY = ioc(1, "U", 3, 92), ioc(0, "U", 1, 0), ioc(0, "U", 2, 0)


def result(key, *values):
    results.write(" ".join([key] + [str(v) for v in values]) + "\n")


class Pedal:
    """A uinput device: a USB foot switch that types KEY_B, autorepeating like a keyboard."""

    def __init__(self, name=NAME):
        self.name = name
        self.fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
        fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_KEY)
        fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_REP)
        fcntl.ioctl(self.fd, UI_SET_KEYBIT, KEY_B)
        # struct uinput_setup: input_id (bustype BUS_USB, vendor, product, version), name[80], ff_effects_max.
        setup = struct.pack("<HHHH80sI", 0x03, 0x3553, 0xB001, 1, name, 0)
        fcntl.ioctl(self.fd, UI_DEV_SETUP, setup)
        fcntl.ioctl(self.fd, UI_DEV_CREATE)
        self.node = None
        for _ in range(200):
            self.node = find_node(name)
            if self.node:
                break
            time.sleep(0.01)

    def emit(self, kind, code, value):
        os.write(self.fd, struct.pack("llHHi", 0, 0, kind, code, value))

    def key(self, down):
        self.emit(EV_KEY, KEY_B, 1 if down else 0)
        self.emit(EV_SYN, 0, 0)

    def tap(self, ms=80):
        self.key(True)
        time.sleep(ms / 1000)
        self.key(False)

    def destroy(self):
        fcntl.ioctl(self.fd, UI_DEV_DESTROY)
        os.close(self.fd)


def find_node(name):
    for entry in os.listdir("/sys/class/input"):
        if not entry.startswith("event"):
            continue
        try:
            with open(f"/sys/class/input/{entry}/device/name", "rb") as f:
                if f.read().strip() == name:
                    return f"/dev/input/{entry}"
        except OSError:
            pass
    return None


def mpc(*args):
    return subprocess.run(["mpc", "-h", SOCK] + list(args), capture_output=True, text=True).stdout


def state():
    for word in ("[playing]", "[paused]"):
        if word in mpc("status"):
            return word.strip("[]")
    return "stopped"


def await_state(wanted, seconds=10):
    """Polls until the player is in `wanted`; returns the seconds it took, or None."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if state() == wanted:
            return round(time.monotonic() - start, 3)
        time.sleep(0.02)
    return None


def other_reader_sees(pedal, action):
    """Opens the pedal's node as another program would, runs `action`, and answers how many bytes it could read and
    how many of the events were the kernel's autorepeat (EV_KEY value 2)."""
    fd = os.open(pedal.node, os.O_RDONLY | os.O_NONBLOCK)
    try:
        action()
        time.sleep(0.2)
        try:
            data = os.read(fd, 16384)
        except BlockingIOError:
            return 0, 0
        events = [struct.unpack("llHHi", data[i:i + 24]) for i in range(0, len(data) - 23, 24)]
        return len(data), len([e for e in events if e[2] == EV_KEY and e[4] == 2])
    finally:
        os.close(fd)


def hold(pedal, seconds):
    pedal.key(True)
    time.sleep(seconds)
    pedal.key(False)


class Toggles:
    """Counts the player changes MPD reports while a step runs: an MPD client already waiting in `idle player`
    before the step starts, idling again after each change, until 0.5 s pass without one. Changes that come while
    it is between two idles are reported as one, so a pedal that toggled many times could count fewer than it did,
    but never one when it toggled dozens of times (kernel autorepeat every 33 ms); the state checks the parity."""

    def __enter__(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(SOCK)
        self.pending = b""
        while b"\n" not in self.pending:
            self.pending += self.sock.recv(4096)
        assert self.pending.startswith(b"OK MPD")
        self.pending = b""
        self.sock.sendall(b"idle player\n")
        return self

    def __exit__(self, *exc):
        self.count = 0
        while select.select([self.sock], [], [], 0.5)[0]:
            data = self.sock.recv(4096)
            if not data:
                break
            self.pending += data
            *lines, self.pending = self.pending.split(b"\n")
            for line in lines:
                if line == b"changed: player":
                    self.count += 1
                elif line == b"OK":
                    self.sock.sendall(b"idle player\n")
        self.sock.sendall(b"noidle\n")
        self.sock.close()


def main():
    state_dir = "/tmp/fermata-state"
    os.makedirs(state_dir, exist_ok=True)
    with open(f"{out}/fermata.toml", "w") as f:
        f.write('[controls]\nboard = "off"\n\n[input-pedal]\nname = "%s"\n\n' % NAME.decode()
                + '[button-pedal]\ninput = "pedal"\nkey = "KEY_B"\npress = "play-pause"\n')
    log = open(f"{out}/daemon.log", "w")
    daemon = subprocess.Popen([fermatad, "--config", f"{out}/fermata.toml", "--music", f"{out}/music",
                               "--state", state_dir, "--output", "null", "--resume", "off", "--listen", "",
                               "--socket", SOCK], stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(900):
            if "input pedal" in open(f"{out}/daemon.log").read() and os.path.exists(SOCK):
                break
            if daemon.poll() is not None:
                result("failed", "fermatad exited")
                return
            time.sleep(0.1)
        mpc("update", "--wait")
        mpc("add", "a.wav", "b.wav")
        mpc("play")
        result("before", state())

        # Another reader of a device fermatad does not take sees its events (so the check below can fail).
        spare = Pedal(b"Fermata Test Other Keyboard")
        seen, repeats = other_reader_sees(spare, lambda: hold(spare, 0.6))
        result("unheld_reader_bytes", seen)
        result("unheld_reader_repeats", repeats)
        spare.destroy()
        time.sleep(0.5)

        pedal = Pedal()
        plugged = time.monotonic()
        result("node", pedal.node)
        time.sleep(1.0)
        with Toggles() as t:
            pedal.tap()
            result("tap1", await_state("paused"))
        result("tap1_toggles", t.count)
        with Toggles() as t:
            pedal.tap()
            result("tap2", await_state("playing"))
        result("tap2_toggles", t.count)
        with Toggles() as t:
            hold(pedal, 1.5)
            result("held", await_state("paused"))
        result("held_toggles", t.count)
        result("held_reader_bytes", other_reader_sees(pedal, pedal.tap)[0])
        result("after_reader_tap", await_state("playing"))

        pedal.destroy()
        time.sleep(0.5)
        pedal = Pedal()
        made = time.monotonic()
        result("node_again", pedal.node)
        # How long until fermatad has it again (its second "ready" line), polled every 10 ms.
        while open(f"{out}/daemon.log").read().count("ready, grabbed") < 2 and time.monotonic() - made < 5:
            time.sleep(0.01)
        result("replug_ready_after", round(time.monotonic() - made, 3))
        time.sleep(max(0.0, 1.0 - (time.monotonic() - made)))
        with Toggles() as t:
            pedal.tap()
            result("replugged", await_state("paused"))
        result("replugged_toggles", t.count)
        result("plugged_for", round(time.monotonic() - plugged, 1))
        pedal.destroy()
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(20)
        except subprocess.TimeoutExpired:
            daemon.kill()
        result("exit", daemon.returncode)
        log.close()


main()
print("scenario done")
