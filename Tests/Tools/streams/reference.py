#!/usr/bin/env python3
"""Does captured PCM match a reference decode of what was streamed?  (stdlib only; the decoders are Debian's)

    reference.py compare SOURCE CAPTURE --capture-format s16le|s32le|f32le [--channels 2] [--codec auto]
                 [--decoder auto] [--loops 3] [--skip 0.5] [--tolerance 0] [--resync] [--ref-out FILE]
    reference.py decode FILE OUT [--codec auto] [--decoder auto] [--format f32le|s16le|s32le]
    reference.py decoders                     # which reference decoders this machine has (JSON)

`compare` decodes SOURCE as it was sent (the file looped --loops times, re-muxed exactly as `icecast.py feed` sends it:
`ffmpeg -stream_loop N-1 -i SOURCE -c copy -f FORMAT`; for MP3 and ADTS that is the file's bytes N times over), skips
the first --skip seconds of CAPTURE (the decoder's warm-up after joining mid-stream, see below), finds where the
capture sits in the reference by an exact match of a short window (falling back to a tolerance search), compares every
sample from there on, and prints one JSON verdict:

  {"offset": F, "offset_seconds": S,          reference frame at which capture frame `skip_frames` sits
   "compared_frames": N, "exact_frames": N,  frames compared after the skip; frames whose every sample matched exactly
   "within_tolerance_frames": N, "max_abs_diff": D,   D in the capture's unit (LSB for s16/s32, full scale 1.0 for f32)
   "exact_from": F,                          first capture frame from which every later frame matches exactly
   "head": {...},                            the same numbers for the skipped head (capture frames 0 .. skip)
   "mismatch_runs": [[a, b], ...],           capture-frame ranges that differ (the first 20)
   "segments": [...],                        with --resync: one entry per re-located stretch (after a gap or restart)
   "discontinuities": [{"at_capture_frame", "jump_frames", "jump_seconds"}],   with --resync: audio missing (> 0)
                                             or repeated (< 0) between segments
   "decoder": "...", "reference_frames": N, "rate": R, "channels": C, "verdict": "exact" | "close" | "mismatch" |
   "not-found"}

Exit status 0 when found and every compared frame is within --tolerance, 1 when not, 2 on usage/decoder errors.

Sample formats: the reference is decoded to the format the decoder library hands the player (float for libmpg123,
libvorbisfile's ov_read_float, libopusfile's op_read_float and FFmpeg's AAC decoder; integers for libFLAC) and then
converted to the capture's format exactly as fermatad's Engine/SampleConversion.swift does: float -> s16 is
round-half-away-from-zero(x * 32768) clamped, float -> s32 likewise with 2^31, s16 -> float is x / 32768.

Reference decoders, preferring the library the player links (Sources/Decoders):
  mp3     mpg123 -e f32 (libmpg123, as MP3Decoder.swift with MPG123_FORCE_FLOAT)    | ffmpeg (mp3float, not bit-exact)
  aac     ffmpeg -f f32le (libavcodec's native AAC decoder, as CAVShim)
  vorbis  libvorbisfile ov_read_float through ctypes (as VorbisDecoder.swift)    | oggdec (s16) | ffmpeg
  opus    libopusfile op_read_float through ctypes (as OpusDecoder.swift)        | opusdec --float | ffmpeg
  flac    flac -d (libFLAC, lossless: every decoder agrees)                      | ffmpeg

Why a decoder that joins mid-stream differs at first, and for how long:
  * MDCT overlap-add (MP3, AAC, Vorbis, Opus/CELT): each block's inverse transform produces a window twice as long as
    its hop; the first half is added to the tail of the previous block. Without the previous block the first output
    block is wrong (decoders either output it half-formed or drop it). One block: MP3 576 samples (a granule), AAC
    1024, Vorbis up to 1024 (long blocks of 2048), Opus CELT 120-960 plus a 2.5 ms overlap.
  * MP3's polyphase synthesis filterbank keeps a 512-tap history (16 x 32 subband samples): another ~512 samples.
  * MP3's bit reservoir: a frame's main data may begin up to 511 bytes back, inside earlier frames. A decoder that
    starts at an arbitrary frame cannot decode the first frame(s) whose data lies before its first byte (libmpg123
    skips or zero-fills them: "big_values too large" / "missing bytes in bit reservoir"). With a bursting server
    the listener also starts at a server block boundary, not a frame boundary: the decoder resyncs first.
    In all: MP3 is bit-exact after 2-3 frames (~80 ms), AAC after 2 frames (~46 ms at 44.1 kHz).
  * Opus (CELT) predicts each band's energy from the previous frame (inter-frame prediction, alpha ~0.9 per frame),
    and the pitch pre/post-filter and the de-emphasis filter carry state, so a decoder that starts cold converges
    geometrically rather than at once: the difference falls below float resolution after roughly 0.2-1 s (measured
    by the self-check in README.md), sooner in s16. opusfile also applies the pre-skip only at the stream's start.
  * Vorbis: after the headers, the first audio packet only primes the overlap (no output); exact from the second.
    Icecast re-pages Vorbis and, on an admin title change, starts a new chained stream (new serial, rebuilt comment
    header); measured with libvorbisfile, the PCM stays bit-exact across that boundary (no gap). --resync is for
    real gaps: a reconnect, a source restart, a cut.
  * FLAC frames are independent: exact from the first whole frame (a mid-stream native FLAC listener has no
    STREAMINFO: the decoder must sync on a frame header).
  The default --skip is 0.5 s, 1.5 s for Opus; `exact_from` and `head` say how long the warm-up really took.
"""
import argparse
import array
import ctypes
import ctypes.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# The ffmpeg muxer arguments a feeder uses to send each codec (the same table as icecast.py's FORMATS).
REMUX = {
    "mp3": ["-f", "mp3", "-id3v2_version", "0", "-write_xing", "0"],
    "aac": ["-f", "adts"],
    "vorbis": ["-f", "ogg", "-page_duration", "200000"],
    "opus": ["-f", "ogg", "-page_duration", "200000"],
    "flac": ["-f", "flac"],
    "flac-ogg": ["-f", "ogg", "-page_duration", "200000"],
}


