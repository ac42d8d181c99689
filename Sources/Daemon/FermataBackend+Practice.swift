import FermataCore
import MPDProtocol
import Practice

/// Practice statistics for the `practice` command, from the recorder (which writes what it counted first).
/// Same contract as `FermataBackend`: callable from any task.
extension FermataBackend {
    public func practiceReport(_ period: PracticePeriod) async throws -> PracticeReport {
        guard let practice else { throw MPDError(.unknown, "practice statistics are not kept here") }
        do {
            return try await practice.report(period)
        } catch let error as PracticeRecorder.NoSuchDay {
            throw MPDError.badArgument(error.description)
        }
    }

    /// The sections of the track at `uri` (its practice memory).
    public func sections(of uri: String) async throws -> [PracticeSection] {
        guard let practice else { throw MPDError(.unknown, "sections are not kept here") }
        return try await practice.sections(path: uri)
    }

    /// A stored playlist's part as it plays now: a section it names as the track's practice memory has it today (edited
    /// since the playlist was saved: as edited), else as the playlist wrote it (the section deleted, or no memory).
    func currentSpan(_ line: PlaylistLine) async -> PlaySpan? {
        guard let span = line.span, let name = span.section, practice != nil,
              let section = try? await sections(of: line.uri).first(where: { $0.name == name }) else { return line.span }
        return PlaySpan(section: section)
    }

    public func editSections(_ edit: SectionEdit) async throws -> [PracticeSection] {
        guard let practice else { throw MPDError(.unknown, "sections are not kept here") }
        do {
            return try await practice.editSections(edit)
        } catch let error as PracticeRecorder.SectionError {
            throw MPDError.badArgument(error.description)
        }
    }
}
