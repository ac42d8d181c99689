import AudioCore
import Recording

extension Doctor {
    /// The capture device of `record.device` (nil when recording is off): it opens, and at which of the common rates
    /// (a take is captured at the output's rate, so the device must offer it).
    func recordFinding(_ device: String) -> DoctorFinding? {
        guard !device.isEmpty else { return nil }
        let fix = "list capture devices with `arecord -L`; set record.device in \(configPath) to a plughw:CARD=NAME,DEV=0 "
            + "(empty: recording off)"
        var offered: [Int] = []
        var refusal: String?
        for rate in [44_100, 48_000, 88_200, 96_000] {
            let capture = CaptureDevice(name: device)
            do {
                try capture.open(AudioFormat(sampleRate: rate, channels: 2, encoding: .s16))
                offered.append(rate)
            } catch {
                if error.description.lowercased().contains("busy") {
                    return DoctorFinding(ok: true, what: "capture device \(device): in use (by fermatad's recording, normally)")
                }
                if refusal == nil { refusal = error.description }
            }
            capture.close()
        }
        guard !offered.isEmpty else {
            return DoctorFinding(ok: false, what: "capture device \(device): \(refusal ?? "it does not capture")", fix: fix)
        }
        let rates = offered.map { "\($0) Hz" }.joined(separator: ", ")
        return DoctorFinding(ok: true, what: "capture device \(device): captures at \(rates)"
                             + (offered.count < 2 ? " (the output must play at this rate for recording: audio.format)" : ""))
    }
}
