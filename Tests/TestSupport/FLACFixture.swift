import CFLAC
import Foundation

/// Writes FLAC files with libFLAC's stream encoder, for tests.
///
/// Stateless; callable from any thread (each call owns its encoder).
public enum FLACFixture {
    /// Why a fixture could not be written.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Encodes `samples` (interleaved, RIGHT-justified) to `path` at compression level 5, without verification.
    ///
    /// - tags: Vorbis comments (`KEY` → value), written in key order, in a VORBIS_COMMENT block.
    /// - rawComments: extra comment entries written byte for byte (e.g. with invalid UTF-8).
    /// - pictureBytes: when set, a PICTURE block (front cover, image/png) with that many data bytes.
    public static func write(
        path: String, samples: [Int32], channels: Int, bitsPerSample: Int, sampleRate: Int, blockSize: Int = 4096,
        tags: [String: String] = [:], rawComments: [[UInt8]] = [], pictureBytes: Int? = nil
    ) throws {
        precondition(channels > 0 && samples.count % channels == 0)
        guard let encoder = FLAC__stream_encoder_new() else { throw Failure(description: "encoder allocation") }
        defer { FLAC__stream_encoder_delete(encoder) }
        let frames = samples.count / channels
        var ok = FLAC__stream_encoder_set_verify(encoder, 0) != 0
        ok = ok && FLAC__stream_encoder_set_compression_level(encoder, 5) != 0
        ok = ok && FLAC__stream_encoder_set_channels(encoder, UInt32(channels)) != 0
        ok = ok && FLAC__stream_encoder_set_bits_per_sample(encoder, UInt32(bitsPerSample)) != 0
        ok = ok && FLAC__stream_encoder_set_sample_rate(encoder, UInt32(sampleRate)) != 0
        ok = ok && FLAC__stream_encoder_set_blocksize(encoder, UInt32(blockSize)) != 0
        ok = ok && FLAC__stream_encoder_set_total_samples_estimate(encoder, UInt64(frames)) != 0
        guard ok else { throw Failure(description: "encoder settings rejected") }

        var blocks: [UnsafeMutablePointer<FLAC__StreamMetadata>] = []
        defer { blocks.forEach { FLAC__metadata_object_delete($0) } }
        if !tags.isEmpty || !rawComments.isEmpty {
            blocks.append(try commentBlock(tags: tags, rawComments: rawComments))
        }
        if let pictureBytes { blocks.append(try pictureBlock(bytes: pictureBytes)) }
        let table = UnsafeMutablePointer<UnsafeMutablePointer<FLAC__StreamMetadata>?>
            .allocate(capacity: max(1, blocks.count))
        defer { table.deallocate() }
        for (index, block) in blocks.enumerated() { table[index] = block }
        if !blocks.isEmpty, FLAC__stream_encoder_set_metadata(encoder, table, UInt32(blocks.count)) == 0 {
            throw Failure(description: "metadata rejected")
        }

        let status = FLAC__stream_encoder_init_file(encoder, path, nil, nil)
        guard status == FLAC__STREAM_ENCODER_INIT_STATUS_OK else {
            throw Failure(description: "encoder init status \(status.rawValue) for \(path)")
        }
        let processed = samples.withUnsafeBufferPointer { buffer in
            FLAC__stream_encoder_process_interleaved(encoder, buffer.baseAddress, UInt32(frames))
        }
        let finished = FLAC__stream_encoder_finish(encoder)
        guard processed != 0, finished != 0 else {
            throw Failure(description: "encoding failed, state \(FLAC__stream_encoder_get_state(encoder).rawValue)")
        }
        if !rawComments.isEmpty { try patchRawComments(rawComments, in: path) }
    }

    /// libFLAC refuses comments that are not valid UTF-8, so a raw comment is written as a placeholder of the same
    /// length (each byte >= 0x80 replaced by `#`) and its real bytes are patched into the file afterwards.
    private static func placeholder(_ raw: [UInt8]) -> [UInt8] { raw.map { $0 >= 0x80 ? UInt8(ascii: "#") : $0 } }

    private static func patchRawComments(_ rawComments: [[UInt8]], in path: String) throws {
        let url = URL(fileURLWithPath: path)
        var bytes = [UInt8](try Data(contentsOf: url))
        for raw in rawComments {
            let marker = placeholder(raw)
            guard let start = (0...(bytes.count - marker.count)).first(where: {
                bytes[$0..<$0 + marker.count].elementsEqual(marker)
            }) else { throw Failure(description: "raw comment placeholder not found") }
            bytes.replaceSubrange(start..<start + marker.count, with: raw)
        }
        try Data(bytes).write(to: url)
    }

    private static func commentBlock(
        tags: [String: String], rawComments: [[UInt8]]
    ) throws -> UnsafeMutablePointer<FLAC__StreamMetadata> {
        guard let block = FLAC__metadata_object_new(FLAC__METADATA_TYPE_VORBIS_COMMENT) else {
            throw Failure(description: "comment block allocation")
        }
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) {
            var entry = FLAC__StreamMetadata_VorbisComment_Entry()
            guard FLAC__metadata_object_vorbiscomment_entry_from_name_value_pair(&entry, key, value) != 0,
                  FLAC__metadata_object_vorbiscomment_append_comment(block, entry, 0) != 0 else {
                FLAC__metadata_object_delete(block)
                throw Failure(description: "bad comment \(key)=\(value)")
            }
        }
        for raw in rawComments {
            var entry = FLAC__StreamMetadata_VorbisComment_Entry()
            let text = String(decoding: placeholder(raw), as: UTF8.self)
            guard let equals = text.firstIndex(of: "="),
                  FLAC__metadata_object_vorbiscomment_entry_from_name_value_pair(
                      &entry, String(text[..<equals]), String(text[text.index(after: equals)...])) != 0,
                  FLAC__metadata_object_vorbiscomment_append_comment(block, entry, 0) != 0 else {
                FLAC__metadata_object_delete(block)
                throw Failure(description: "raw comment rejected")
            }
        }
        return block
    }

    private static func pictureBlock(bytes: Int) throws -> UnsafeMutablePointer<FLAC__StreamMetadata> {
        guard let block = FLAC__metadata_object_new(FLAC__METADATA_TYPE_PICTURE) else {
            throw Failure(description: "picture block allocation")
        }
        var description = Array("front cover".utf8) + [0]
        var data = (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var mime = Array("image/png".utf8CString)
        block.pointee.data.picture.type = FLAC__STREAM_METADATA_PICTURE_TYPE_FRONT_COVER
        let ok = FLAC__metadata_object_picture_set_mime_type(block, &mime, 1) != 0
            && description.withUnsafeMutableBufferPointer { buffer in
                FLAC__metadata_object_picture_set_description(block, buffer.baseAddress, 1) != 0
            }
            && data.withUnsafeMutableBufferPointer { buffer in
                FLAC__metadata_object_picture_set_data(block, buffer.baseAddress, UInt32(buffer.count), 1) != 0
            }
        guard ok else {
            FLAC__metadata_object_delete(block)
            throw Failure(description: "picture block rejected")
        }
        return block
    }
}
