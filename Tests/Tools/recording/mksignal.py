#!/usr/bin/env python3
"""The known signal for aloop-record.sh: 48 kHz stereo 16-bit, 6 s of digital silence with clicks at known,
irregular frames (no two gaps alike, so a click can only match itself). Each click is a 5-frame signature
(30000, -20000, 12000, -6000, 3000) on both channels; analyse.py finds them in a take by their first frame.

    mksignal.py OUT.wav        (prints the click frames, one a line, to stdout)
"""
import struct, sys, wave

RATE, SECONDS = 48_000, 6
SIGNATURE = (30000, -20000, 12000, -6000, 3000)
# Clicks inside the loop region A-B = 1.000-3.000 s (frames 48000-144000), away from the seams (>= 50 ms), and a
# few outside it (heard before the loop starts).
CLICKS = [9_001, 30_017, 52_801, 69_337, 87_999, 105_013, 128_021, 139_001, 170_003, 200_111, 250_009]


def main():
    frames = bytearray(RATE * SECONDS * 4)
    for start in CLICKS:
        for i, value in enumerate(SIGNATURE):
            struct.pack_into('<hh', frames, (start + i) * 4, value, value)
    with wave.open(sys.argv[1], 'wb') as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(bytes(frames))
    for start in CLICKS:
        print(start)


if __name__ == '__main__':
    main()
