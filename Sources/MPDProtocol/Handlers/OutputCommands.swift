/// Handlers for audio outputs: `outputs`, `enableoutput`, `disableoutput`, `toggleoutput`.
///
/// Stateless; run on the executing command's task.
enum OutputCommands {
    static func outputs(_ c: inout CommandContext) async throws {
        for output in try await c.backend.outputs() { c.response.output(output) }
    }

    static func enable(_ c: inout CommandContext) async throws {
        try await c.backend.setOutput(try c.unsigned(0), enabled: true)
    }
    static func disable(_ c: inout CommandContext) async throws {
        try await c.backend.setOutput(try c.unsigned(0), enabled: false)
    }
    static func toggle(_ c: inout CommandContext) async throws {
        try await c.backend.setOutput(try c.unsigned(0), enabled: nil)
    }
}
