import AudioCore
import CGPIOShim
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The GPIO thread's poll loop.
extension InputReactor {
    /// Reads edges and timer expiries into the engine, yields the events and runs the jobs of the tasks that prefer
    /// this thread, until `release`. After `stop` it releases the lines and finishes the stream but keeps running
    /// jobs.
    func loop(sources: [any EdgeSource], engine: inout ControlEngine) {
        let timer = fgpio_timer_create()
        defer { _ = Glibc.close(timer) }
        // Poll slots: each source descriptor, then the timer, then the wake eventfd.
        let slots = sources.indices.flatMap { s in sources[s].descriptors.indices.map { (source: s, index: $0) } }
        var fds = sources.flatMap(\.descriptors).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        fds.append(pollfd(fd: timer, events: Int16(POLLIN), revents: 0))
        fds.append(pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0))
        let timerSlot = fds.count - 2
        var reading = true
        defer {
            if reading {
                for source in sources { source.close() }
                continuation.finish()
            }
        }
        var armed: UInt64 = 0
        var inputs: [SourceInput] = []
        var events: [ControlEvent] = []
        while true {
            var due = reading ? engine.deadline ?? 0 : 0
            for source in sources where reading {
                if let at = source.deadline, due == 0 || at < due { due = at }
            }
            if due != armed {
                _ = fgpio_timer_arm(timer, due)
                armed = due
            }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                logger.error("controls: poll failed: \(String(cString: strerror(errno))); physical controls stop")
                return
            }
            if fds[fds.count - 1].revents != 0 {
                fgpio_timer_clear(fds[fds.count - 1].fd)  // drains the eventfd's counter the same way
                let requests = requests()
                if requests.stop && reading {
                    reading = false
                    for source in sources { source.close() }
                    for i in slots.indices { fds[i].fd = -1 }
                    continuation.finish()
                }
                if requests.exit { return }
            }
            if reading {
                inputs.removeAll(keepingCapacity: true)
                let timerFired = fds[timerSlot].revents & Int16(POLLIN) != 0
                let now = timerFired ? MonotonicClock.nanoseconds() : 0
                if timerFired {
                    for source in sources { source.expire(now: now, into: &inputs) }
                }
                read(sources, slots: slots, fds: &fds, into: &inputs)
                for input in inputs { feed(input, to: &engine, into: &events) }
                if timerFired {
                    fgpio_timer_clear(timer)
                    armed = 0
                    events += engine.advance(to: now)
                }
                for event in events { continuation.yield(event) }
                events.removeAll(keepingCapacity: true)
            }
            runJobs()
        }
    }

    /// One edge or axis step into the engine (and the raw edge to the monitor when it asks for them).
    private func feed(_ input: SourceInput, to engine: inout ControlEngine, into events: inout [ControlEvent]) {
        switch input {
        case let .edge(edge):
            if reportEdges {
                events.append(.edge(line: keymap.lines[edge.line].ref.description, level: edge.level, at: edge.time))
            }
            events += engine.edge(line: edge.line, level: edge.level, at: edge.time)
        case let .steps(line, count, time):
            events += engine.steps(line: line, count, at: time)
        case let .card(id, input, time):
            events.append(.card(id, input: input, at: time))
        }
    }

    /// Reads what the readable sources have, merged in kernel-timestamp order (lines on different descriptors).
    private func read(_ sources: [any EdgeSource], slots: [(source: Int, index: Int)], fds: inout [pollfd],
                      into edges: inout [SourceInput]) {
        for (i, slot) in slots.enumerated() where fds[i].revents != 0 {
            do throws(EdgeSourceError) {
                guard fds[i].revents & Int16(POLLIN) != 0 else { throw EdgeSourceError(errno: EIO) }
                try sources[slot.source].read(slot.index, into: &edges)
            } catch {
                lost(sources[slot.source], errno: error.errno)
                fds[i].fd = -1
            }
        }
        if edges.count > 1 {
            edges = edges.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
                .map(\.element)
        }
    }

    private func lost(_ source: any EdgeSource, errno code: Int32) {
        let owners = ((source as? GPIORequestSource)?.lines ?? []).map { keymap.lines[$0].owner }
        let what = owners.isEmpty ? "an edge source" : owners.joined(separator: ", ")
        logger.warning("controls: lost \(what): \(String(cString: strerror(code))); those controls are off")
    }
}
