#!/usr/bin/python3
"""Guest side of the EvdevKernelTests, run inside ../shared/kernel-lab:
    evdev-scenario.py OUT FERMATAD [pedal|devices|cards|keypad]
"cards" (realDaemonCardReader) starts stopped with an empty queue, a stored playlist Lullabies (a.wav, b.wav) and
volume 70; a card reader (cards = true on its input) types card ids as a USB reader does, each key down and up about
4 ms apart, then Enter: a card bound to the playlist plays it under the card's volume cap (40, even for `mpc volume
90`), the same card again pauses and again plays; an unknown card changes nothing but is logged and listed by the
`cards` command; a card typed on the keypad digits with keypad Enter stops (action:stop); `cardlearn` binds the
unknown card, which then plays; see cards(). "keypad" (realDaemonKeypadWithNumLock) makes a numeric keypad with a
NumLock LED; KEY_KP6 (next) and KEY_KP4 (previous) work with NumLock off and on (the key and the LED as a console
sets it), and KP6 held 1 s (kernel autorepeat) is one `next`; see keypad().
"devices" (realDaemonRemoteKnobAndReader) makes an IR remote sending a raw scancode (one `next` for a held button),
a knob with REL_DIAL (volume steps) and a card reader registered twice, as keyboard and mouse with the same ids (both
nodes taken and grabbed); see devices(). "pedal" (the default, realDaemonFootPedalThroughEvdev):
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
scenario = sys.argv[3] if len(sys.argv) > 3 else "pedal"
results = open(f"{out}/results", "w", buffering=1)
SOCK = "/tmp/fermata-mpd.sock"
NAME = b"Fermata Test FootSwitch"
EV_SYN, EV_KEY, EV_REL, EV_MSC, EV_LED, EV_REP = 0, 1, 2, 4, 0x11, 0x14
KEY_B, KEY_ENTER, KEY_1, BTN_LEFT, KEY_PLAYPAUSE = 48, 28, 2, 0x110, 164
REL_X, REL_Y, REL_DIAL, MSC_SCAN = 0, 1, 7, 4
KEY_NUMLOCK, KEY_KPENTER, KEY_KP4, KEY_KP6, LED_NUML = 69, 96, 75, 77, 0
# The digit keys of the top row (KEY_1 = 2 ... KEY_9 = 10, KEY_0 = 11) and of the keypad (KEY_KP0 ... KEY_KP9).
DIGITS = {str(d): 1 + (d or 10) for d in range(10)}
KEYPAD_DIGITS = dict(zip("7894561230", (71, 72, 73, 75, 76, 77, 79, 80, 81, 82)))


def ioc(direction, kind, number, size):
    return (direction << 30) | (size << 16) | (ord(kind) << 8) | number


UI_SET_EVBIT, UI_SET_KEYBIT, UI_SET_RELBIT = ioc(1, "U", 100, 4), ioc(1, "U", 101, 4), ioc(1, "U", 102, 4)
UI_SET_MSCBIT, UI_SET_LEDBIT = ioc(1, "U", 104, 4), ioc(1, "U", 105, 4)
UI_DEV_SETUP, UI_DEV_CREATE, UI_DEV_DESTROY = ioc(1, "U", 3, 92), ioc(0, "U", 1, 0), ioc(0, "U", 2, 0)


def result(key, *values):
    results.write(" ".join([key] + [str(v) for v in values]) + "\n")


class Pedal:
    """A uinput device: by default a USB foot switch that types KEY_B, autorepeating like a keyboard; or, with other
    arguments, a remote sending scancodes, a knob with a relative axis, half of a keyboard-and-mouse reader, a card
    reader typing digits, a keypad with a NumLock LED."""

    def __init__(self, name=NAME, keys=(KEY_B,), rels=(), scans=False, repeat=True, ids=(0x3553, 0xB001),
                 taken=(), leds=()):
        self.name = name
        self.fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
        if keys:
            fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_KEY)
        for key in keys:
            fcntl.ioctl(self.fd, UI_SET_KEYBIT, key)
        if repeat:
            fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_REP)
        if rels:
            fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_REL)
        for rel in rels:
            fcntl.ioctl(self.fd, UI_SET_RELBIT, rel)
        if scans:
            fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_MSC)
            fcntl.ioctl(self.fd, UI_SET_MSCBIT, MSC_SCAN)
        if leds:
            fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_LED)
        for led in leds:
            fcntl.ioctl(self.fd, UI_SET_LEDBIT, led)
        # struct uinput_setup: input_id (bustype BUS_USB, vendor, product, version), name[80], ff_effects_max.
        setup = struct.pack("<HHHH80sI", 0x03, ids[0], ids[1], 1, name, 0)
        fcntl.ioctl(self.fd, UI_DEV_SETUP, setup)
        fcntl.ioctl(self.fd, UI_DEV_CREATE)
        self.node = None
        for _ in range(200):
            self.node = find_node(name, taken)
            if self.node:
                break
            time.sleep(0.01)

    def emit(self, kind, code, value):
        os.write(self.fd, struct.pack("llHHi", 0, 0, kind, code, value))

    def key(self, down, code=KEY_B):
        self.emit(EV_KEY, code, 1 if down else 0)
        self.emit(EV_SYN, 0, 0)

    def send(self, kind, code, value):
        self.emit(kind, code, value)
        self.emit(EV_SYN, 0, 0)

    def tap(self, ms=80, code=KEY_B):
        self.key(True, code)
        time.sleep(ms / 1000)
        self.key(False, code)

    def destroy(self):
        fcntl.ioctl(self.fd, UI_DEV_DESTROY)
        os.close(self.fd)


def find_node(name, taken=()):
    for entry in sorted(os.listdir("/sys/class/input")):
        if not entry.startswith("event") or f"/dev/input/{entry}" in taken:
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


def hold(pedal, seconds, code=KEY_B):
    pedal.key(True, code)
    time.sleep(seconds)
    pedal.key(False, code)


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


PEDAL_CONFIG = ('[controls]\nboard = "off"\n\n[input-pedal]\nname = "%s"\n\n' % NAME.decode()
                + '[button-pedal]\ninput = "pedal"\nkey = "KEY_B"\npress = "play-pause"\n')

# An IR remote with no keymap (a scancode), a knob (REL_DIAL), and a card reader that registers twice, as a keyboard
# and as a mouse, with the same name and ids (matched by id).
DEVICES_CONFIG = """[controls]
board = "off"
scancode_release_ms = 250

