import AudioCore
import Decoders
import FermataCore

/// The A–B loop seam (decoder thread only).
extension DecodeLoop {
    /// At B: reads the C frames after B and the C frames from A, writes their equal-power crossfade, and continues
    /// at A + C, so every pass is exactly B − A frames long. With C = 0 it is a plain sample-accurate jump.
    func loopSeam(_ region: LoopRegion) {
        guard var track = active, let device else { return }
        let format = track.format
        let wanted = format.frames(forMilliseconds: max(0, config.loopCrossfadeMilliseconds))
        let fade = min(wanted, crossfadeCapacity - 1, Int(region.length / 2))
        let needed = (Int(Double(fade) / converter.ratio) + stretchMargin) * device.bytesPerFrame
        guard shared.ring.freeBytes() >= needed else {
            shared.decoderBell.wait(nanoseconds: 5_000_000)
            return
        }
        if let plan = passCountIn, plan.beats > 0 {
            countInSeam(region, plan: plan)
            return
        }
        do throws(DecoderError) {
            if fade > 0 { readFully(track.decoder, into: tailBuffer, frames: fade, format: format) }
            try track.decoder.seek(toFrame: region.start)
            if fade > 0 { readFully(track.decoder, into: headBuffer, frames: fade, format: format) }
        } catch {
            events.yield(.trackFailed(track.item.entryID, error.description))
            trackFinished()
            return
        }
        trainAtSeam(passes: track.passes + 1)
        pushMark(.jump, item: track.item, sourceFrame: region.start, sourceRate: format.sampleRate)
        if fade > 0 {
            EqualPowerCrossfade.mix(outgoing: tailBuffer, incoming: headBuffer, into: mixBuffer, frames: fade,
                                    format: format)
            writeConverted(mixBuffer, frames: fade)
        }
        track.position = region.start + Int64(fade)
        track.passes += 1
        active = track
    }

    /// At B with a count-in before each pass: the pass ends exactly at B, the clicks follow, then A (no crossfade:
    /// the clicks are the break).
    private func countInSeam(_ region: LoopRegion, plan: CountInPlan) {
        guard var track = active else { return }
        do throws(DecoderError) {
            try track.decoder.seek(toFrame: region.start)
        } catch {
            events.yield(.trackFailed(track.item.entryID, error.description))
            trackFinished()
            return
        }
        converter.flush { shared.ring.write($0) }
        converter.reset()
        trainAtSeam(passes: track.passes + 1)
        track.position = region.start
        track.passes += 1
        active = track
        beginCountIn(plan, item: track.item, at: region.start, sourceRate: track.format.sampleRate)
    }

    /// The speed trainer's step: every `everyPasses` passes the tempo rises by `step`, up to the ceiling. The
    /// stretcher keeps its state, so the pass that follows is as seamless as any other.
    private func trainAtSeam(passes: Int) {
        guard let trainer, passes % trainer.everyPasses == 0, converter.tempo < trainer.ceiling else { return }
        let next = min(trainer.ceiling, converter.tempo + trainer.step)
        converter.setTempo(next, continuous: true)
        events.yield(.tempoChanged(next))
    }

    /// Reads exactly `frames` frames, padding with silence past the end of the stream or on a decode error.
    private func readFully(_ decoder: any AudioDecoder, into buffer: UnsafeMutableRawPointer, frames: Int,
                           format: AudioFormat) {
        var done = 0
        while done < frames {
            let target = UnsafeMutableRawBufferPointer(start: buffer + done * format.bytesPerFrame,
                                                       count: (frames - done) * format.bytesPerFrame)
            guard let n = try? decoder.read(into: target), n > 0 else { break }
            done += n
        }
        if done < frames {
            SampleMath.silence(buffer + done * format.bytesPerFrame, frames: frames - done, format: format)
        }
    }
}
