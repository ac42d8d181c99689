import AudioCore
import Glibc
import Testing

@Suite struct SampleMathTests {
    @Test func crossfadeKeepsPowerConstant() {
        for n in [1, 7, 220, 441] {
            for i in 0..<n {
                let power = pow(EqualPowerCrossfade.fadeIn(i, of: n), 2) + pow(EqualPowerCrossfade.fadeOut(i, of: n), 2)
                #expect(abs(power - 1) < 1e-12)
            }
        }
        #expect(EqualPowerCrossfade.fadeIn(0, of: 100) < 0.02)
        #expect(EqualPowerCrossfade.fadeOut(99, of: 100) < 0.02)
    }

    @Test func volumeCurveIsUnityAtFullAndMonotonic() {
        #expect(VolumeCurve.gain(forVolume: 100) == 1)
        #expect(VolumeCurve.gain(forVolume: 0) == 0)
        let gains = (0...100).map(VolumeCurve.gain(forVolume:))
        #expect(zip(gains, gains.dropFirst()).allSatisfy { $0 < $1 })
        #expect(abs(VolumeCurve.gain(forVolume: 90) - pow(10, -6.0 / 20)) < 1e-12)
    }

    @Test func replayGainNeverClipsTheTaggedPeak() {
        #expect(abs(ReplayGainMath.linearGain(gainDB: -6, peak: 0.5) - pow(10, -6.0 / 20)) < 1e-12)
        #expect(ReplayGainMath.linearGain(gainDB: 12, peak: 0.8) == 1 / 0.8)
    }

    @Test func gainRampsLinearlyAndClamps() {
        var samples: [Int16] = [10_000, 10_000, 10_000, 10_000, 32_000, 32_000]
        let format = AudioFormat(sampleRate: 44_100, channels: 2, encoding: .s16)
        samples.withUnsafeMutableBytes { SampleMath.applyGain($0.baseAddress!, frames: 3, format: format, from: 1, to: 0.4) }
        #expect(samples == [10_000, 10_000, 8_000, 8_000, 19_200, 19_200])
        var loud: [Int16] = [30_000, -30_000]
        let mono = AudioFormat(sampleRate: 44_100, channels: 1, encoding: .s16)
        loud.withUnsafeMutableBytes { SampleMath.applyGain($0.baseAddress!, frames: 2, format: mono, from: 2, to: 2) }
        #expect(loud == [32_767, -32_768])
    }

    @Test func formatSpecsParse() {
        #expect(AudioFormat(spec: "48000:s24:2") == AudioFormat(sampleRate: 48_000, channels: 2, encoding: .s32, validBits: 24))
        #expect(AudioFormat(spec: "44100:s16:2")?.bytesPerFrame == 4)
        #expect(AudioFormat(spec: "44100:s12:2") == nil)
        #expect(AudioFormat(spec: "0:s16:2") == nil)
    }
}
