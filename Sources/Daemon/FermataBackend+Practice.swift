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

    public func editSections(_ edit: SectionEdit) async throws -> [PracticeSection] {
        guard let practice else { throw MPDError(.unknown, "sections are not kept here") }
        do {
            return try await practice.editSections(edit)
        } catch let error as PracticeRecorder.SectionError {
            throw MPDError.badArgument(error.description)
        }
    }
}
