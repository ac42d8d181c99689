import ArgumentParser
import Daemon
import FermataConfig
import FermataCore
import Foundation
import MPDProtocol

/// `fermata doctor`: checks what Fermata needs on this board and prints each finding with the exact fix: the
/// configuration, whether fermatad answers, then the daemon module's `Doctor` (formats, audio, state, music, GPIO,
/// input devices). Exit status 0 when all is well, 4 when something needs fixing.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "doctor", abstract: "Check the installation.")
    @Option(help: "Configuration file.") var config = "/etc/fermata/fermata.toml"
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        var findings = [DoctorFinding(ok: true, what: FermataVersion.text)]
        var settings = DaemonConfig()
        do {
            settings = try DaemonConfig.load(file: config, required: false)
            // The places fermatad itself would use: run by a normal user with no file, that user's own.
            UserPlaces.applyForNormalUser(to: &settings)
            findings.append(DoctorFinding(ok: true, what: settings.file == nil
                ? "no configuration file at \(config): the built-in defaults are used"
                : "configuration \(config) is valid"))
        } catch {
            findings.append(DoctorFinding(ok: false, what: "configuration: \(error)", fix: "edit \(config) at that line"))
        }
        findings.append(daemonFinding())
        findings += Doctor(configPath: config, settings: settings).findings(scanIssues: scanIssues())
        for finding in findings {
            print((finding.ok ? "ok    " : "FIX   ") + finding.what)
            if let fix = finding.fix, !finding.ok { print("      → " + fix) }
        }
        if findings.contains(where: { !$0.ok }) { throw ExitCode(ExitStatus.problems) }
    }

    func daemonFinding() -> DoctorFinding {
        do {
            _ = try connection.connect().command("ping")
            return DoctorFinding(ok: true, what: "fermatad answers on its control socket")
        } catch {
            return DoctorFinding(ok: false, what: "fermatad does not answer: \(error)",
                                 fix: "sudo systemctl start fermata; then journalctl -u fermata -n 50 for the reason")
        }
    }

    /// What the library could not index (`scan_issues`), nil when fermatad does not answer.
    func scanIssues() -> [ScanIssueLine]? {
        guard let pairs = try? connection.connect().command("scan_issues") else { return nil }
        var issues: [ScanIssueLine] = []
        var path = "", kind = ""
        for (key, value) in pairs {
            if key == "file" { path = value }
            if key == "issue" { kind = value }
            if key == "reason" { issues.append(ScanIssueLine(path: path, kind: kind, reason: value)) }
        }
        return issues
    }
}
