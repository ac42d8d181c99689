import Foundation
import Testing
import TestSupport

extension WebE2ETests {
    /// The API against its description: schemathesis (PyPI) with the committed openapi.yaml, on loopback.
    @Suite struct APISchema {
        /// 50 examples per operation (about 30 s on the 2-core machine), `X-Fermata-Request: 1` on every request;
        /// no 5xx (a documented 503 excepted), every answer's body as documented, every status documented. Each
        /// failure is its own expectation with the request that triggered it. Its report (JUnit and the text) is
        /// kept in `<temp>/fermata-schemathesis`.
        @Test(.enabled(if: WebPrograms.schemathesisPython != nil,
                       "needs schemathesis (pip install schemathesis; or FERMATA_SCHEMATHESIS_PYTHON=a python that has it)"))
        func theServerKeepsToOpenAPIYaml() async throws {
            let python = try #require(WebPrograms.schemathesisPython)
            let report = (NSTemporaryDirectory() as NSString).appendingPathComponent("fermata-schemathesis")
            try await WebDaemon.with { daemon in
                var settings = daemon.settings
                settings["openapi"] = WebPrograms.openAPI
                settings["max_examples"] = 50
                settings["seed"] = 1
                settings["report"] = report
                try await Scripts.run("schemathesis_run.py", settings, python: python)
            }
        }

        /// The same with another seed and four times the examples (about 1.5 minutes), for what 50 examples of seed 1
        /// did not reach.
        @Test(.enabled(if: WebPrograms.schemathesisPython != nil,
                       "needs schemathesis (pip install schemathesis; or FERMATA_SCHEMATHESIS_PYTHON=a python that has it)"))
        func anotherSeedAndMoreExamples() async throws {
            let python = try #require(WebPrograms.schemathesisPython)
            let report = (NSTemporaryDirectory() as NSString).appendingPathComponent("fermata-schemathesis-seed-7")
            try await WebDaemon.with { daemon in
                var settings = daemon.settings
                settings["openapi"] = WebPrograms.openAPI
                settings["max_examples"] = 200
                settings["seed"] = 7
                settings["report"] = report
                try await Scripts.run("schemathesis_run.py", settings, python: python)
            }
        }
    }
}