# Seconds of a capture to leave out by default: the warm-up after joining mid-stream (see the docstring). Opus
# converges in ~0.6 s (measured: exact from 0.53-0.60 s in float, 0.58 s in s16), so it gets 1.5 s.
DEFAULT_SKIP = {"opus": 1.5}


def die(msg, code=2):
    print(f"reference.py: {msg}", file=sys.stderr)
    sys.exit(code)


def probe_codec(path):
    """mp3 | aac | vorbis | opus | flac | flac-ogg, from the file's first bytes."""
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    if head.startswith(b"fLaC"):
        return "flac"
    if head.startswith(b"OggS"):
        if b"OpusHead" in head[:200]:
            return "opus"
        if b"\x01vorbis" in head[:200]:
            return "vorbis"
        if b"\x7fFLAC" in head[:200]:
            return "flac-ogg"
        die(f"{path}: an Ogg stream of a codec this tool does not know")
    if head.startswith(b"ID3"):
        return "mp3"
    for i in range(min(len(head) - 16, 65536)):  # a native FLAC stream joined mid-way: a frame header with a good CRC-8
        if head[i] == 0xFF and head[i + 1] in (0xF8, 0xF9) and flac_frame_header_ok(head, i):
            return "flac"
    for i in range(min(len(head) - 1, 8192)):
        if head[i] == 0xFF:
            b = head[i + 1]
            if b & 0xF6 == 0xF0:  # ADTS: 12-bit sync, layer 00
                return "aac"
            if b & 0xE0 == 0xE0 and b & 0x06:  # MPEG audio: 11-bit sync, layer != 00
                return "mp3"
    die(f"{path}: cannot tell the codec; pass --codec")