[input-remote]
name = "Fermata Test Remote"

[button-remote-next]
input = "remote"
scancode = "0x40bf12"
press = "next"

[input-keymapremote]
name = "Fermata Test Keymap Remote"

[button-keymapremote-play]
input = "keymapremote"
key = "KEY_PLAYPAUSE"
press = "play-pause"

[input-knob]
name = "Fermata Test Knob"

[encoder-knob]
input = "knob"
axis = "REL_DIAL"
clockwise = "volume+2"
counterclockwise = "volume-2"
acceleration_ms = 0

[input-reader]
id = "16c0:27db"

[button-reader-enter]
input = "reader"
key = "KEY_ENTER"
press = "stop"
"""


# A card reader: no buttons, its typed ids are cards. Card 0001234567 plays a stored playlist under a volume cap of
# its own (40, below the box's 80); card 0007654321 stops.
CARDS_CONFIG = """[controls]
board = "off"

[input-reader]
name = "Fermata Test Card Reader"
cards = true

[audio]
volume_max = 80

[cards]
again = "pause"

[card-0001234567]
play = "playlist:Lullabies"
volume_max = 40

[card-0007654321]
play = "action:stop"

[web]
listen = "127.0.0.1:6680"
"""

# A numeric keypad: KP6 next, KP4 previous, whatever NumLock is.
KEYPAD_CONFIG = """[controls]
board = "off"

