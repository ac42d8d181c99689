#!/usr/bin/env python3
"""Plays the outside world for the controls scenario inside the kernel lab: presses buttons (bounce: see settle),
holds them, spins the encoder both ways at speed, by writing gpio-sim `pull` attributes at timed moments.

Lines are active-low with pull-ups (what Fermata requests): `pull-down` is a press or a closed encoder contact.
Usage: drive.py full LOG [STATUS-COMMAND]   (LOG gets one line per step, with CLOCK_MONOTONIC ns; with a status
command, e.g. `mpc -h SOCKET status`, its output follows each step's line once the step has settled)
       drive.py hold LOG NAME MS             (holds one button down for MS milliseconds)
       drive.py steps LOG STATUS-COMMAND STEP...   (STEP: queued, tap-play, tap-play-again, chord-stop; after each,
                                             the status command is polled until it shows the step's expected state,
                                             up to 30 s, and its last output follows the step's line)
"""
import os
import subprocess
import sys
import time

SYSFS = os.environ["GPIO_SIM_SYSFS"]
NAMES = os.environ["GPIO_SIM_NAMES"].split(",")
log = open(sys.argv[2], "w", buffering=1)
# Opened once, up front: opening a sysfs file costs milliseconds under emulation.
handles = {name: open(f"{SYSFS}/sim_gpio{i}/pull", "w", buffering=1) for i, name in enumerate(NAMES)}


def pull(name, pressed):
    handles[name].write("pull-down\n" if pressed else "pull-up\n")


def sleep_ms(ms):
    time.sleep(ms / 1000)


STATUS = sys.argv[3] if sys.argv[1] == "full" and len(sys.argv) > 3 else None
pending = None


# What the status must show once a step has been taken in, for the steps the test judges: the status is polled until
# it does (at most 30 s) rather than read once after a fixed pause, which an emulated CPU on a loaded machine overran
# (a CI run read a step's status before the daemon had acted on it). A step not listed is read once, as before.
SETTLED = {
    "double-tap play": lambda out: "[playing]" in out,
    "tap mode": lambda out: "repeat: on" in out,
    "tap next": lambda out: "#2/2" in out,
    "chord next+previous": lambda out: "[playing]" not in out,
}


def note(text):
    """Starts a step; first records the state the previous step left (when there is a status command)."""
    global pending
    if STATUS and pending:
        ready = SETTLED.get(pending, lambda out: True)
        start = time.monotonic()
        while True:
            out = subprocess.run(STATUS, shell=True, capture_output=True, text=True).stdout
            if ready(out) or time.monotonic() - start > 30:
                break
            sleep_ms(100)
        log.write(f"status after {pending}:\n{out}")
    pending = text
    log.write(f"{time.monotonic_ns()} {text}\n")


def volume_of(out):
    for line in out.splitlines():
        if line.startswith("volume:"):
            try:
                return int(line.split("%")[0][len("volume:"):].strip())
            except ValueError:
                return None
    return None


def await_volume(ready):
    """Polls the status command until `ready(volume)` holds (at most 30 s): an encoder's steps reach the player a
    little after the spin, and an emulated CPU under load can take longer than any fixed pause."""
    if not STATUS:
        return None
    start = time.monotonic()
    while True:
        volume = volume_of(subprocess.run(STATUS, shell=True, capture_output=True, text=True).stdout)
        if (volume is not None and ready(volume)) or time.monotonic() - start > 30:
            return volume
        sleep_ms(100)


MONITOR = os.environ.get("MONITOR_OUT")


def monitor_lines():
    if not MONITOR:
        return []
    try:
        with open(MONITOR) as f:
            return f.read().splitlines()
    except OSError:
        return []


def await_report(seen, wanted):
    """With MONITOR_OUT (the monitor's output file): waits until a report after the first `seen` lines contains
    `wanted` (readiness: an emulated CPU under load may take seconds to act on a press), up to 30 s; then the test
    judges what was reported."""
    if not MONITOR:
        return
    start = time.monotonic()
    while time.monotonic() - start < 30:
        if any(wanted in line for line in monitor_lines()[seen:] if " player " in line):
            return
        sleep_ms(50)