def flac_frame_header_ok(buf, i):
    """FLAC frame header at buf[i]: sync, coded number (UTF-8-like), optional block size / rate bytes, CRC-8 (0x07)."""
    try:
        b2, b3 = buf[i + 2], buf[i + 3]
        if b2 >> 4 == 0 or (b2 & 0x0F) == 0x0F or (b3 >> 4) >= 0x0B or (b3 & 0x01) or ((b3 >> 1) & 7) in (3, 7):
            return False
        pos = i + 4
        first = buf[pos]
        extra = 0
        while first & (0x80 >> extra) and extra < 7:
            extra += 1
        pos += 1 + (extra - 1 if extra > 1 else 0)
        bs, sr = b2 >> 4, b2 & 0x0F
        pos += 1 if bs == 6 else 2 if bs == 7 else 0
        pos += 1 if sr == 12 else 2 if sr in (13, 14) else 0
        crc = 0
        for x in buf[i:pos]:
            crc ^= x
            for _ in range(8):
                crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
        return crc == buf[pos]
    except IndexError:
        return False


# ---------------------------------------------------------------- decoders -------------------------------------------


def _run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        die(f"{' '.join(cmd)} failed: {p.stderr.decode(errors='replace')[-500:]}")
    return p.stdout


def _ffprobe_audio(path):
    out = _run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,channels",
                "-of", "json", path])
    st = json.loads(out)["streams"][0]
    return int(st["sample_rate"]), int(st["channels"])


def dec_mpg123(path):
    # -e f32: libmpg123's float output, the format MP3Decoder.swift asks for. --no-gapless: a stream has no LAME tag
    # mid-way, so the reference must not trim the file's encoder delay either (offset search takes care of it anyway).
    pcm = _run(["mpg123", "-q", "--no-gapless", "-e", "f32", "-s", path])
    rate, channels = _ffprobe_audio(path)
    return rate, channels, "f32", pcm


def dec_ffmpeg(path, fmt="f32"):
    rate, channels = _ffprobe_audio(path)
    pcm = _run(["ffmpeg", "-v", "error", "-nostdin", "-i", path, "-map", "0:a:0", "-f", fmt + "le", "-acodec",
                "pcm_" + fmt + "le", "-"])
    return rate, channels, fmt, pcm


def dec_flac(path):
    """libFLAC through flac(1): integers, as FLACDecoder.swift gets them."""
    magic = open(path, "rb").read(4)
    if magic not in (b"fLaC", b"OggS"):
        # a stream joined mid-way has no "fLaC" marker and STREAMINFO: flac(1) refuses it, FFmpeg syncs on the frames
        return dec_ffmpeg_flac_frames(path)
    rate, channels = _ffprobe_audio(path)
    bits = _run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                 "stream=bits_per_raw_sample", "-of", "default=nw=1:nk=1", path]).decode().strip()
    if bits not in ("16", "", "N/A"):
        # 24-bit: let ffmpeg widen to s32 (libFLAC's values shifted left by 8, as a s32 output would hold them)
        return dec_ffmpeg(path, "s32")
    ogg = ["--ogg"] if magic == b"OggS" else []
    pcm = _run(["flac", "-d", "-c", "-s", *ogg, "--force-raw-format", "--endian=little", "--sign=signed", path])
    return rate, channels, "s16", pcm


def dec_ffmpeg_flac_frames(path):
    rate, channels = _ffprobe_audio(path)
    pcm = subprocess.run(["ffmpeg", "-v", "quiet", "-nostdin", "-f", "flac", "-i", path, "-f", "s32le", "-"],
                         stdout=subprocess.PIPE).stdout  # exits non-zero for the cut first frame: keep what it decoded
    return rate, channels, "s32", pcm


def dec_oggdec(path):
    rate, channels = _ffprobe_audio(path)
    return rate, channels, "s16", _run(["oggdec", "-Q", "-R", "-b", "16", "-e", "0", "-s", "1", "-o", "-", path])


