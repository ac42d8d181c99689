import MPDProtocol
import MPDTestSupport
import Testing

@Suite struct CoverArtCommandTests {
    /// 200 bytes including newlines and NULs, so binary framing is really exercised.
    let picture: [UInt8] = (0..<200).map { UInt8(($0 * 37) % 256) }

    @Test func readpictureSendsBinarylimitSizedChunks() async throws {
        let backend = InMemoryBackend()
        await backend.setPicture(uri: "loose.wav", bytes: picture, mime: "image/png")
        var driver = SessionDriver(backend: backend)
        #expect(await driver.send("binarylimit 64") == "OK\n")
        var received: [UInt8] = []
        while received.count < picture.count {
            let raw = await driver.sendBytes("readpicture loose.wav \(received.count)")
            let header = "size: 200\ntype: image/png\nbinary: "
            #expect(raw.starts(with: header.utf8))
            let rest = raw.dropFirst(header.utf8.count)
            let newline = try #require(rest.firstIndex(of: 0x0A))
            let length = try #require(Int(String(decoding: rest[..<newline], as: UTF8.self)))
            #expect(length == min(64, picture.count - received.count))
            let data = rest[(newline + 1)...].prefix(length)
            received += data
            #expect(Array(rest[(newline + 1 + length)...]) == Array("\nOK\n".utf8))
        }
        #expect(received == picture)
    }

    @Test func albumartUsesTheDirectoryCover() async {
        let backend = InMemoryBackend()
        await backend.setDirectoryCover(directory: "Bach/Goldberg", bytes: Array("JPEGDATA".utf8))
        var driver = SessionDriver(backend: backend)
        #expect(await driver.send("albumart \"Bach/Goldberg/01 Aria.flac\" 0") == "size: 8\nbinary: 8\nJPEGDATA\nOK\n")
        #expect(await driver.send("albumart \"Bach/Goldberg/01 Aria.flac\" 4") == "size: 8\nbinary: 4\nDATA\nOK\n")
        #expect(
            await driver.send("albumart \"Bach/Goldberg/01 Aria.flac\" 9") == "ACK [2@0] {albumart} Bad file offset\n")
        #expect(await driver.send("albumart loose.wav 0") == "ACK [50@0] {albumart} No file exists\n")
        #expect(await driver.send("albumart nosuch.flac 0") == "ACK [50@0] {albumart} No such file\n")
    }

    @Test func readpictureWithoutPictureIsEmpty() async {
        var driver = SessionDriver()
        #expect(await driver.send("readpicture loose.wav 0") == "OK\n")
    }
}
