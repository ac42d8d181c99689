#!/usr/bin/python3
"""The power-cut campaign's music: a small library that stays (base/) and a pool of short files the client copies into
incoming/ and deletes again during a session, so that `update` scans a folder that changes.

    mkmusic.py MUSIC POOL [--tracks N] [--seconds S]

MUSIC/base/: N tracks of S seconds (default 8 x 90 s): FLAC 44.1 kHz stereo with tags, WAV 44.1 kHz stereo, FLAC 48 kHz mono
(each a quiet tone that changes pitch every second, so FLAC does not shrink it to nothing, and no two seconds are the
same), and an empty MUSIC/incoming/. POOL (kept outside the music folder): 6 WAV files of 3 s. Tracks are long so that a session never reaches a track's end by itself: the client
seeks back before it does, and the position check never has to follow a track change it did not ask for.
"""
import argparse
import math
import os
import struct
import subprocess
import wave


def tone_wav(path, seconds, rate, channels, base_hz):
    frames_per_block = rate  # one second
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        for second in range(seconds):
            hz = base_hz * (1 + (second % 12) / 12)
            samples = []
            for i in range(frames_per_block):
                v = int(3000 * math.sin(2 * math.pi * hz * i / rate))
                samples.extend([v] * channels)
            w.writeframes(struct.pack("<%dh" % len(samples), *samples))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("music")
    parser.add_argument("pool")
    parser.add_argument("--tracks", type=int, default=8)
    parser.add_argument("--seconds", type=int, default=90)
    args = parser.parse_args()
    base = os.path.join(args.music, "base")
    pool = args.pool
    os.makedirs(base, exist_ok=True)
    os.makedirs(pool, exist_ok=True)
    os.makedirs(os.path.join(args.music, "incoming"), exist_ok=True)
    for n in range(args.tracks):
        kind = ("flac", "wav", "flac-mono")[n % 3]
        name = "t%02d" % (n + 1)
        if kind == "wav":
            tone_wav(os.path.join(base, name + ".wav"), args.seconds, 44100, 2, 220 + 20 * n)
            continue
        rate, channels = (44100, 2) if kind == "flac" else (48000, 1)
        tmp = os.path.join(base, name + ".tmp.wav")
        tone_wav(tmp, args.seconds, rate, channels, 220 + 20 * n)
        out = os.path.join(base, name + ".flac")
        subprocess.run(["flac", "-s", "-f", "-5", "-o", out,
                        "-T", "TITLE=Track %d" % (n + 1), "-T", "ARTIST=Power Cut", "-T", "ALBUM=Campaign",
                        "-T", "TRACKNUMBER=%d" % (n + 1), tmp], check=True)
        os.unlink(tmp)
    for n in range(6):
        tone_wav(os.path.join(pool, "p%02d.wav" % (n + 1)), 3, 22050, 1, 440 + 30 * n)


if __name__ == "__main__":
    main()
