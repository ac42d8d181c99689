#!/usr/bin/env python3
"""Where a take's clicks fall against the original loop (aloop-record.sh, on the host).

    analyse.py TAKE.raw LOOP_START_FRAME LOOP_END_FRAME CLICK...

Exit status 1 when no click is found or the offset is beyond $TOLERANCE frames (default 48: 1 ms at 48 kHz).

TAKE.raw: the take decoded to raw 16-bit little-endian stereo (flac -d --force-raw-format). A take lined up with its
pass holds the original's frame LOOP_START + k at its frame k. The loop repeats, so a take recorded early or late
holds the end of the pass before or the start of the next one: each click found in the take is matched with every
click of the loop, the difference taken modulo the loop's length, and the offset most clicks agree on (within 2
frames) is the take's (positive: the take starts early, its first frames are the end of the pass before; negative:
late, it misses the pass's first frames). Then the whole
take is compared, sample for sample, with the loop played over and over and shifted by that offset.
Prints one line: the take's length in frames, the clicks that agree of those found, the offset in frames and ms,
and whether the take equals the shifted loop exactly.
"""
import os
import sys
import numpy as np

RATE = 48_000
SIGNATURE = (30000, -20000, 12000, -6000, 3000)


def main():
    take = np.fromfile(sys.argv[1], dtype='<i2').reshape(-1, 2)
    start, end = int(sys.argv[2]), int(sys.argv[3])
    length = end - start
    clicks = [int(c) - start for c in sys.argv[4:] if start <= int(c) < end]
    left = take[:, 0].astype(np.int32)
    found = [int(i) for i in np.nonzero((left[:-1] == SIGNATURE[0]) & (left[1:] == SIGNATURE[1]))[0]]
    candidates = []
    for f in found:
        for c in clicks:
            d = (f - c) % length
            candidates.append(d - length if d > length // 2 else d)
    if not candidates:
        print('frames %d  no click found' % len(take))
        sys.exit(1)
    best = max(candidates, key=lambda d: sum(abs(e - d) <= 2 for e in candidates))
    agree = [e for e in candidates if abs(e - best) <= 2]
    offset = int(np.median(agree))
    # The loop over and over, shifted: take frame k should hold loop frame (k - offset) mod length.
    loop = np.zeros((length, 2), dtype=np.int16)
    for c in clicks:
        for i, v in enumerate(SIGNATURE):
            loop[(c + i) % length] = v
    expected = loop[(np.arange(len(take)) - offset) % length]
    differing = int(np.count_nonzero(np.any(take != expected, axis=1)))
    print('frames %d  clicks %d/%d agree  offset %+d frames = %+.3f ms  (spread %d)  frames differing from the '
          'shifted loop %d' % (len(take), len(agree), len(found), offset, offset * 1000 / RATE,
                                max(agree) - min(agree), differing))
    tolerance = int(os.environ.get('TOLERANCE', '48'))
    sys.exit(0 if abs(offset) <= tolerance else 1)


if __name__ == '__main__':
    main()
