import FermataCore

/// Which track and source frame each ring position holds, from the marks the decoder pushed, back to the listener:
/// what a splice at the listener's position continues from. The decoder's copy; the output thread keeps its own
/// marks (`MarkList`) and maps positions with the same formula (`sourceFrame(at:)`).
///
/// Threads: the decoder thread only.
struct RingTimeline {
    /// Where a piece of a track begins in the ring.
    struct Anchor {
        var position: Int
        var sourceFrame: Int64
        var bytesPerFrame: Int
        /// Source frames per device frame (0 while the position holds: a count-in).
        var ratio: Double

        /// The source frame ring position `position` holds (at or after the anchor).
        func sourceFrame(at ringPosition: Int) -> Int64 {
            sourceFrame + Int64(Double((ringPosition - position) / max(1, bytesPerFrame)) * ratio)
        }
    }

    /// A track's piece of the ring.
    private struct Piece {
        var anchor: Anchor
        var item: PlayableItem
    }

    private var pieces: [Piece] = []

    var isEmpty: Bool { pieces.isEmpty }

    func contains(_ entry: EntryID) -> Bool { pieces.contains { $0.item.entryID == entry } }

    /// A piece of `item` beginning at `anchor` (replacing what the ring held from there); pieces wholly heard before
    /// `released` are dropped, the one being heard is kept.
    mutating func append(_ anchor: Anchor, item: PlayableItem, released: Int) {
        pieces.removeAll { $0.anchor.position >= anchor.position }
        pieces.append(Piece(anchor: anchor, item: item))
        while pieces.count > 1 && pieces[1].anchor.position <= released { pieces.removeFirst() }
    }

    mutating func removeAll() { pieces.removeAll() }

    /// The track at ring position `position`, the source frame there without rounding, and the source frames per
    /// device frame from there (0 while the position holds): what the click over the track places its beats by.
    func stretch(at position: Int) -> (item: PlayableItem, frame: Double, ratio: Double)? {
        guard let piece = pieces.last(where: { $0.anchor.position <= position }) else { return nil }
        let anchor = piece.anchor
        let frames = Double((position - anchor.position) / max(1, anchor.bytesPerFrame))
        return (piece.item, Double(anchor.sourceFrame) + frames * anchor.ratio, anchor.ratio)
    }

    /// The track and source frame at ring position `position`.
    func source(at position: Int) -> SourcePoint? {
        guard let piece = pieces.last(where: { $0.anchor.position <= position }) else { return nil }
        return SourcePoint(item: piece.item, frame: piece.anchor.sourceFrame(at: position))
    }
}
