import AudioCore
import Controls
import Foundation

/// The lines a benchmark drives: gpio-sim lines 0..<N through sysfs (`--sim`, inside the kernel lab), or edge records
/// written into a pipe (`--pipe`). `set` may be called from any one thread at a time.
final class BenchRig: Sendable {
    let sim: Bool
    private let label: String
    private let sysfs: String
    private let pipeRead: Int32
    private let pipeWrite: Int32

    init(sim: Bool, lines: Int) throws {
        self.sim = sim
        let env = ProcessInfo.processInfo.environment
        if sim {
            guard let label = env["GPIO_SIM_LABEL"], let sysfs = env["GPIO_SIM_SYSFS"],
                  Int(env["GPIO_SIM_LINES"] ?? "") ?? 0 >= lines else {
                throw BenchError(description: "--sim runs inside ../shared/kernel-lab (needs $GPIO_SIM_SYSFS and "
                    + "\(lines) lines)")
            }
            self.label = label
            self.sysfs = sysfs
            (pipeRead, pipeWrite) = (-1, -1)
        } else {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw BenchError(description: "pipe: \(errno)") }
            (label, sysfs) = ("pipe", "")
            (pipeRead, pipeWrite) = (fds[0], fds[1])
        }
    }

    deinit {
        if pipeWrite >= 0 { close(pipeWrite) }
    }

    /// Line `index` of the rig, addressed by chip label and offset.
    func line(_ index: Int) -> LineRef { .chip(label, offset: UInt32(index)) }

    func input(userDebounce: Bool) -> ControlsInput {
        sim ? .gpio : .records(fd: pipeRead, userDebounce: userDebounce)
    }

    /// Presses (pulls to ground: the lines are active-low with pull-ups) or releases line `index`.
    func set(_ index: Int, pressed: Bool) {
        if sim {
            let fd = open("\(sysfs)/sim_gpio\(index)/pull", O_WRONLY)
            let text = pressed ? "pull-down" : "pull-up"
            _ = text.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        } else {
            let bytes = PipeEdgeSource.record(RawEdge(line: index, level: pressed, time: MonotonicClock.nanoseconds()))
            _ = bytes.withUnsafeBytes { write(pipeWrite, $0.baseAddress, $0.count) }
        }
    }
}
