import FermataConfig
import FermataCore
import Foundation
import Testing

/// The configuration reference is generated from the table of keys the program reads: the committed
/// `docs/configuration.md` and `docs/man/fermata.toml.5` must be exactly what `fermata config reference` prints now,
/// so a key added, removed or re-documented without regenerating them fails here. Regenerate with
/// `swift run fermata config reference > docs/configuration.md` and
/// `swift run fermata config reference --man > docs/man/fermata.toml.5`.
@Suite struct ConfigReferenceTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs").standardized.path

    @Test func theCommittedPageIsWhatTheProgramPrints() throws {
        let committed = try String(contentsOfFile: Self.docs + "/configuration.md", encoding: .utf8)
        #expect(committed == ConfigReference.markdown(),
                "docs/configuration.md differs from `fermata config reference`: regenerate it")
    }

    @Test func theCommittedManualPageIsWhatTheProgramPrints() throws {
        let committed = try String(contentsOfFile: Self.docs + "/man/fermata.toml.5", encoding: .utf8)
        #expect(committed == ConfigReference.manual(date: FermataVersion.date, version: FermataVersion.number),
                "docs/man/fermata.toml.5 differs from `fermata config reference --man`: regenerate it")
    }

    /// Every key the daemon accepts is in the reference, with its default: a key of the table missing from the page
    /// would be a key nobody can find.
    @Test func everyKeyIsDocumentedWithItsDefault() {
        let page = ConfigReference.markdown()
        let defaults = DaemonConfig().effectiveValues()
        for row in defaults {
            let name = row.key.split(separator: ".", maxSplits: 1).last.map(String.init) ?? row.key
            #expect(page.contains("| `\(name)` | `\(row.value)` |"), "\(row.key) = \(row.value) is not in the reference")
        }
    }
}
