/// An input device the controls take (`[input-NAME]`): which `/dev/input/event*` nodes are it — by the name the
/// device gives (EVIOCGNAME), by USB/Bluetooth vendor:product (EVIOCGID), or by physical path (EVIOCGPHYS) — and
/// whether to grab it so its keys reach nobody else (no console, no login prompt). A value; any thread.
public struct InputDeviceConfig: Sendable, Hashable {
    /// How the device is recognised.
    public enum Match: Sendable, Hashable, CustomStringConvertible {
        case name(String)
        case id(vendor: UInt16, product: UInt16)
        case phys(String)

        /// `"VVVV:PPPP"` in hexadecimal, as lsusb prints it.
        public static func id(parsing text: String) -> Match? {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ (1...4).contains($0.count) }),
                  let vendor = UInt16(parts[0], radix: 16), let product = UInt16(parts[1], radix: 16) else {
                return nil
            }
            return .id(vendor: vendor, product: product)
        }

        public var description: String {
            switch self {
            case let .name(name): "name \"\(name)\""
            case let .id(vendor, product): "id \(EvdevDeviceInfo.hex(vendor)):\(EvdevDeviceInfo.hex(product))"
            case let .phys(phys): "phys \"\(phys)\""
            }
        }
    }

    public var name: String
    public var match: Match
    /// EVIOCGRAB the device (default): its events reach Fermata alone.
    public var grab = true
    /// A card reader (`cards = true`): what it types, digits then Enter, is a card id (`CardReaderDecoder`), not keys.
    public var cards = false

    public init(name: String, match: Match, grab: Bool = true, cards: Bool = false) {
        self.name = name
        self.match = match
        self.grab = grab
        self.cards = cards
    }

    /// Whether a device node that describes itself as `info` is this device. A USB reader that registers as a
    /// keyboard and a mouse has two nodes with the same name and ids: both match, and each is opened once.
    public func matches(_ info: EvdevDeviceInfo) -> Bool {
        switch match {
        case let .name(name): info.name == name
        case let .id(vendor, product): info.vendor == vendor && info.product == product
        case let .phys(phys): info.phys == phys
        }
    }
}

/// What an event device node says about itself. A value; any thread.
public struct EvdevDeviceInfo: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var phys: String
    public var vendor: UInt16
    public var product: UInt16

    public init(name: String, phys: String, vendor: UInt16, product: UInt16) {
        self.name = name
        self.phys = phys
        self.vendor = vendor
        self.product = product
    }

    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// `"FootSwitch" 3553:b001 usb-0000:00:14.0-1/input0`.
    public var description: String {
        "\"\(name)\" \(Self.hex(vendor)):\(Self.hex(product))" + (phys.isEmpty ? "" : " \(phys)")
    }
}