def dec_opusdec(path):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "o.wav")
        _run(["opusdec", "--quiet", "--float", "--rate", "48000", path, out])
        data = open(out, "rb").read()
    # WAV: find the "fmt " and "data" chunks
    pos, channels = 12, 2
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], int.from_bytes(data[pos + 4:pos + 8], "little")
        if cid == b"fmt ":
            channels = int.from_bytes(data[pos + 10:pos + 12], "little")
        if cid == b"data":
            return 48000, channels, "f32", data[pos + 8:pos + 8 + size]
        pos += 8 + size + (size & 1)
    die("opusdec wrote no data chunk")


def _lib(name, soname):
    path = ctypes.util.find_library(name)
    for cand in (path, soname):
        if cand:
            try:
                return ctypes.CDLL(cand)
            except OSError:
                pass
    return None


def dec_vorbisfile(path):
    """libvorbisfile's ov_fopen + ov_read_float: the calls VorbisDecoder.swift makes. Chained links are decoded in turn."""
    lib = _lib("vorbisfile", "libvorbisfile.so.3")
    if lib is None:
        die("libvorbisfile.so.3 not found (Debian: libvorbisfile3)")
    vf = ctypes.create_string_buffer(8192)  # OggVorbis_File is ~1 KiB on 64-bit; generous on purpose
    lib.ov_fopen.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    if lib.ov_fopen(path.encode(), vf) != 0:
        die(f"ov_fopen({path}) failed")

    class VorbisInfo(ctypes.Structure):
        _fields_ = [("version", ctypes.c_int), ("channels", ctypes.c_int), ("rate", ctypes.c_long)]

    lib.ov_info.restype = ctypes.POINTER(VorbisInfo)
    lib.ov_info.argtypes = [ctypes.c_void_p, ctypes.c_int]
    info = lib.ov_info(vf, -1).contents
    channels, rate = info.channels, info.rate
    lib.ov_read_float.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(ctypes.POINTER(ctypes.c_float))),
                                  ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
    pcm = ctypes.POINTER(ctypes.POINTER(ctypes.c_float))()
    link = ctypes.c_int(0)
    out = array.array("f")
    while True:
        n = lib.ov_read_float(vf, ctypes.byref(pcm), 4096, ctypes.byref(link))
        if n == 0:
            break
        if n < 0:  # OV_HOLE: a gap in the data (interrupted stream); libvorbisfile goes on, and so do we
            continue
        ch_now = lib.ov_info(vf, -1).contents.channels
        block = array.array("f", bytes(n * ch_now * 4))
        for c in range(ch_now):
            block[c::ch_now] = array.array("f", ctypes.string_at(pcm[c], n * 4))
        out.extend(block)
    lib.ov_clear(vf)
    return rate, channels, "f32", out.tobytes()


def dec_opusfile(path):
    """libopusfile's op_open_file + op_read_float: the calls OpusDecoder.swift makes (48 kHz, gain applied)."""
    lib = _lib("opusfile", "libopusfile.so.0")
    if lib is None:
        die("libopusfile.so.0 not found (Debian: libopusfile0)")
    lib.op_open_file.restype = ctypes.c_void_p
    lib.op_open_file.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    err = ctypes.c_int(0)
    of = lib.op_open_file(path.encode(), ctypes.byref(err))
    if not of:
        die(f"op_open_file({path}) failed: {err.value}")
    lib.op_channel_count.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.op_read_float.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_int,
                                  ctypes.POINTER(ctypes.c_int)]
    lib.op_free.argtypes = [ctypes.c_void_p]
    channels = lib.op_channel_count(of, -1)
    buf = (ctypes.c_float * (5760 * 8))()
    li = ctypes.c_int(0)
    out = bytearray()
    while True:
        n = lib.op_read_float(of, buf, len(buf), ctypes.byref(li))
        if n == 0:
            break
        if n < 0:
            if n == -3:  # OP_HOLE
                continue
            die(f"op_read_float failed: {n}")
        out += ctypes.string_at(buf, n * channels * 4)
    lib.op_free(of)
    return 48000, channels, "f32", bytes(out)


