import COpusFile

/// Decodes mono and stereo Opus packets with a plain `OpusDecoder` for libopusfile, through its decode callback.
///
/// libopusfile decodes every stream with a multistream decoder; for the one-stream mono or stereo files nearly all
/// owners have, libopus 1.3's multistream path costs 2.3× the plain decoder's CPU (0.0061 against 0.0026 s per
/// audio second here, `Tests/Tools/lossy-bench.sh`), which put Fermata at 1.5× MPD's CPU for Opus. libopusfile
/// still reads the pages, trims, seeks and chains; this only decodes, with the link's output gain set on the decoder
/// as libopusfile sets it on its own. Streams with more channels or another channel mapping go back to libopusfile
/// (`OP_DEC_USE_DEFAULT`).
///
/// The decoder thread only, like the `OpusDecoder` that owns it: libopusfile calls back synchronously from inside
/// `op_read_float` and `op_pcm_seek` on the calling thread.
package final class OpusPacketDecoder {
    private var decoder: OpaquePointer?
    private var channels: Int32 = 0
    /// The link the decoder is set up for (-1: none yet).
    private var link: Int32 = -1
    /// The file, to read each link's header (set right after libopusfile opened it).
    package var file: OpaquePointer?

    package init() {}

    deinit {
        if let decoder { opus_decoder_destroy(decoder) }
    }

    /// Forgets the decoder's history: after a seek, as libopusfile resets its own.
    func reset() {
        if let decoder { _ = fm_opus_reset(decoder) }
    }

    /// The callback's work: 0 when `pcm` holds `samples` decoded frames, `OP_DEC_USE_DEFAULT` to let libopusfile
    /// decode, a negative libopus error otherwise.
    func decode(_ packet: UnsafePointer<ogg_packet>, into pcm: UnsafeMutableRawPointer, samples: Int32,
                channels wanted: Int32, format: Int32, link newLink: Int32) -> Int32 {
        guard format == OP_DEC_FORMAT_FLOAT, wanted <= 2, let file else { return OP_DEC_USE_DEFAULT }
        if newLink != link || decoder == nil {
            guard let head = op_head(file, newLink), head.pointee.mapping_family == 0,
                  head.pointee.channel_count == wanted else { return OP_DEC_USE_DEFAULT }
            if decoder == nil || channels != wanted {
                if let decoder { opus_decoder_destroy(decoder) }
                var error: Int32 = 0
                decoder = opus_decoder_create(48_000, wanted, &error)
                guard decoder != nil, error == OPUS_OK else { decoder = nil; return OP_DEC_USE_DEFAULT }
                channels = wanted
            } else {
                reset()
            }
            // libopusfile's default: the header's output gain, applied by the decoder.
            _ = fm_opus_set_gain(decoder, max(-32768, min(32767, head.pointee.output_gain)))
            link = newLink
        }
        guard let decoder else { return OP_DEC_USE_DEFAULT }
        let got = opus_decode_float(decoder, packet.pointee.packet, Int32(truncatingIfNeeded: packet.pointee.bytes),
                                    pcm.assumingMemoryBound(to: Float.self), samples, 0)
        if got < 0 { return got }
        return got == samples ? 0 : OPUS_INTERNAL_ERROR
    }
}

/// The C callback libopusfile calls for each packet; its context is the `OpusPacketDecoder`.
package let opusPacketCallback: op_decode_cb_func = { context, _, pcm, packet, samples, channels, format, link in
    guard let context, let pcm, let packet else { return OP_DEC_USE_DEFAULT }
    return Unmanaged<OpusPacketDecoder>.fromOpaque(context).takeUnretainedValue()
        .decode(packet, into: pcm, samples: samples, channels: channels, format: format, link: link)
}
