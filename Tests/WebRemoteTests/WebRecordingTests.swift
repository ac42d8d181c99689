import FermataCore
import Foundation
import MPDProtocol
import Testing
@testable import WebRemote

/// Recording on the page: how `POST /api/takes/{id}/play` reads its body (every number range-checked, a 400 that says
/// what is wrong, never a trap), the `path` of `GET /api/takes`, recording's refusals as the API's statuses, the JSON
/// the page reads, and the `recording` event.
@Suite struct WebRecordingTests {
    static func play(_ json: String) throws -> TakePlayback {
        try JSONDecoder().decode(RecordingRoutes.PlayInput.self, from: Data(json.utf8)).checked()
    }

    @Test func aPlayBodyIsTheModeAndTheRounds() throws {
        #expect(try Self.play("{}") == .alone, "no mode: alone, as playtake ID")
        #expect(try Self.play(#"{"mode": "alone"}"#) == .alone)
        #expect(try Self.play(#"{"mode": "alternate"}"#) == .alternate(rounds: 2), "playtake's default rounds")
        #expect(try Self.play(#"{"mode": "alternate", "rounds": 1}"#) == .alternate(rounds: 1))
        #expect(try Self.play(#"{"mode": "alternate", "rounds": 50}"#) == .alternate(rounds: 50))
        #expect(try Self.play(#"{"mode": "alternate", "rounds": 3.0}"#) == .alternate(rounds: 3))
        #expect(try Self.play(#"{"mode": "balance"}"#) == .balance(takePercent: 50, rounds: 2), "playtake's defaults")
        #expect(try Self.play(#"{"mode": "balance", "take": 0, "rounds": 1}"#) == .balance(takePercent: 0, rounds: 1))
        #expect(try Self.play(#"{"mode": "balance", "take": 100}"#) == .balance(takePercent: 100, rounds: 2))
    }

    @Test(arguments: [
        (#"{"mode": "together"}"#, "the mode is alone, alternate or balance"),
        (#"{"mode": ""}"#, "the mode is alone, alternate or balance"),
        (#"{"mode": "alone", "rounds": 2}"#, "only alternate and balance take a number of rounds"),
        (#"{"rounds": 2}"#, "only alternate and balance take a number of rounds"),
        (#"{"mode": "alternate", "rounds": 0}"#, "rounds must be a whole number from 1 to 50"),
        (#"{"mode": "alternate", "rounds": 51}"#, "rounds must be a whole number from 1 to 50"),
        (#"{"mode": "alternate", "rounds": -1}"#, "rounds must be a whole number from 1 to 50"),
        (#"{"mode": "alternate", "rounds": 2.5}"#, "rounds must be a whole number from 1 to 50"),
        (#"{"mode": "alternate", "rounds": 1e300}"#, "rounds must be a whole number from 1 to 50"),
        (#"{"mode": "alternate", "take": 50}"#, "only balance takes the take's share"),
        (#"{"mode": "balance", "take": 101}"#, "take must be a whole number from 0 to 100"),
        (#"{"mode": "balance", "take": -1}"#, "take must be a whole number from 0 to 100"),
        (#"{"mode": "balance", "take": 12.5}"#, "take must be a whole number from 0 to 100"),
        (#"{"mode": "balance", "rounds": 0}"#, "rounds must be a whole number from 1 to 50"),
    ])
    func badPlayBodiesAreRefusedInWords(_ json: String, _ message: String) {
        do {
            _ = try Self.play(json)
            Issue.record("\(json) was taken")
        } catch let failure as WebFailure {
            #expect(failure.status.code == 400 && failure.message == message, "\(json): \(failure.message)")
        } catch {
            Issue.record("\(json): \(error)")
        }
    }

    /// A mode or rounds of the wrong kind never reaches the check: the decoder refuses it (the route answers 400).
    @Test func wrongKindsAreRefusedByTheDecoder() {
        for json in [#"{"mode": 1}"#, #"{"mode": "alternate", "rounds": "2"}"#, "[]"] {
            #expect(throws: (any Error).self, "\(json)") { _ = try Self.play(json) }
        }
    }

    @Test func thePathOfTakes() throws {
        #expect(try RecordingRoutes.path(nil) == nil, "absent: every take")
        #expect(try RecordingRoutes.path("Études/op10-3.flac") == "Études/op10-3.flac")
        #expect(try RecordingRoutes.path(String(repeating: "a", count: 4096)) != nil)
        for bad in ["", "a\u{0}b", "line\nbreak", String(repeating: "a", count: 4097)] {
            #expect(throws: WebFailure.self, "\(bad.prefix(10))") { _ = try RecordingRoutes.path(bad) }
        }
    }

    static func status(_ error: MPDError) async -> (Int, String)? {
        do {
            try await RecordingRoutes.calling { throw error }
            return nil
        } catch let failure as WebFailure {
            return (failure.status.code, failure.message)
        } catch {
            return nil
        }
    }

    /// No capture device (`[5]`) is a 409 that says so in words, not a 500; a take that does not exist a 404.
    @Test func recordingsRefusalsAreTheAPIsStatuses() async {
        let noDevice = "no capture device: set record.device in the configuration (`arecord -L` lists them)"
        #expect(await Self.status(MPDError(.unknown, noDevice)) ?? (0, "") == (409, noDevice))
        #expect(await Self.status(MPDError(.noExist, "no take 9")) ?? (0, "") == (404, "no take 9"))
        #expect(await Self.status(MPDError.badArgument("the rounds are 1 to 50"))?.0 == 400)
    }

    @Test func theJSONThePageReads() throws {
        let report = RecordReport(device: "plughw:CARD=Device,DEV=0", on: true, phase: "capturing", rate: 48_000,
                                  latencyMilliseconds: 23.417, lastError: nil, takes: 3)
        let recording = try #require(try JSONSerialization.jsonObject(with: WebJSON.encode(WebJSON.Recording(report)))
            as? [String: Any])
        #expect(recording.keys.sorted() == ["device", "latency_ms", "on", "phase", "rate", "takes"], "\(recording)")
        let take = TakeReport(id: 12, path: "Études/op10-3.flac", loopStartMilliseconds: 12_500, loopEndMilliseconds: 20_000,
                              pass: 3, tempoPercent: 85, recordedAt: 1_795_928_470, seconds: 8.824, bytes: 812_345)
        let json = try #require(try JSONSerialization.jsonObject(with: WebJSON.encode(WebJSON.Take(take))) as? [String: Any])
        #expect(json.keys.sorted() == ["bytes", "date", "file", "id", "length", "loop_end", "loop_start", "pass", "tempo"])
        #expect(json["loop_start"] as? Double == 12.5 && json["loop_end"] as? Double == 20 && json["length"] as? Double == 8.824)
        #expect(json["file"] as? String == "Études/op10-3.flac" && json["date"] as? Int == 1_795_928_470)
    }

    @Test func aRecordingChangeIsAnEvent() {
        #expect(WebEvents.frame(.recording) == "event: recording\ndata: {}\n\n")
    }
}