DECODERS = {  # codec -> [(name, function, what it needs)], preferred first
    "mp3": [("mpg123", dec_mpg123, "mpg123"), ("ffmpeg", dec_ffmpeg, "ffmpeg")],
    "aac": [("ffmpeg", dec_ffmpeg, "ffmpeg")],
    "vorbis": [("vorbisfile", dec_vorbisfile, "lib:vorbisfile"), ("oggdec", dec_oggdec, "oggdec"),
               ("ffmpeg", dec_ffmpeg, "ffmpeg")],
    "opus": [("opusfile", dec_opusfile, "lib:opusfile"), ("opusdec", dec_opusdec, "opusdec"),
             ("ffmpeg", dec_ffmpeg, "ffmpeg")],
    "flac": [("flac", dec_flac, "flac"), ("ffmpeg", dec_ffmpeg, "ffmpeg")],
    "flac-ogg": [("flac", dec_flac, "flac"), ("ffmpeg", dec_ffmpeg, "ffmpeg")],
}


def available(need):
    if need.startswith("lib:"):
        return ctypes.util.find_library(need[4:]) is not None
    return shutil.which(need) is not None


def tool_version(need):
    try:
        if need == "mpg123":
            return subprocess.run(["mpg123", "--version"], capture_output=True, text=True).stdout.strip()
        if need == "ffmpeg":
            return subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True).stdout.split("\n")[0]
        if need == "flac":
            return subprocess.run(["flac", "--version"], capture_output=True, text=True).stdout.strip()
        if need in ("oggdec", "opusdec"):
            p = subprocess.run([need, "--version"], capture_output=True, text=True)
            return (p.stdout or p.stderr).strip().split("\n")[0]
        if need.startswith("lib:"):
            return ctypes.util.find_library(need[4:])
    except OSError:
        return None
    return None


def decode(path, codec, decoder="auto"):
    options = DECODERS[codec]
    for name, fn, need in options:
        if decoder in ("auto", name) and available(need):
            rate, channels, kind, pcm = fn(path)
            return name, rate, channels, kind, pcm
    die(f"no {decoder} decoder for {codec} here (options: {', '.join(n for n, _, _ in options)})")


# ---------------------------------------------------------------- sample formats -------------------------------------


def round_away(x):
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def to_capture_format(kind, pcm, fmt):
    """Reference PCM (f32, s16 or s32 little-endian bytes) -> an array in the capture's format, as fermatad converts."""
    src = array.array({"f32": "f", "s16": "h", "s32": "i"}[kind], pcm)
    if sys.byteorder != "little":
        src.byteswap()
    if fmt == "f32le":
        if kind == "f32":
            return src
        scale = 32768.0 if kind == "s16" else 2147483648.0
        return array.array("f", (v / scale for v in src))
    if fmt == "s16le":
        if kind == "s16":
            return src
        if kind == "s32":
            return array.array("h", (v >> 16 for v in src))
        return array.array("h", (32767 if r > 32767 else -32768 if r < -32768 else r
                                 for r in (round_away(v * 32768.0) if v == v else 0 for v in src)))
    if fmt == "s32le":
        if kind == "s32":
            return src
        if kind == "s16":
            return array.array("i", (v << 16 for v in src))
        return array.array("i", (2147483647 if r > 2147483647 else -2147483648 if r < -2147483648 else r
                                 for r in (round_away(v * 2147483648.0) if v == v else 0 for v in src)))
    die(f"unknown capture format {fmt}")


def read_capture(path, fmt):
    arr = array.array({"f32le": "f", "s16le": "h", "s32le": "i"}[fmt])
    data = open(path, "rb").read()
    data = data[:len(data) - len(data) % arr.itemsize]
    arr.frombytes(data)
    if sys.byteorder != "little":
        arr.byteswap()
    return arr


