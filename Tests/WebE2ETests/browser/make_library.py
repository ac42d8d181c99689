#!/usr/bin/env python3
"""Writes the web end-to-end tests' music library: WAV files with LIST/INFO tags (title, artist, album, track), which
fermatad's scanner reads, made with nothing but Python's standard library.

    make_library.py small DIR        two albums of three long tracks (200 s, 11025 Hz mono): the stand, practice, cards
    make_library.py shelf DIR        small, and six more albums of short tracks: the screenshots
    make_library.py big DIR [N]      N tiny tracks (0.1 s, 8000 Hz mono; 20000 by default): 200 artists x 10 albums
                                     x 10 tracks, the library test's haystack

Prints one JSON line: {"files": N, "bytes": B, "seconds": S}. The album the library test looks for is "Album 150-7"
of "Artist 150" (page 2 of the artists) and the search word is "Zanzibar" (one album of the 2,000 has it).
"""
import json
import math
import os
import struct
import sys
import time

SMALL = [
    ("Clara Brandt", "Études for Strings", ["Étude No. 1 in E minor", "Étude No. 2 in A major", "Étude No. 3 in D"]),
    ("The Riverside Trio", "Slow Blues", ["Walking Bass", "Late Train", "Blue Hour"]),
]


def chunk(cid, body):
    pad = b"\0" if len(body) % 2 else b""
    return cid + struct.pack("<I", len(body)) + body + pad


def wav(rate, pcm, tags):
    """A mono 16-bit WAV image: fmt, data, then LIST/INFO with `tags` (id -> text)."""
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    info = b"INFO" + b"".join(chunk(k.encode(), v.encode("utf-8") + b"\0") for k, v in tags.items())
    body = b"WAVE" + chunk(b"fmt ", fmt) + chunk(b"data", pcm) + chunk(b"LIST", info)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def tone(rate, seconds, freq, bpm=96):
    """A quiet tone with a tick on every beat (something to hear when a test listens; its content is not checked)."""
    period = rate * 60 // bpm
    one = []
    for n in range(period):
        v = 0.08 * math.sin(2 * math.pi * freq * n / rate)
        if n < rate // 100:
            v += 0.2 * math.sin(2 * math.pi * 1500 * n / rate)
        one.append(int(v * 32767))
    beat = struct.pack("<%dh" % period, *one)
    frames = int(seconds * rate)
    whole = beat * (frames // period + 1)
    return whole[: frames * 2]


def small(folder):
    count = size = 0
    rate = 11025
    for a, (artist, album, titles) in enumerate(SMALL):
        path = os.path.join(folder, artist, album)
        os.makedirs(path, exist_ok=True)
        for n, title in enumerate(titles, 1):
            data = wav(rate, tone(rate, 200, 220 * (a + 1) + 40 * n),
                       {"INAM": title, "IART": artist, "IPRD": album, "ITRK": str(n), "ICRD": "2026"})
            with open(os.path.join(path, "%02d %s.wav" % (n, title)), "wb") as f:
                f.write(data)
            count += 1
            size += len(data)
    return count, size


# More of a household's shelf, for the screenshots (short tracks: only their names show).
SHELF = [
    ("Anna Lindqvist", "Nordic Lullabies", ["Vaggvisa", "Snow on the Fjord", "Evening Star"]),
    ("Bach Collegium", "Cello Suites", ["Prélude", "Allemande", "Courante", "Sarabande"]),
    ("Duo Ferreira", "Choro for Two", ["Carinhoso", "Noites Cariocas"]),
    ("Emil Novak", "Piano Sketches", ["Morning", "Rain Study", "Waltz for Ida"]),
    ("Harbour Brass Band", "Marches and Hymns", ["Abide", "Slow March"]),
    ("Kids' Corner", "Songs for the Car", ["Wheels", "The Bear Went Over", "Counting Sheep"]),
]


def shelf(folder):
    count, size = small(folder)
    rate = 8000
    for a, (artist, album, titles) in enumerate(SHELF):
        path = os.path.join(folder, artist, album)
        os.makedirs(path, exist_ok=True)
        for n, title in enumerate(titles, 1):
            data = wav(rate, tone(rate, 20 + 7 * n, 300 + 30 * a), {"INAM": title, "IART": artist, "IPRD": album,
                                                                    "ITRK": str(n)})
            with open(os.path.join(path, "%02d %s.wav" % (n, title)), "wb") as f:
                f.write(data)
            count += 1
            size += len(data)
    return count, size


def big(folder, total):
    rate = 8000
    pcm = tone(rate, 0.1, 440)
    count = size = 0
    artists = max(1, total // 100)
    for a in range(1, artists + 1):
        artist = "Artist %03d" % a
        for b in range(1, 11):
            album = "Album %03d-%d" % (a, b)
            if (a, b) == (77, 3):
                album += " Zanzibar"
            path = os.path.join(folder, artist, album)
            os.makedirs(path, exist_ok=True)
            for n in range(1, 11):
                if count >= total:
                    return count, size
                title = "Song %d of %s" % (n, album)
                data = wav(rate, pcm, {"INAM": title, "IART": artist, "IPRD": album, "ITRK": str(n)})
                with open(os.path.join(path, "%02d %s.wav" % (n, title)), "wb") as f:
                    f.write(data)
                count += 1
                size += len(data)
    return count, size


def main():
    kind, folder = sys.argv[1], sys.argv[2]
    start = time.monotonic()
    os.makedirs(folder, exist_ok=True)
    if kind == "small":
        count, size = small(folder)
    elif kind == "shelf":
        count, size = shelf(folder)
    else:
        count, size = big(folder, int(sys.argv[3]) if len(sys.argv) > 3 else 20000)
    print(json.dumps({"files": count, "bytes": size, "seconds": round(time.monotonic() - start, 3)}))


if __name__ == "__main__":
    main()
