import FermataConfig
import FermataCore
import Foundation
import Testing
import TestSupport

/// `[cards]`, the `[card-ID]` sections and the volume limits of `[audio]`: read with their values, refused with the
/// file, line and key when wrong.
@Suite struct CardsConfigTests {
    func load(_ text: String) throws -> DaemonConfig {
        let dir = try TemporaryDirectory()
        let path = dir.file("fermata.toml")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try DaemonConfig.load(file: path, required: true)
    }

    func problem(_ text: String) -> String? {
        do { _ = try load(text); return nil } catch let error as ConfigError { return error.description } catch {
            return "\(error)"
        }
    }

    @Test func cardsAndVolumeLimitsAreRead() throws {
        let config = try load("""
            [audio]
            volume_max = 80
            volume_start = 30

            [cards]
            again = "restart"

            [card-0001234567]
            play = "playlist:Lullabies"
            volume_max = 40

            [card-04a1b2]
            play = "action:next"

            [card-77]
            play = "piece:Etudes/No 3.flac"
            tempo = 80
            loop = "12.5-20"
            """)
        #expect(config.volumeMax == 80)
        #expect(config.volumeStart == 30)
        #expect(config.cards.again == .restart)
        #expect(config.cards.bindings.map(\.id) == ["0001234567", "04A1B2", "77"], "ids upper-cased as readers type hex")
        #expect(config.cards.bindings.map(\.target) == [.playlist("Lullabies"), .action("next"), .piece("Etudes/No 3.flac")])
        #expect(config.cards.bindings.map(\.volumeMax) == [40, nil, nil])
        #expect(config.cards.bindings[2].tempoPercent == 80 && config.cards.bindings[2].loop?.start == 12.5
            && config.cards.bindings[2].loop?.end == 20)
        #expect(config.cards.bindings[0].origin.hasSuffix("fermata.toml:9"))
        let defaults = try load("")
        #expect(defaults.volumeMax == 100 && defaults.volumeStart == -1 && defaults.cards == CardsConfig())
    }

    @Test(arguments: [
        ("[card-12]\nvolume_max = 10\n", "card-12.play: missing"),
        ("[card-12]\nplay = \"radio:x\"\n", "card-12.play: expected \"playlist:NAME\""),
        ("[card-12]\nplay = \"playlist:\"\n", "card-12.play: expected"),
        ("[card-12]\nplay = \"album:A\"\nvolume_max = 101\n", "card-12.volume_max: must be a whole number from 0 to 100"),
        ("[card-12]\nplay = \"album:A\"\ncolour = 1\n", "card-12.colour: unknown key"),
        ("[card-XYZ]\nplay = \"album:A\"\n", "a card id is 1 to 32 digits or letters A-F"),
        ("[card-ab]\nplay = \"album:A\"\n[card-AB]\nplay = \"album:B\"\n", "card AB is bound twice"),
        ("[cards]\nagain = \"louder\"\n", "cards.again: must be one of pause, restart, ignore"),
        ("[cards]\n12 = \"album:A\"\n", "cards.12: unknown key"),
        ("[audio]\nvolume_max = 150\n", "audio.volume_max"),
        ("[card-1]\nplay = \"piece:a.flac\"\ntempo = 40\n", "card-1.tempo: must be a whole number from 50 to 150"),
        ("[card-1]\nplay = \"piece:a.flac\"\nloop = \"20-12\"\n", "card-1.loop: expected \"A-B\""),
        ("[card-1]\nplay = \"album:A\"\ntempo = 80\n", "tempo and loop belong to a practice piece"),
        ("[audio]\nvolume_start = -2\n", "audio.volume_start"),
    ])
    func wrongCardsAreRefusedSayingWhere(text: String, expected: String) {
        let message = problem(text)
        #expect(message?.contains(expected) == true, "\(message ?? "accepted")")
    }

    @Test func targetsRoundTripAndRefuseControlCharacters() {
        for text in ["playlist:A b", "album:Abbey Road", "folder:Kids/Stories", "action:volume+5"] {
            #expect(CardTarget(parsing: text)?.description == text)
        }
        #expect(CardTarget(parsing: "folder:a\nb") == nil)
        #expect(CardTarget(parsing: "nothing") == nil)
        #expect(CardBinding.normalized("00ff") == "00FF")
        #expect(CardBinding.normalized("") == nil)
        #expect(CardBinding.normalized("12 34") == nil)
    }
}
