#!/usr/bin/env python3
"""Makes Fermata's demo library in the folder given: three short tagged albums of generated sound, FLAC.

  Tuning Forks / Three Chords       three 6 s chords
  Sine Choir / Gapless Suite        one 12 s sweep cut into three tracks at odd frames (gapless: no click between)
  Practice Room / Slow Blues        a 20 s practice piece with a BPM tag (90): a walking line and a click
Needs python3 and the flac command (Debian: flac). Used by deploy/try-fermata.sh.
"""
import math
import os
import struct
import subprocess
import sys
import tempfile
import wave

RATE = 44100


def write_flac(path, samples, tags):
    """samples: list of (left, right) floats in -1..1; tags: dict of Vorbis comments."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tempfile.NamedTemporaryFile(suffix=".wav", delete=False) as tmp:
        wav = tmp.name
    with wave.open(wav, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(b"".join(struct.pack("<hh", int(l * 32767), int(r * 32767)) for l, r in samples))
    args = ["flac", "--silent", "--force", "-o", path]
    for key, value in tags.items():
        args += ["-T", f"{key}={value}"]
    subprocess.run(args + [wav], check=True)
    os.unlink(wav)


def tone(freqs, seconds, volume=0.2):
    out = []
    for n in range(int(seconds * RATE)):
        t = n / RATE
        envelope = min(1.0, t * 20, (seconds - t) * 20)
        v = volume * envelope * sum(math.sin(2 * math.pi * f * t) for f in freqs) / len(freqs)
        out.append((v, v))
    return out


def main(folder):
    chords = [("C major", [261.63, 329.63, 392.0]), ("F major", [349.23, 440.0, 523.25]),
              ("G major", [392.0, 493.88, 587.33])]
    for number, (name, freqs) in enumerate(chords, 1):
        write_flac(f"{folder}/Tuning Forks/Three Chords/0{number} {name}.flac", tone(freqs, 6),
                   {"TITLE": name, "ARTIST": "Tuning Forks", "ALBUM": "Three Chords", "TRACKNUMBER": number,
                    "DATE": "2026"})

    # One continuous sweep, cut at frames that are not block-aligned: heard gapless, it has no click at the cuts.
    total = 12 * RATE
    phase, sweep = 0.0, []
    for n in range(total):
        f = 220 * (4 ** (n / total))
        phase += 2 * math.pi * f / RATE
        v = 0.2 * math.sin(phase)
        sweep.append((v, v))
    cuts = [0, 4 * RATE + 1234, 8 * RATE + 567, total]
    for number in range(3):
        write_flac(f"{folder}/Sine Choir/Gapless Suite/0{number + 1} Movement {number + 1}.flac",
                   sweep[cuts[number]:cuts[number + 1]],
                   {"TITLE": f"Movement {number + 1}", "ARTIST": "Sine Choir", "ALBUM": "Gapless Suite",
                    "TRACKNUMBER": number + 1})

    # The practice piece: 90 BPM, a click on every beat over a walking bass, for count-in, loops and tempo.
    beat = 60 / 90
    notes = [110.0, 138.59, 164.81, 185.0, 196.0, 185.0, 164.81, 138.59]
    piece = []
    for n in range(20 * RATE):
        t = n / RATE
        index = int(t / beat)
        into = t - index * beat
        bass = 0.25 * math.sin(2 * math.pi * notes[index % len(notes)] * t) * max(0.0, 1 - into / beat * 0.6)
        click = 0.3 * math.sin(2 * math.pi * 1500 * t) * max(0.0, 1 - into / 0.03) if into < 0.03 else 0.0
        piece.append((bass + click, bass + click))
    write_flac(f"{folder}/Practice Room/Slow Blues/01 Slow Blues in A.flac", piece,
               {"TITLE": "Slow Blues in A", "ARTIST": "Practice Room", "ALBUM": "Slow Blues", "TRACKNUMBER": 1,
                "BPM": 90, "GENRE": "Practice"})


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make-demo-library.py FOLDER")
    main(sys.argv[1])