[input-keypad]
name = "Fermata Test Keypad"

[button-keypad-next]
input = "keypad"
key = "KEY_KP6"
press = "next"

[button-keypad-previous]
input = "keypad"
key = "KEY_KP4"
press = "previous"
"""

CONFIGS = {"pedal": PEDAL_CONFIG, "devices": DEVICES_CONFIG, "cards": CARDS_CONFIG, "keypad": KEYPAD_CONFIG}


def log_count(text):
    return open(f"{out}/daemon.log").read().count(text)


def await_log(text, count, seconds=5):
    start = time.monotonic()
    while log_count(text) < count and time.monotonic() - start < seconds:
        time.sleep(0.01)
    return log_count(text) >= count


def status_word(prefix):
    """The word of `mpc status` starting with `prefix` ("#" for the position, "volume:" for the volume)."""
    text = mpc("status").replace("volume: ", "volume:")
    return next((word for word in text.split() if word.startswith(prefix)), None)


def await_word(prefix, wanted, seconds=10):
    """Polls `mpc status` until its word starting with `prefix` is `wanted`; answers the last word seen."""
    start = time.monotonic()
    word = status_word(prefix)
    while word != wanted and time.monotonic() - start < seconds:
        time.sleep(0.02)
        word = status_word(prefix)
    return word


def command(line, seconds=5):
    """Sends one line of the MPD protocol on SOCK, as mpc would, and answers the lines of the response up to and
    including its final OK or ACK line (or what came before the connection failed, then "no-answer")."""
    lines = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(seconds)
        try:
            sock.connect(SOCK)
            pending = b""
            greeted = False
            while True:
                while b"\n" not in pending:
                    data = sock.recv(4096)
                    if not data:
                        return lines + ["no-answer"]
                    pending += data
                text, pending = pending.split(b"\n", 1)
                if not greeted:
                    if not text.startswith(b"OK MPD"):
                        return ["no-greeting", text.decode(errors="replace")]
                    greeted = True
                    sock.sendall(line.encode() + b"\n")
                    continue
                lines.append(text.decode(errors="replace"))
                if text == b"OK" or text.startswith(b"ACK"):
                    return lines
        except OSError:
            return lines + ["no-answer"]


def queue():
    """The file names in the queue, in order."""
    return mpc("-f", "%file%", "playlist").split()


def type_card(reader, card, keypad=False):
    """Types `card` then Enter as a USB card reader does: each key down then up, about 4 ms apart; on the keypad's
    digits and its Enter when `keypad`. Answers when Enter went down (time.monotonic())."""
    digits = KEYPAD_DIGITS if keypad else DIGITS
    for digit in card:
        reader.tap(4, digits[digit])
        time.sleep(0.004)
    enter = time.monotonic()
    reader.tap(4, KEY_KPENTER if keypad else KEY_ENTER)
    return enter


def await_named_state(wanted, seconds=10):
    """`wanted` once the player is in it, else the state it is in after `seconds`."""
    return wanted if await_state(wanted, seconds) is not None else state()


def cards():
    keys = (tuple(DIGITS.values()) + (KEY_ENTER,) + tuple(KEYPAD_DIGITS.values()) + (KEY_KPENTER,))
    reader = Pedal(b"Fermata Test Card Reader", keys=keys, ids=(0xFFFF, 0x0035))
    result("reader_ready", await_log("input reader: ", 1))
    # A card bound to a stored playlist: it replaces the (empty) queue and plays, at the card's cap of 40.
    enter = type_card(reader, "0001234567")
    card_state = await_named_state("playing")
    result("card_latency", round(time.monotonic() - enter, 3))
    result("card_state", card_state)
    result("card_queue", *queue())
    result("card_volume", await_word("volume:", "volume:40%"))
    # Every path to the volume is capped while the card's music plays.
    mpc("volume", "90")  # answered once the player has taken it: the status after it is the player's answer
    result("capped_volume", status_word("volume:"))
    # The same card again: pause; and again: play.
    type_card(reader, "0001234567")
    result("again_state", await_named_state("paused"))
    type_card(reader, "0001234567")
    result("again2_state", await_named_state("playing"))
    # A card nobody bound: nothing changes, but it is logged and listed for `cardlearn`.
    type_card(reader, "0000000999")
    # Once fermatad has logged the card it has handled it: then nothing may have changed.
    result("unknown_logged", await_log("cards: unknown card 0000000999", 1))
    result("unknown_state", state())
    result("unknown_queue", *queue())
    result("unknown_listed", "unknown_card: 0000000999" in command("cards"))
    # A card typed on the keypad's digits and its Enter: bound to stop.
    type_card(reader, "0007654321", keypad=True)
    result("keypad_card_state", await_named_state("stopped"))
    # The unknown card learned: now it plays the playlist.
    answer = command('cardlearn "playlist:Lullabies"')
    result("learn_answer", answer[-1] if answer else "no-answer")
    type_card(reader, "0000000999")
    result("learned_state", await_named_state("playing"))
    result("learned_volume", status_word("volume:"))
    web_learn(reader)
    reader.destroy()


def web_learn(reader):
    """The web remote's "learn a card": the page asks for the next unknown card to play a target, the reader types
    one, the page's event stream says which card it learnt, and the card then plays it. Over the loopback address
    (the owner's, no login), with the stdlib's HTTP client, as the page does it."""
    import http.client
    import json
    import threading
    events = []

    def follow():
        connection = http.client.HTTPConnection("127.0.0.1", 6680, timeout=60)
        connection.request("GET", "/api/events")
        response = connection.getresponse()
        name = None
        while True:
            line = response.readline().decode()
            if not line:
                return
            if line.startswith("event: "):
                name = line[7:].strip()
            elif line.startswith("data: ") and name == "card":
                events.append(json.loads(line[6:]))
                return

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    time.sleep(0.5)  # the stream is open before the card is read
    connection = http.client.HTTPConnection("127.0.0.1", 6680, timeout=30)
    connection.request("POST", "/api/cards/learn", body=json.dumps({"target": "playlist:Lullabies", "volume_max": 30}),
                       headers={"X-Fermata-Request": "1", "Content-Type": "application/json"})
    answer = connection.getresponse()
    answer.read()  # the whole answer before the connection is used again
    result("web_learn_status", answer.status)
    mpc("stop")
    type_card(reader, "0000000777")
    follower.join(20)
    result("web_learn_event", json.dumps(events[0], sort_keys=True, separators=(",", ":")) if events else "none")
    connection.request("GET", "/api/cards")
    listed = json.loads(connection.getresponse().read())
    result("web_learn_listed", any(card["id"] == "0000000777" and card["target"] == "playlist:Lullabies"
                                   and card.get("volume_max") == 30 for card in listed["cards"]))
    result("web_learn_stopped", state())
    type_card(reader, "0000000777")
    result("web_learned_state", await_named_state("playing"))
    result("web_learned_volume", await_word("volume:", "volume:30%"))


def numlock_led(device):
    """The NumLock LED of the device as the kernel holds it (EVIOCGLED), 1 or 0."""
    fd = os.open(device.node, os.O_RDONLY | os.O_NONBLOCK)
    try:
        return fcntl.ioctl(fd, ioc(2, "E", 0x19, 2), bytes(2))[0] >> LED_NUML & 1
    finally:
        os.close(fd)


def keypad():
    keys = tuple(KEYPAD_DIGITS.values()) + (KEY_NUMLOCK, KEY_KPENTER)
    pad = Pedal(b"Fermata Test Keypad", keys=keys, leds=(LED_NUML,), ids=(0x04D9, 0x1203))
    result("keypad_ready", await_log("input keypad: ", 1))
    # NumLock off (KP6 is an arrow then): KP6 still `next`.
    pad.send(EV_LED, LED_NUML, 0)
    result("numlock_off_led", numlock_led(pad))
    pad.tap(80, KEY_KP6)
    result("numlock_off_next", await_word("#", "#2/2"))
    # NumLock on, as a console does it: the key, then the LED set on the device.
    pad.tap(80, KEY_NUMLOCK)
    pad.send(EV_LED, LED_NUML, 1)
    deadline = time.monotonic() + 5
    while numlock_led(pad) != 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    result("numlock_on_led", numlock_led(pad))
    pad.tap(80, KEY_KP4)
    result("numlock_on_previous", await_word("#", "#1/2"))
    pad.tap(80, KEY_KP6)
    result("numlock_on_next", await_word("#", "#2/2"))
    # Back to the first song, then KP6 held 1 s (the kernel repeats it about 25 times): one `next`. A second `next`
    # from the last song would stop the player.
    pad.tap(80, KEY_KP4)
    result("held_from", await_word("#", "#1/2"))
    hold(pad, 1.0, KEY_KP6)
    result("held_next", await_word("#", "#2/2"))
    time.sleep(0.5)
    result("held_position", status_word("#"), state())
    # The CLI beside fermatad: `fermata input list` names both devices, `fermata input monitor` shows a device
    # nobody holds (presses, the kernel's autorepeat, releases) and nothing of the keypad fermatad holds, and
    # `fermata doctor` says which node the configuration's keypad is.
    fermata = os.path.join(os.path.dirname(fermatad), "fermata")
    spare = Pedal(b"Fermata Test Monitor Pad")
    listed = subprocess.run([fermata, "input", "list"], capture_output=True, text=True).stdout
    result("input_list", '"Fermata Test Keypad"' in listed, '"Fermata Test Monitor Pad"' in listed)
    monitor = subprocess.Popen([fermata, "input", "monitor", "--seconds", "20"], stdout=subprocess.PIPE, text=True)
    watched = ""
    while "watching" not in watched:  # the devices are open once it says so (an emulated CPU starts it slowly)
        line = monitor.stdout.readline()
        if not line:
            break
        watched += line
    hold(spare, 0.6)
    pad.tap(80, KEYPAD_DIGITS["0"])  # bound to nothing: fermatad holds the keypad, so the monitor must not see it
    # A second tap of the free device after it: once the monitor has printed that release, anything the keypad
    # could have shown it would have come before.
    spare.tap(80)
    while watched.count("KEY_B up") < 2:
        line = monitor.stdout.readline()
        if not line:
            break
        watched += line
    monitor.send_signal(signal.SIGINT)
    watched += monitor.communicate(timeout=20)[0]
    lines = [line for line in watched.splitlines() if "Fermata Test Monitor Pad" in line]
    result("monitor_spare", any("KEY_B down" in l for l in lines), any("KEY_B repeat" in l for l in lines),
           any("KEY_B up" in l for l in lines))
    result("monitor_keypad_lines", len([l for l in watched.splitlines() if "Fermata Test Keypad" in l]))
    doctor = subprocess.run([fermata, "doctor", "--config", f"{out}/fermata.toml", "--socket", SOCK],
                            capture_output=True, text=True).stdout
    result("doctor_keypad", any("input keypad" in l and pad.node in l for l in doctor.splitlines()))
    spare.destroy()
    pad.destroy()


def devices():
    remote = Pedal(b"Fermata Test Remote", keys=(), repeat=False, scans=True, ids=(0x0bda, 0x4321))
    result("remote_ready", await_log("input remote: ", 1))
    # A remote button held 1 s: NEC repeat frames every 110 ms, the same scancode. One `next`, not ten: from the
    # first of two songs, a second `next` would stop the player.
    for _ in range(10):
        remote.send(EV_MSC, MSC_SCAN, 0x40BF12)
        time.sleep(0.11)
    # Past the 250 ms release nothing more can come from these frames; then the position must be the second song.
    time.sleep(0.3)
    result("remote_held", await_word("#", "#2/2"), state())
    # A remote with a kernel keymap (rc-core): each frame is an MSC_SCAN, the mapped key goes down with the first and
    # up after the last, and the kernel autorepeats it between. Held 1 s: one play-pause, not one per frame.
    keymapped = Pedal(b"Fermata Test Keymap Remote", keys=(KEY_PLAYPAUSE,), scans=True, ids=(0x0bda, 0x4322))
    result("keymap_remote_ready", await_log("input keymapremote: ", 1))
    keymapped.emit(EV_MSC, MSC_SCAN, 0x40BF1A)
    keymapped.key(True, KEY_PLAYPAUSE)
    for _ in range(9):
        time.sleep(0.11)
        keymapped.send(EV_MSC, MSC_SCAN, 0x40BF1A)
    keymapped.key(False, KEY_PLAYPAUSE)
    paused = await_state("paused")
    time.sleep(0.5)
    result("keymap_remote_held", paused is not None, state())
    keymapped.tap(80, KEY_PLAYPAUSE)
    result("keymap_remote_tap", await_state("playing") is not None)
    knob = Pedal(b"Fermata Test Knob", keys=(), repeat=False, rels=(REL_DIAL,), ids=(0x1234, 0x5678))
    result("knob_ready", await_log("input knob: ", 1))
    for _ in range(5):
        knob.send(EV_REL, REL_DIAL, -1)
        time.sleep(0.15)
    result("knob_down", await_word("volume:", "volume:90%"))
    knob.send(EV_REL, REL_DIAL, 2)
    result("knob_up", await_word("volume:", "volume:94%"))
    name = b"Fermata Test Reader"
    keyboard = Pedal(name, keys=(KEY_ENTER, KEY_1), ids=(0x16C0, 0x27DB))
    mouse = Pedal(name, keys=(BTN_LEFT,), rels=(REL_X, REL_Y), repeat=False, ids=(0x16C0, 0x27DB),
                  taken=(keyboard.node,))
    result("reader_nodes", keyboard.node, mouse.node)
    result("reader_ready", await_log("input reader: ", 2))
    keyboard.key(True, KEY_ENTER)
    time.sleep(0.08)
    keyboard.key(False, KEY_ENTER)
    result("reader_enter", "stopped" if await_state("stopped") is not None else state())
    result("reader_mouse_other_reader_bytes", other_reader_sees(mouse, lambda: mouse.send(EV_REL, REL_X, 5))[0])
    result("reader_keyboard_other_reader_bytes",
           other_reader_sees(keyboard, lambda: keyboard.send(EV_KEY, KEY_1, 1) or keyboard.send(EV_KEY, KEY_1, 0))[0])
    for device in (remote, keymapped, knob, keyboard, mouse):
        device.destroy()


def main():
    state_dir = "/tmp/fermata-state"
    os.makedirs(state_dir, exist_ok=True)
    with open(f"{out}/fermata.toml", "w") as f:
        f.write(CONFIGS[scenario])
    log = open(f"{out}/daemon.log", "w")
    daemon = subprocess.Popen([fermatad, "--config", f"{out}/fermata.toml", "--music", f"{out}/music",
                               "--state", state_dir, "--output", "null", "--resume", "off", "--listen", "",
                               "--socket", SOCK], stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(900):
            if "controls: input " in open(f"{out}/daemon.log").read() and os.path.exists(SOCK):
                break
            if daemon.poll() is not None:
                result("failed", "fermatad exited")
                return
            time.sleep(0.1)
        mpc("update", "--wait")
        mpc("add", "a.wav", "b.wav")
        if scenario == "cards":
            # Stopped with an empty queue; the songs are the stored playlist Lullabies.
            mpc("save", "Lullabies")
            mpc("clear")
            mpc("volume", "70")
        else:
            mpc("play")
        result("before", state())
        if scenario == "cards":
            result("before_queue", *queue())
            result("before_volume", status_word("volume:"))
            cards()
            return
        if scenario == "keypad":
            keypad()
            return
        if scenario != "pedal":
            devices()
            return

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