# ---------------------------------------------------------------- locating and comparing -----------------------------


def locate_exact(ref_bytes, cap, start, channels, window):
    """Reference frame where capture frames [start, start+window) occur byte for byte, or None. bytes.find is C-fast;
    misaligned hits (inside a frame) are skipped."""
    fb = cap.itemsize * channels
    needle = cap[start * channels:(start + window) * channels].tobytes()
    if len(needle) < window * fb or not needle.strip(b"\0"):
        return None  # past the end, or digital silence (matches everywhere)
    pos = ref_bytes.find(needle)
    while pos >= 0 and pos % fb:
        pos = ref_bytes.find(needle, pos + 1)
    return None if pos < 0 else pos // fb


def locate_tolerant(ref, cap, start, channels, window, tol):
    """Slow path for a capture that is nowhere bit-exact: every reference frame whose first samples are within tol."""
    n_ref = len(ref) // channels
    probe = [cap[(start + k) * channels + c] for k in (0, window // 3, 2 * window // 3) for c in range(channels)]
    steps = [k for k in (0, window // 3, 2 * window // 3)]
    best = None
    for p in range(0, n_ref - window):
        ok = True
        i = 0
        for k in steps:
            base = (p + k) * channels
            for c in range(channels):
                if abs(ref[base + c] - probe[i]) > tol:
                    ok = False
                    break
                i += 1
            if not ok:
                break
        if ok:
            worst = max(abs(ref[(p + k) * channels + c] - cap[(start + k) * channels + c])
                        for k in range(window) for c in range(channels))
            if worst <= tol and (best is None or worst < best[1]):
                best = (p, worst)
                if worst == 0:
                    break
    return None if best is None else best[0]


def compare_span(ref, cap, channels, cap_from, cap_to, ref_at_cap0, tol):
    """Compares capture frames [cap_from, cap_to) against the reference aligned so capture frame 0 is reference frame
    ref_at_cap0. Returns the statistics and the mismatching runs (capture frame ranges)."""
    n_ref = len(ref) // channels
    exact = within = 0
    maxdiff = 0
    runs = []
    run_start = None
    last_bad = None
    compared = 0
    for f in range(cap_from, cap_to):
        r = f + ref_at_cap0
        if r < 0:
            continue
        if r >= n_ref:
            break
        compared += 1
        cb, rb = f * channels, r * channels
        d = 0
        for c in range(channels):
            x = abs(cap[cb + c] - ref[rb + c])
            if x > d:
                d = x
        if d == 0:
            exact += 1
        if d <= tol:
            within += 1
        if d > maxdiff:
            maxdiff = d
        if d:
            last_bad = f
            if run_start is None:
                run_start = f
        elif run_start is not None:
            runs.append([run_start, f])
            run_start = None
    if run_start is not None:
        runs.append([run_start, cap_to])
    return {"compared_frames": compared, "exact_frames": exact, "within_tolerance_frames": within,
            "max_abs_diff": maxdiff, "last_mismatch": last_bad}, runs


def find_alignment(ref, ref_bytes, cap, channels, start, n_cap, window, tol, rate):
    """Tries windows at start, then later (0.25 s, 0.5 s, 1 s, 2 s, 4 s ... further in), exact first, then tolerant.
    Returns (capture frame the window began at, reference frame of capture frame 0) or None."""
    tries = [start] + [start + int(rate * s) for s in (0.25, 0.5, 1, 2, 4, 8)]
    for s in tries:
        if s + window > n_cap:
            break
        p = locate_exact(ref_bytes, cap, s, channels, window)
        if p is not None:
            return s, p - s
    if tol > 0:
        for s in tries[:3]:
            if s + window > n_cap:
                break
            p = locate_tolerant(ref, cap, s, channels, window, tol)
            if p is not None:
                return s, p - s
    return None


def looped_stream(source, codec, loops, tmpdir):
    """The bytes a feeder sends for `loops` passes over SOURCE (see icecast.py feed)."""
    if loops <= 1:
        return source
    if codec in ("mp3", "aac"):
        data = open(source, "rb").read()
        out = os.path.join(tmpdir, "looped." + codec)
        with open(out, "wb") as f:
            for _ in range(loops):
                f.write(data)
        return out
    ext = {"vorbis": "ogg", "opus": "opus", "flac": "flac", "flac-ogg": "oga"}[codec]
    out = os.path.join(tmpdir, "looped." + ext)
    _run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-stream_loop", str(loops - 1), "-i", source, "-c", "copy",
          "-fflags", "+bitexact", "-map", "0:a:0", *REMUX[codec], out])
    return out


def cmd_compare(a):
    codec = a.codec if a.codec != "auto" else probe_codec(a.source)
    with tempfile.TemporaryDirectory() as tmp:
        sent = looped_stream(a.source, codec, a.loops, tmp)
        name, rate, channels, kind, pcm = decode(sent, codec, a.decoder)
    if a.channels and a.channels != channels:
        die(f"capture has {a.channels} channels, the reference {channels}")
    ref = to_capture_format(kind, pcm, a.capture_format)
    if a.ref_out:
        with open(a.ref_out, "wb") as f:
            ref.tofile(f)
    ref_bytes = ref.tobytes()
    cap = read_capture(a.capture, a.capture_format)
    n_cap = len(cap) // channels
    n_ref = len(ref) // channels
    skip = int((a.skip if a.skip is not None else DEFAULT_SKIP.get(codec, 0.5)) * rate)
    tol = a.tolerance
    base = {"source": a.source, "capture": a.capture, "codec": codec, "decoder": name, "reference_kind": kind,
            "capture_format": a.capture_format, "rate": rate, "channels": channels, "capture_frames": n_cap,
            "reference_frames": n_ref, "skip_frames": skip, "loops": a.loops, "tolerance": tol}
    found = find_alignment(ref, ref_bytes, cap, channels, skip, n_cap, a.window, tol, rate)
    if found is None:
        print(json.dumps({**base, "verdict": "not-found", "offset": None, "compared_frames": 0, "exact_frames": 0,
                          "max_abs_diff": None}))
        return 1
    at, ref0 = found
    segments = []
    pos, align = skip, ref0
    all_runs = []
    total = {"compared_frames": 0, "exact_frames": 0, "within_tolerance_frames": 0, "max_abs_diff": 0}
    while True:
        stats, runs = compare_span(ref, cap, channels, pos, n_cap, align, tol)
        end = n_cap
        if a.resync:
            # cut the segment at the first long mismatch and look for the capture again after it
            for r0, r1 in runs:
                if r1 - r0 >= a.resync_frames or (r1 == n_cap and r1 - r0 >= a.window):
                    end = r0
                    break
            if end != n_cap:
                stats, runs = compare_span(ref, cap, channels, pos, end, align, tol)
        segments.append({"from": pos, "to": min(end, n_ref - align), "offset": pos + align,
                         "offset_seconds": round((pos + align) / rate, 4), **stats})
        all_runs += runs
        for k in ("compared_frames", "exact_frames", "within_tolerance_frames"):
            total[k] += stats[k]
        total["max_abs_diff"] = max(total["max_abs_diff"], stats["max_abs_diff"])
        if end >= n_cap or not a.resync:
            break
        nxt = find_alignment(ref, ref_bytes, cap, channels, end + a.resync_frames // 2, n_cap, a.window, tol, rate)
        if nxt is None:
            segments.append({"from": end, "to": n_cap, "offset": None, "note": "not found again"})
            break
        pos, align = nxt
    head, _ = compare_span(ref, cap, channels, 0, skip, ref0, tol)
    last_bad = max([s.get("last_mismatch") or -1 for s in segments if "last_mismatch" in s] +
                   [head["last_mismatch"] if head["last_mismatch"] is not None else -1])
    exact_from = last_bad + 1
    ok = total["compared_frames"] > 0 and total["within_tolerance_frames"] == total["compared_frames"]
    verdict = "mismatch" if not ok else "exact" if total["exact_frames"] == total["compared_frames"] else "close"
    print(json.dumps({**base, "verdict": verdict, "offset": skip + ref0, "offset_seconds": round((skip + ref0) / rate, 4),
                      "located_with_window_at": at, **total,
                      "exact_from": exact_from, "exact_from_seconds": round(exact_from / rate, 4),
                      "head": {k: head[k] for k in ("compared_frames", "exact_frames", "max_abs_diff")},
                      "mismatch_runs": all_runs[:20], "mismatch_run_count": len(all_runs),
                      **({"segments": segments, "discontinuities": discontinuities(segments, rate)}
                         if a.resync else {})}))
    return 0 if ok else 1


def discontinuities(segments, rate):
    """Where the alignment jumps between segments: the reference moved on by jump_frames more (or fewer) frames than
    the capture did -- a gap (positive: audio missing from the capture) or a repeat (negative)."""
    out = []
    for prev, cur in zip(segments, segments[1:]):
        if prev.get("offset") is None or cur.get("offset") is None:
            continue
        jump = (cur["offset"] - cur["from"]) - (prev["offset"] - prev["from"])
        out.append({"at_capture_frame": cur["from"], "jump_frames": jump, "jump_seconds": round(jump / rate, 4)})
    return out


def cmd_decode(a):
    codec = a.codec if a.codec != "auto" else probe_codec(a.file)
    name, rate, channels, kind, pcm = decode(a.file, codec, a.decoder)
    out = to_capture_format(kind, pcm, a.format)
    with open(a.out, "wb") as f:
        out.tofile(f)
    print(json.dumps({"file": a.file, "codec": codec, "decoder": name, "rate": rate, "channels": channels,
                      "frames": len(out) // channels, "format": a.format, "decoded_as": kind}))
    return 0


def cmd_decoders(_a):
    res = {}
    for codec, options in DECODERS.items():
        res[codec] = [{"decoder": n, "needs": need, "available": available(need), "version": tool_version(need)}
                      for n, _fn, need in options]
    print(json.dumps(res, indent=1))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare", help="compare a capture against the source's reference decode")
    c.add_argument("source")
    c.add_argument("capture")
    c.add_argument("--capture-format", required=True, choices=["s16le", "s32le", "f32le"])
    c.add_argument("--channels", type=int, default=0, help="the capture's channels (default: the reference's)")
    c.add_argument("--codec", default="auto", choices=["auto"] + list(DECODERS))
    c.add_argument("--decoder", default="auto")
    c.add_argument("--loops", type=int, default=3, help="passes over SOURCE the feeder made (default 3)")
    c.add_argument("--skip", type=float, default=None,
                   help="seconds of the capture to leave out (default 0.5; Opus 1.5: see above)")
    c.add_argument("--window", type=int, default=1024, help="frames in the locating window (default 1024)")
    c.add_argument("--tolerance", type=float, default=0, help="largest difference still 'within' (capture units)")
    c.add_argument("--resync", action="store_true", help="re-locate after a long mismatch (gaps, restarts)")
    c.add_argument("--resync-frames", type=int, default=2048, help="mismatch run that starts a new segment")
    c.add_argument("--ref-out", help="also write the reference PCM (in the capture's format) here")
    d = sub.add_parser("decode", help="decode a file with the reference decoder")
    d.add_argument("file")
    d.add_argument("out")
    d.add_argument("--codec", default="auto", choices=["auto"] + list(DECODERS))
    d.add_argument("--decoder", default="auto")
    d.add_argument("--format", default="f32le", choices=["s16le", "s32le", "f32le"])
    sub.add_parser("decoders", help="list the reference decoders available here")
    a = ap.parse_args()
    sys.exit({"compare": cmd_compare, "decode": cmd_decode, "decoders": cmd_decoders}[a.cmd](a))


if __name__ == "__main__":
    main()
