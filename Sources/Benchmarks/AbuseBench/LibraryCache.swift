import Foundation
import TestSupport

/// The generated library (`gen-library.py`), made once per size and seed under /tmp/fermata-abuse-bench and reused
/// by later runs: generated into a `.partial` directory, renamed when complete.
struct LibraryCache {
    let tracks: Int
    let seed: Int
    let generator: String

    var directory: String { "/tmp/fermata-abuse-bench/lib-\(tracks)-seed\(seed)" }

    /// The library's directory and its tracks' URIs in the generator's order, generating it first if needed.
    func prepare(progress: (String) -> Void) throws -> (directory: String, uris: [String]) {
        let manifest = directory + "/manifest.tsv"
        if !FileManager.default.fileExists(atPath: manifest) {
            progress("generating \(tracks) tracks (seed \(seed)) in \(directory)")
            let partial = directory + ".partial"
            try FileManager.default.createDirectory(atPath: "/tmp/fermata-abuse-bench", withIntermediateDirectories: true)
            let generate = Process()
            generate.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            generate.arguments = [generator, "--out", partial, "--tracks", "\(tracks)", "--seed", "\(seed)", "--force"]
            generate.standardOutput = FileHandle.nullDevice
            try generate.run()
            generate.reap()
            guard generate.reapedTerminationStatus == 0 else {
                throw UsageError("gen-library.py failed (status \(generate.reapedTerminationStatus)); it needs sox, flac and vorbis-tools")
            }
            try? FileManager.default.removeItem(atPath: directory)
            try FileManager.default.moveItem(atPath: partial, toPath: directory)
        }
        let uris = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n")
            .compactMap { $0.split(separator: "\t").first.map(String.init) }
        guard uris.count == tracks else { throw UsageError("\(manifest): \(uris.count) tracks, expected \(tracks)") }
        return (directory, uris)
    }
}
