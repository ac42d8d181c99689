import CCrypt
import Glibc

/// Password and token hashing through libxcrypt, the library Debian hashes login passwords with: yescrypt (`$y$`,
/// memory-hard, its default cost) for the web remote's passwords, sha256crypt (`$5$`, 1,000 rounds, about a
/// millisecond on a Pi) for session tokens, which are long random strings that need no slow hash. Nothing is kept in
/// clear: the state database holds the hashes only.
///
/// Stateless; any thread (each call has its own `crypt_data`; it blocks for the hash's cost: call it off event loops).
public enum PasswordHash {
    /// A yescrypt hash of `password` with a fresh random salt; nil when the library cannot make one.
    public static func yescrypt(_ password: String) -> String? { hash(password, prefix: "$y$", count: 0) }

    /// A sha256crypt hash of `token` with a fresh random salt (1,000 rounds, the least the method allows).
    public static func token(_ token: String) -> String? { hash(token, prefix: "$5$", count: 1000) }

    /// Whether `password` hashes to `stored` (any method libxcrypt knows), compared in constant time.
    public static func verify(_ password: String, against stored: String) -> Bool {
        guard let computed = crypt(password, setting: stored) else { return false }
        let a = Array(computed.utf8), b = Array(stored.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    private static func hash(_ phrase: String, prefix: String, count: UInt) -> String? {
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        // No random bytes given: libxcrypt takes them from the kernel (getrandom).
        guard crypt_gensalt_rn(prefix, count, nil, 0, &setting, Int32(setting.count)) != nil else { return nil }
        return crypt(phrase, setting: String(decoding: setting.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    private static func crypt(_ phrase: String, setting: String) -> String? {
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer {
            memset(data, 0, MemoryLayout<crypt_data>.size)  // the phrase passed through it
            data.deallocate()
        }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        guard let result = crypt_r(phrase, setting, data) else { return nil }
        let text = String(cString: result)
        // libxcrypt returns a string starting with "*" on failure (an unknown method, a malformed setting).
        return text.hasPrefix("*") ? nil : text
    }
}
