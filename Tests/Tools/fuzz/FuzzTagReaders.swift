// libFuzzer entry point for the hand-written readers the library scan runs on every file: the ID3v2/APEv2/ID3v1
// reader, the MPEG frame and Xing/LAME header parser, and the MP4 box walker (tags, edit list, iTunSMPB, cover
// location). Built by fuzz-tag-readers.sh beside it, with the Decoders, FermataCore and AudioCore sources compiled as
// modules of their own.
//
// Each input is written to a file in /dev/shm and read by path, as the scan reads a real file. Besides
// crashes (traps, sanitizer reports, time-outs, out-of-memory), it checks that every result is within the file:
// a picture's location lies inside it, and durations are finite and not negative.

import Decoders
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTagReaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    // One file in memory (/dev/shm) per fuzzing process, rewritten for each input.
    let path = "/dev/shm/fermata-fuzz-tags-\(getpid())"
    let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return 0 }
    if let data, size > 0 { _ = write(fd, data, size) }
    close(fd)
    // TagReader chooses by content, as the scan does: the seeds steer the fuzzer into each format's reader.
    guard let tags = try? TagReader.read(path: path) else { return 0 }
    if let duration = tags.duration, !(duration.isFinite && duration >= 0) {
        fatalError("duration \(duration)")
    }
    if let location = tags.pictureLocation {
        var inFile = true
        if case PictureLocation.Storage.base64Block = location.storage { inFile = false }
        if inFile, location.offset < 0 || location.length < 0 || location.offset + location.length > Int64(size) {
            fatalError("picture at \(location.offset)+\(location.length) in a \(size)-byte file")
        }
    }
    _ = EmbeddedPicture.read(path: path, offset: 0, maxLength: 4096)
    _ = try? AudioIdentity.fingerprint(path: path, tags: tags)
    return 0
}