def settle(name, pressed, bounces=0):
    """A contact closing or opening, by default without bounce. Bounce was two extra sysfs writes back to back (1-2 ms
    under the emulated CPU), but with the host busy running the other suites one write sometimes took 100-200 ms, so
    the glitch lasted longer than the debounce and was, correctly, a second press: the test then judged the
    emulator's scheduling, not Fermata. Debouncing is proven where bounce timing is exact (the Debouncer and
    ButtonGestures unit tests replay sub-millisecond bounce); here a stall can only lengthen a press or a gap."""
    for _ in range(bounces):
        pull(name, pressed)
        pull(name, not pressed)
    pull(name, pressed)


def tap(name, down_ms):
    settle(name, True)
    sleep_ms(down_ms)
    settle(name, False)


def spin(clockwise, detents, step_ms):
    a, b = "GPIO23", "GPIO24"
    order = [(a, True), (b, True), (a, False), (b, False)] if clockwise else \
        [(b, True), (a, True), (b, False), (a, False)]
    for _ in range(detents):
        for line, closed in order:
            pull(line, closed)
            sleep_ms(step_ms)


def full():
    note("double-tap play")
    tap("GPIO17", 70)
    sleep_ms(80)
    tap("GPIO17", 70)
    sleep_ms(800)
    note("tap mode")
    tap("GPIO13", 120)
    sleep_ms(800)
    note("long press mode")
    tap("GPIO13", 1200)
    sleep_ms(500)
    note("spin counterclockwise")
    spin(False, 5, 2)
    sleep_ms(500)
    lowered = await_volume(lambda volume: volume < 100)
    note("spin clockwise")
    spin(True, 5, 2)
    sleep_ms(500)
    await_volume(lambda volume: lowered is None or volume > lowered)
    note("hold next")
    tap("GPIO5", 1100)
    sleep_ms(500)
    note("tap next")
    tap("GPIO5", 100)
    sleep_ms(500)
    note("loop A")
    seen = len(monitor_lines())
    tap("GPIO12", 100)
    # B must come after A in the music: 1.5 s of playing after A is known to be set, not after the press.
    await_report(seen, " loop A=")
    sleep_ms(1500)
    note("loop B")
    seen = len(monitor_lines())
    tap("GPIO12", 100)
    await_report(seen, "..<")
    sleep_ms(1000)
    note("loop clear")
    tap("GPIO12", 1000)
    sleep_ms(500)
    note("chord next+previous")
    settle("GPIO5", True)
    sleep_ms(40)
    settle("GPIO6", True)
    sleep_ms(150)
    settle("GPIO6", False)
    sleep_ms(20)
    settle("GPIO5", False)
    sleep_ms(300)
    note("done")


def chord_stop():
    settle("GPIO5", True)
    sleep_ms(40)
    settle("GPIO6", True)
    sleep_ms(150)
    settle("GPIO6", False)
    sleep_ms(20)
    settle("GPIO5", False)


def playing(out):
    return "[playing]" in out


# name: (what the driver does, what the status must then show). "queued": the saved or added queue is there.
STEPS = {
    "queued": (lambda: None, lambda out: "b.wav" in out and not playing(out)),
    "tap-play": (lambda: tap("GPIO17", 100), playing),
    "tap-play-again": (lambda: tap("GPIO17", 100), playing),
    "chord-stop": (chord_stop, lambda out: not playing(out)),
}


def steps():
    """Each step, then the status command polled until it shows the step's state (readiness, not a fixed sleep: an
    emulated CPU under load takes its time); after 30 s the last output is recorded as it is, for the test to judge."""
    command = sys.argv[3]
    for name in sys.argv[4:]:
        act, ready = STEPS[name]
        log.write(f"{time.monotonic_ns()} {name}\n")
        start = time.monotonic()
        act()
        while True:
            out = subprocess.run(command, shell=True, capture_output=True, text=True).stdout
            if ready(out) or time.monotonic() - start > 30:
                break
            sleep_ms(100)
        log.write(f"status after {name} ({time.monotonic() - start:.2f} s):\n{out}")
    log.write(f"{time.monotonic_ns()} done\n")


def hold():
    name, ms = sys.argv[3], int(sys.argv[4])
    note(f"hold {name} {ms} ms")
    tap(name, ms)


if __name__ == "__main__":
    {"full": full, "hold": hold, "steps": steps}[sys.argv[1]]()
