/// A song predicate parsed from either MPD filter syntax: the 0.21 expressions (`"(artist == 'X')"`, `AND`, `!`,
/// `contains`, `starts_with`, `=~`) and the legacy `TAG VALUE` pairs of `find`/`search`.
///
/// A plain value; backends translate it (to SQL, say) or evaluate it with `SongFilterMatcher`.
public indirect enum SongFilter: Sendable, Hashable {
    /// All of these hold (an empty list holds for every song).
    case and([SongFilter])
    case not(SongFilter)
    /// A string test on a tag, on any tag, or on the URI.
    case string(FilterSubject, StringMatch)
    /// The song lies in this directory or below it (`base`).
    case base(String)
    /// The file changed at or after this Unix time (`modified-since`).
    case modifiedSince(Int64)
    /// The song entered the database at or after this Unix time (MPD 0.24's `added-since`).
    case addedSince(Int64)

    /// The conjunction of `filters`, flattened when there is just one.
    public static func all(_ filters: [SongFilter]) -> SongFilter { filters.count == 1 ? filters[0] : .and(filters) }
}

/// What a string test looks at.
public enum FilterSubject: Sendable, Hashable {
    case tag(TagType)
    /// Any tag value, or the URI (MPD's `any`).
    case anyTag
    /// The URI (MPD's `file`).
    case uri
}

/// A string comparison; `foldCase` compares case-insensitively (`search`, `playlistsearch`, `searchadd`).
public struct StringMatch: Sendable, Hashable {
    public enum Operator: String, Sendable, Hashable {
        case equals = "=="
        case contains = "contains"
        case startsWith = "starts_with"
        /// A regular expression (POSIX extended syntax with GNU and `\d` extensions: `FilterRegex`), matched anywhere
        /// in the value.
        case regex = "=~"
    }

    public var op: Operator
    public var value: String
    public var foldCase: Bool

    public init(_ op: Operator, _ value: String, foldCase: Bool = false) {
        self.op = op
        self.value = value
        self.foldCase = foldCase
    }
}

/// How to order database results (`sort TAG`, `sort -TAG`, `sort Last-Modified`, `sort Added`).
public struct SongSort: Sendable, Hashable {
    public enum Key: Sendable, Hashable {
        case tag(TagType)
        case lastModified
        /// When the song entered the database (MPD 0.24).
        case added
    }

    public var key: Key
    public var descending: Bool

    public init(_ key: Key, descending: Bool = false) {
        self.key = key
        self.descending = descending
    }

    /// MPD's queue order (`PrintSortedQueue`, `CompareTags`): tags compare as bytes (`strcmp`), Track and Disc by
    /// their leading number, a missing tag as ""; times as numbers, a missing one first. For a stable sort.
    public func ordered(_ a: SongInfo, _ b: SongInfo) -> Bool {
        let (x, y) = descending ? (b, a) : (a, b)
        switch key {
        case let .tag(type):
            let (p, q) = (x.first(type) ?? "", y.first(type) ?? "")
            if type == .track || type == .disc {
                return StickerComparison.integer(p) < StickerComparison.integer(q)
            }
            return p.utf8.lexicographicallyPrecedes(q.utf8)
        case .lastModified: return (x.lastModified ?? .min) < (y.lastModified ?? .min)
        case .added: return (x.added ?? .min) < (y.added ?? .min)
        }
    }
}

/// A database query: a filter, an optional order and an optional window (`window START:END`).
public struct SongQuery: Sendable, Hashable {
    public var filter: SongFilter
    public var sort: SongSort?
    public var window: PositionRange?

    public init(filter: SongFilter, sort: SongSort? = nil, window: PositionRange? = nil) {
        self.filter = filter
        self.sort = sort
        self.window = window
    }
}

/// What `list` lists: a tag's distinct values or the URIs.
public enum ListKey: Sendable, Hashable {
    case tag(TagType)
    case file
}

/// A `list TYPE [FILTER] [group TAG]...` request. `groups` are outermost first.
public struct TagListRequest: Sendable, Hashable {
    public var key: ListKey
    public var filter: SongFilter?
    public var groups: [TagType]

    public init(key: ListKey, filter: SongFilter? = nil, groups: [TagType] = []) {
        self.key = key
        self.filter = filter
        self.groups = groups
    }
}

/// One distinct value of a `list`, under its group values (aligned with `TagListRequest.groups`). Backends return
/// rows sorted by groups, then value; the printer emits a group line whenever a group value changes.
public struct TagListRow: Sendable, Hashable {
    public var groups: [String]
    public var value: String

    public init(groups: [String] = [], value: String) {
        self.groups = groups
        self.value = value
    }
}

/// One line group of `count`: songs and total whole seconds, per group value when grouped.
public struct CountRow: Sendable, Hashable {
    public var group: String?
    public var songs: Int
    public var playtime: Int64

    public init(group: String? = nil, songs: Int, playtime: Int64) {
        self.group = group
        self.songs = songs
        self.playtime = playtime
    }
}
