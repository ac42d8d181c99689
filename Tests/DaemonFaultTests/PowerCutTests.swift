import Foundation
import Testing
import TestSupport

/// Real power cuts (the kernel lab's `$KL_POWER_CUT`: the page cache is lost, nothing is unmounted), each a defect the
/// power-cut campaign (`Tests/Tools/powercut/campaign.sh`) found, reproduced by `Tests/Tools/powercut/repro.sh`: two
/// lab runs, the first acts and cuts the power, the second mounts the same disk and starts fermatad there.
@Suite(.serialized, .enabled("needs ../shared/kernel-lab (run-in-kernel.sh --check)") {
    try await onThread { KernelLab.available }
})
struct PowerCutTests {
    static let repro = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Tools/powercut/repro.sh").standardized.path
    static let campaign = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Tools/powercut/campaign.sh").standardized.path

    /// CI's slice of the campaign (`campaign.sh --cuts 100`, a script): three real power cuts at seeded instants
    /// while a client edits the queue and playlists, seeks, changes modes, loops and tempo; every check of every cut
    /// passes (database whole, queue and modes as acknowledged, position within 2.5 s, playlists whole, fermatad
    /// starts: within 120 s here, where the VM shares the host with the whole suite; the campaign's own claim is 30 s,
    /// and a CI-like run saw one start take 31.4 s). About 2 minutes.
    @Test func threeRealPowerCutsLoseNothingAcknowledged() async throws {
        let bin = URL(fileURLWithPath: FaultDaemon.binary).deletingLastPathComponent().path
        let work = try TemporaryDirectory(prefix: "fermata-powercut-ci")
        let run = await KernelLab.run(["/usr/bin/env", "START_LIMIT_S=120", Self.campaign, "--cuts", "3", "--seed", "11",
                                       "--bin", bin, "--work", work.file("campaign")])
        #expect(run.status == 0 && run.output.contains("cuts"), "\(run)")
    }

    /// `rm` of a stored playlist answered OK, then the power cut 1 s later: the playlist stays deleted. It came back
    /// when the deletion waited for ext4's next journal commit (the playlists folder was not synced).
    @Test func aDeletedPlaylistStaysDeletedAfterAPowerCut() async throws {
        let bin = URL(fileURLWithPath: FaultDaemon.binary).deletingLastPathComponent().path
        let run = await KernelLab.run([Self.repro, "playlist-rm", "--bin", bin])
        #expect(run.status == 0 && run.output.contains("PASS"), "\(run)")
    }

    @Test func aRenamedPlaylistKeepsItsNewNameAfterAPowerCut() async throws {
        let bin = URL(fileURLWithPath: FaultDaemon.binary).deletingLastPathComponent().path
        let run = await KernelLab.run([Self.repro, "playlist-rename", "--bin", bin])
        #expect(run.status == 0 && run.output.contains("PASS"), "\(run)")
    }

    /// `tempo 80` on track 1, `next` (the tempo carries on into track 2), a clean stop 3 s later: track 2 comes back at
    /// 80 %. The tempo was not in the saved player state, only in track 1's practice memory, so any restart lost it.
    @Test func aTempoCarriedIntoTheNextTrackSurvivesARestart() async throws {
        let bin = URL(fileURLWithPath: FaultDaemon.binary).deletingLastPathComponent().path
        let run = await KernelLab.run([Self.repro, "tempo-track", "--bin", bin])
        #expect(run.status == 0 && run.output.contains("PASS"), "\(run)")
    }

    /// The same tempo, and the power cut 1 s after its OK.
    @Test func aTempoSurvivesAPowerCut() async throws {
        let bin = URL(fileURLWithPath: FaultDaemon.binary).deletingLastPathComponent().path
        let run = await KernelLab.run([Self.repro, "tempo-cut", "--bin", bin, "--delay", "1"])
        #expect(run.status == 0 && run.output.contains("PASS"), "\(run)")
    }
}
