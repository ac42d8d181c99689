/// Which release of Fermata this build is: `fermata --version`, `fermatad --version`, `fermata doctor` and the log's
/// start line name it; the release's git tag is `v` + `number`, and `docs/NEWS.md` has its notes (`ReleaseTests` hold
/// the three together). The MPD greeting is not this: it stays the MPD protocol version clients expect.
///
/// Between releases the number stays the last release's; a development build is told apart by its package version
/// (`deploy/make-deb.sh`: `1.0.0+git12.abcdef0`, from `git describe`).
public enum FermataVersion {
    /// The release number, semantic versioning: a new migration, configuration key or protocol command is a new minor
    /// release; a removed one, or a changed answer, a new major.
    public static let number = "1.0.0"

    /// The release's date (YYYY-MM-DD): the manual pages carry it, so they are the same whenever they are made.
    public static let date = "2026-11-29"

    /// "fermata 1.0.0", as the programs print it.
    public static var text: String { "fermata \(number)" }
}
