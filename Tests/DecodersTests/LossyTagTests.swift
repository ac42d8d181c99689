@testable import Decoders
import Foundation
import TestSupport
import Testing

/// Tags written by the tools owners' files come from — mutagen, AtomicParsley, `ffmpeg -metadata`, opusenc, LAME —
/// read back exactly; plus ID3v2 layouts those tools no longer write (2.2, unsynchronised 2.3), built byte by byte.
@Suite(.serialized) struct LossyTagTests {
    static let python = "/usr/bin/python3"

    /// A 1 s file of `kind` in `dir`.
    static func file(_ kind: LossyFixture.Kind, in dir: TemporaryDirectory, name: String = "t",
                     tags: [String: String] = [:]) throws -> String {
        let wav = dir.file("\(name).wav")
        try WAVFixture.write(path: wav, samples: TestSignal.sweep(frames: 44_100, channels: 2, bits: 16),
                             channels: 2, sampleRate: 44_100, kind: .pcm16)
        let path = dir.file("\(name).\(kind.fileExtension)")
        try LossyFixture.encode(kind, wav: wav, to: path, tags: tags)
        return path
    }

    @Test(arguments: [3, 4])
    func id3v2FromMutagen(version: Int) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.file(.mp3, in: dir)
        try LossyFixture.run(Self.python, ["-c", """
            import sys
            from mutagen.id3 import ID3, TIT2, TPE1, TPE2, TALB, TRCK, TPOS, TDRC, TCON, TCOM, TBPM, TXXX, APIC
            t = ID3()
            t.add(TIT2(encoding=1, text=['Blåbær – “Étude” 練習']))
            t.add(TPE1(encoding=3, text=['Ана Вук']))
            t.add(TPE2(encoding=0, text=['Various']))
            t.add(TALB(encoding=1, text=['Practice Tracks']))
            t.add(TRCK(encoding=0, text=['3/12']))
            t.add(TPOS(encoding=0, text=['2/2']))
            t.add(TDRC(encoding=0, text=['2019']))
            t.add(TCON(encoding=0, text=['(8)']))
            t.add(TCOM(encoding=1, text=['J. S. Bach']))
            t.add(TBPM(encoding=0, text=['96']))
            t.add(TXXX(encoding=1, desc='replaygain_track_gain', text=['-7.25 dB']))
            t.add(TXXX(encoding=1, desc='REPLAYGAIN_ALBUM_GAIN', text=['-6.50 dB']))
            t.add(TXXX(encoding=1, desc='replaygain_track_peak', text=['0.988']))
            t.add(TXXX(encoding=1, desc='MusicBrainz Album Id', text=['6c0d1f1b']))
            t.add(APIC(encoding=0, mime='image/png', type=0, desc='back', data=b'B' * 300))
            t.add(APIC(encoding=1, mime='image/jpeg', type=3, desc='front', data=b'\\xff\\xd8' + b'F' * 5000))
            t.save(sys.argv[1], v2_version=int(sys.argv[2]))
            """, path, String(version)])
        let tags = try TagReader.read(path: path)
        #expect(tags.title == "Blåbær – “Étude” 練習")
        #expect(tags.artist == "Ана Вук")
        #expect(tags.albumArtist == "Various")
        #expect(tags.album == "Practice Tracks")
        #expect(tags.trackNumber == 3)
        #expect(tags.discNumber == 2)
        #expect(tags.date == "2019")
        #expect(tags.genre == "Jazz")
        #expect(tags.composer == "J. S. Bach")
        #expect(tags.bpm == 96)
        #expect(tags.replayGain.trackGain == -7.25)
        #expect(tags.replayGain.albumGain == -6.5)
        #expect(tags.replayGain.trackPeak == 0.988)
        #expect(tags.codec == "mp3")
        #expect(tags.sampleRate == 44_100)
        #expect(abs((tags.duration ?? 0) - 1.0) < 1e-9, "LAME's header gives the exact length")
        #expect(tags.embeddedPictureBytes == 5002, "the front cover is preferred")
        #expect(tags.pictureLocation?.mimeType == "image/jpeg")
        // The identity ignores the tag: re-tagging keeps it.
        let before = try AudioIdentity.fingerprint(path: path, tags: tags)
        try LossyFixture.run(Self.python, ["-c", "import sys; from mutagen.id3 import ID3, TIT2; t = ID3(sys.argv[1]); "
            + "t.add(TIT2(encoding=3, text=['Renamed'])); t.save()", path])
        let retagged = try TagReader.read(path: path)
        #expect(retagged.title == "Renamed")
        #expect(try AudioIdentity.fingerprint(path: path, tags: retagged) == before)
    }

    @Test func apeAndID3v1Fallbacks() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.file(.mp3, in: dir)
        try LossyFixture.run("/usr/bin/lame", ["--quiet", "--id3v1-only", "--tt", "V1 Title", "--ta", "V1 Artist",
                                               "--tg", "Blues", "--tn", "7", dir.file("t.wav"), dir.file("v1.mp3")])
        let v1 = try TagReader.read(path: dir.file("v1.mp3"))
        #expect(v1.title == "V1 Title")
        #expect(v1.artist == "V1 Artist")
        #expect(v1.trackNumber == 7)
        #expect(v1.genre == "Blues")
        try LossyFixture.run(Self.python, ["-c", """
            import sys
            from mutagen.apev2 import APEv2
            a = APEv2(); a['Title'] = 'APE Title'; a['Album'] = 'APE Album'; a['REPLAYGAIN_TRACK_GAIN'] = '+1.50 dB'
            a.save(sys.argv[1])
            """, path])
        let ape = try TagReader.read(path: path)
        #expect(ape.title == "APE Title")
        #expect(ape.album == "APE Album")
        #expect(ape.replayGain.trackGain == 1.5)
        #expect(abs((ape.duration ?? 0) - 1.0) < 1e-9)
    }

    /// ID3v2.2 (3-letter frames, `PIC`), and an ID3v2.3 tag with the unsynchronisation flag, which old iTunes and
    /// Windows Media wrote: built here byte by byte, since today's taggers write neither.
    @Test func id3v22AndUnsynchronisedID3v23() throws {
        let dir = try TemporaryDirectory()
        let mp3 = try Self.file(.mp3, in: dir)
        let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: mp3)))
        #expect(Array(audio.prefix(3)) != Array("ID3".utf8), "LAME wrote no tag of its own")
        let body = audio
        func syncsafe(_ n: Int) -> [UInt8] { [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] }
        // ID3v2.2
        func frame22(_ id: String, _ data: [UInt8]) -> [UInt8] {
            Array(id.utf8) + [UInt8(data.count >> 16), UInt8(data.count >> 8 & 0xFF), UInt8(data.count & 0xFF)] + data
        }
        var frames22 = frame22("TT2", [0] + Array("Old Title".utf8)) + frame22("TP1", [1, 0xFF, 0xFE] + Array("Ü".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        frames22 += frame22("TBP", [0] + Array("120".utf8))
        frames22 += frame22("PIC", [0] + Array("PNG".utf8) + [3, 0] + [UInt8](repeating: 9, count: 40))
        let v22 = Array("ID3".utf8) + [2, 0, 0] + syncsafe(frames22.count + 16) + frames22 + [UInt8](repeating: 0, count: 16)
        try Data(v22 + body).write(to: URL(fileURLWithPath: dir.file("v22.mp3")))
        let tags22 = try TagReader.read(path: dir.file("v22.mp3"))
        #expect(tags22.title == "Old Title")
        #expect(tags22.artist == "Ü")
        #expect(tags22.bpm == 120)
        #expect(tags22.embeddedPictureBytes == 40)
        // ID3v2.3, unsynchronised: a title holding 0xFF bytes (ÿ in ISO-8859-1) followed by 0x00 and 0xE0.
        func frame23(_ id: String, _ data: [UInt8]) -> [UInt8] {
            Array(id.utf8) + [UInt8(data.count >> 24), UInt8(data.count >> 16 & 0xFF), UInt8(data.count >> 8 & 0xFF),
                              UInt8(data.count & 0xFF), 0, 0] + data
        }
        let plain = frame23("TIT2", [0, 0x41, 0xFF, 0xE0, 0x42, 0xFF]) + frame23("TALB", [0] + Array("Sync".utf8))
        var unsynced: [UInt8] = []
        for (index, byte) in plain.enumerated() {
            unsynced.append(byte)
            let next = index + 1 < plain.count ? plain[index + 1] : 0
            if byte == 0xFF, next & 0xE0 == 0xE0 || next == 0 { unsynced.append(0) }
        }
        let v23 = Array("ID3".utf8) + [3, 0, 0x80] + syncsafe(unsynced.count) + unsynced
        try Data(v23 + body).write(to: URL(fileURLWithPath: dir.file("v23.mp3")))
        let tags23 = try TagReader.read(path: dir.file("v23.mp3"))
        #expect(tags23.title == "A\u{FF}\u{E0}B\u{FF}")
        #expect(tags23.album == "Sync")
        #expect(abs((tags23.duration ?? 0) - 1.0) < 1e-9)
    }

    @Test func mp4AtomsFromAtomicParsleyFFmpegAndMutagen() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.file(.aac, in: dir, tags: ["title": "From FFmpeg", "artist": "Ensemble", "album": "Étude",
                                                        "date": "2021", "genre": "Classical"])
        let fromFFmpeg = try TagReader.read(path: path)
        #expect(fromFFmpeg.title == "From FFmpeg")
        #expect(fromFFmpeg.artist == "Ensemble")
        #expect(fromFFmpeg.album == "Étude")
        #expect(fromFFmpeg.date == "2021")
        #expect(fromFFmpeg.genre == "Classical")
        #expect(fromFFmpeg.codec == "aac")
        #expect(abs((fromFFmpeg.duration ?? 0) - 1.0) < 1e-9, "the edit list's length, not the padded one")
        let cover = dir.file("cover.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 992)).write(to: URL(fileURLWithPath: cover))
        try LossyFixture.run("/usr/bin/AtomicParsley", [path, "--overWrite", "--title", "Parsley Title",
                                                        "--albumArtist", "Various", "--tracknum", "4/9", "--disk", "1/2",
                                                        "--bpm", "132", "--compilation", "true", "--composer", "Ravel",
                                                        "--artwork", cover])
        try LossyFixture.run(Self.python, ["-c", """
            import sys, mutagen.mp4
            f = mutagen.mp4.MP4(sys.argv[1])
            f['----:com.apple.iTunes:replaygain_track_gain'] = [b'-3.10 dB']
            f['----:com.apple.iTunes:replaygain_album_gain'] = [b'-4.20 dB']
            f.save()
            """, path])
        let tags = try TagReader.read(path: path)
        #expect(tags.title == "Parsley Title")
        #expect(tags.artist == "Ensemble")
        #expect(tags.albumArtist == "Various")
        #expect(tags.trackNumber == 4)
        #expect(tags.discNumber == 1)
        #expect(tags.bpm == 132)
        #expect(tags.composer == "Ravel")
        #expect(tags.replayGain.trackGain == -3.1)
        #expect(tags.replayGain.albumGain == -4.2)
        #expect(tags.embeddedPictureBytes == 1000)
        #expect(tags.pictureLocation?.mimeType == "image/png")
        let picture = PictureHash.hash(path: path, codec: tags.codec, location: tags.pictureLocation)
        #expect(picture?.bytes == 1000)
        #expect(abs((tags.duration ?? 0) - 1.0) < 1e-9)
    }

    @Test func alacPropertiesAndIdentityThroughRetagging() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.file(.alac, in: dir, tags: ["title": "Lossless"])
        let tags = try TagReader.read(path: path)
        #expect(tags.codec == "alac")
        #expect(tags.bitsPerSample == 16)
        #expect(tags.channels == 2)
        #expect(tags.sampleRate == 44_100)
        let before = try AudioIdentity.fingerprint(path: path, tags: tags)
        try LossyFixture.run("/usr/bin/AtomicParsley", [path, "--overWrite", "--title", "A much longer title than before"])
        let after = try TagReader.read(path: path)
        #expect(after.title == "A much longer title than before")
        #expect(try AudioIdentity.fingerprint(path: path, tags: after) == before)
    }

    @Test func opusCommentsAndR128() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.file(.opus, in: dir, tags: ["TITLE": "Opus Title", "ARTIST": "Singer", "BPM": "88"])
        try LossyFixture.run(Self.python, ["-c", """
            import sys, mutagen.oggopus
            f = mutagen.oggopus.OggOpus(sys.argv[1])
            f['R128_TRACK_GAIN'] = ['-1280']
            f['R128_ALBUM_GAIN'] = ['256']
            f.save()
            """, path])
        let tags = try TagReader.read(path: path)
        #expect(tags.title == "Opus Title")
        #expect(tags.artist == "Singer")
        #expect(tags.bpm == 88)
        #expect(tags.codec == "opus")
        #expect(tags.sampleRate == 48_000)
        // Q7.8 towards −23 LUFS, brought to ReplayGain's −18 LUFS: −1280/256 + 5 = 0 dB; 256/256 + 5 = 6 dB.
        #expect(tags.replayGain.trackGain == 0)
        #expect(tags.replayGain.albumGain == 6)
        #expect(abs((tags.duration ?? 0) - 1.0) < 1e-3)
    }

    /// MusicBrainz ids as Picard writes them: Vorbis comments (FLAC, Opus), ID3v2 `UFID` and `TXXX` (MP3), MP4
    /// `----:com.apple.iTunes:MusicBrainz …` items.
    @Test func musicBrainzIDsFromEveryFormat() throws {
        let dir = try TemporaryDirectory()
        let ids = ["track": "d6118046-407d-4e06-a1ba-49c399a4c42f", "album": "0e8a1ca1-0b3a-4d1a-9f43-4b0f6d2a9a11",
                   "artist": "b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d", "albumartist": "89ad4ac3-39f7-470e-963a-56509c546377"]
        let mp3 = try Self.file(.mp3, in: dir, name: "mb")
        try LossyFixture.run(Self.python, ["-c", """
            import sys
            from mutagen.id3 import ID3, UFID, TXXX
            t = ID3()
            t.add(UFID(owner='http://musicbrainz.org', data=sys.argv[2].encode()))
            t.add(TXXX(encoding=3, desc='MusicBrainz Album Id', text=[sys.argv[3]]))
            t.add(TXXX(encoding=3, desc='MusicBrainz Artist Id', text=[sys.argv[4] + '/00000000-0000-0000-0000-000000000000']))
            t.add(TXXX(encoding=3, desc='MusicBrainz Album Artist Id', text=[sys.argv[5]]))
            t.save(sys.argv[1])
            """, mp3, ids["track"]!, ids["album"]!, ids["artist"]!, ids["albumartist"]!])
        let m4a = try Self.file(.aac, in: dir, name: "mb")
        try LossyFixture.run(Self.python, ["-c", """
            import sys, mutagen.mp4
            f = mutagen.mp4.MP4(sys.argv[1])
            f['----:com.apple.iTunes:MusicBrainz Track Id'] = [sys.argv[2].encode()]
            f['----:com.apple.iTunes:MusicBrainz Album Id'] = [sys.argv[3].encode()]
            f['----:com.apple.iTunes:MusicBrainz Artist Id'] = [sys.argv[4].encode()]
            f['----:com.apple.iTunes:MusicBrainz Album Artist Id'] = [sys.argv[5].encode()]
            f.save()
            """, m4a, ids["track"]!, ids["album"]!, ids["artist"]!, ids["albumartist"]!])
        let opus = try Self.file(.opus, in: dir, name: "mb", tags: [
            "MUSICBRAINZ_TRACKID": ids["track"]!, "MUSICBRAINZ_ALBUMID": ids["album"]!,
            "MUSICBRAINZ_ARTISTID": ids["artist"]!, "MUSICBRAINZ_ALBUMARTISTID": ids["albumartist"]!,
        ])
        for path in [mp3, m4a, opus] {
            let tags = try TagReader.read(path: path).musicBrainz
            #expect(tags.track == ids["track"], "\(path)")
            #expect(tags.album == ids["album"], "\(path)")
            #expect(tags.artist == ids["artist"], "\(path): the first of several")
            #expect(tags.albumArtist == ids["albumartist"], "\(path)")
        }
        // Not an identifier: ignored, not stored.
        #expect(TagText.identifier("<script>") == nil)
        #expect(TagText.identifier(String(repeating: "a", count: 65)) == nil)
    }
}
