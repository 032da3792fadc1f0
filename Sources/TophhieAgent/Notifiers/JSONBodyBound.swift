import TophhieJSON

/// Keeps a webhook body under a byte limit by cutting what is largest first: the longest
/// string to half its length (never below 64 bytes, ending in `…`), and when no string is long,
/// the longest list to half its elements. A cut body says so (`truncated: true` beside `data`).
/// Alerts carry attacker-chosen text (device and app names) and may carry thousands of events.
enum JSONBodyBound {
    /// The generic preset's limit: under what common receivers (AWS SNS 256 KB, API gateways,
    /// chat relays) take, with room for the Standard Webhooks headers.
    static let genericLimit = 64 * 1024

    /// `body` cut to at most `limit` bytes as the canonical writer writes it.
    /// - Complexity: a write of the body per cut; a cut at least halves the longest string or list.
    static func bounded(_ body: JSONValue, limit: Int) -> JSONValue {
        var value = body
        var cut = false
        while value.canonicalBytes().count > limit {
            guard let next = cutLargest(value) else { break }
            value = next
            cut = true
        }
        if cut, case .object(var members) = value {
            members["truncated"] = .bool(true)
            value = .object(members)
        }
        return value
    }

    /// The body with its longest string halved, or else its longest list; nil when nothing is left to cut.
    static func cutLargest(_ value: JSONValue) -> JSONValue? {
        let longestString = longest(value, strings: true)
        if longestString > 64 { return cutting(value, strings: true, length: longestString) }
        let longestList = longest(value, strings: false)
        if longestList > 1 { return cutting(value, strings: false, length: longestList) }
        return nil
    }

    /// The longest string's UTF-8 length, or the longest list's count.
    static func longest(_ value: JSONValue, strings: Bool) -> Int {
        switch value {
        case .string(let text): return strings ? text.utf8.count : 0
        case .array(let items): return items.reduce(strings ? 0 : items.count) { max($0, longest($1, strings: strings)) }
        case .object(let members): return members.values.reduce(0) { max($0, longest($1, strings: strings)) }
        default: return 0
        }
    }

    /// The first string (or list) of `length` found, halved.
    static func cutting(_ value: JSONValue, strings: Bool, length: Int) -> JSONValue {
        var done = false
        func walk(_ value: JSONValue) -> JSONValue {
            if done { return value }
            switch value {
            case .string(let text) where strings && text.utf8.count == length:
                done = true
                return .string(WebhookPreset.truncate(text, max(64, length / 2), .utf8))
            case .array(let items):
                if !strings && items.count == length {
                    done = true
                    return .array(Array(items.prefix(max(1, length / 2))))
                }
                return .array(items.map(walk))
            case .object(let members):
                var out: [String: JSONValue] = [:]
                for key in members.keys.sorted() { out[key] = walk(members[key]!) }
                return .object(out)
            default:
                return value
            }
        }
        return walk(value)
    }
}
