import FermataCore

/// The defaults for backends that keep no practice statistics or sections (test doubles, other front ends): `practice`
/// answers `ACK [5@0] {practice} practice statistics are not kept here`.
extension MPDBackend {
    public func practiceReport(_ period: PracticePeriod) async throws -> PracticeReport {
        throw MPDError(.unknown, "practice statistics are not kept here")
    }

    public func editSections(_ edit: SectionEdit) async throws -> [PracticeSection] {
        throw MPDError(.unknown, "sections are not kept here")
    }

    public func sections(of uri: String) async throws -> [PracticeSection] {
        throw MPDError(.unknown, "sections are not kept here")
    }
}
