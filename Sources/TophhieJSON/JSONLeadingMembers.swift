import Foundation

/// Reads some string members of a JSON object from its start, only until each is found: Graph
/// writes a sign-in's `id` and `createdDateTime` first, so finding a record's identity costs
/// those two members and not the rest of it. Nothing past the last name found is read or checked.
public enum JSONLeadingMembers {
    /// The values of the string members `names` (nil for one not met, or not a string; read
    /// strictly: escapes decoded, UTF-8 checked, raw control bytes refused).
    /// - Complexity: O(k) for the k bytes before the last name found.
    public static func strings(_ bytes: UnsafeRawBufferPointer, named names: [String]) -> [String?] {
        values(bytes, keys: names.map { Array($0.utf8) }).map { range in
            range.flatMap { string(UnsafeRawBufferPointer(rebasing: bytes[$0])) }
        }
    }

    /// Where the values of the members named `keys` are (the first of each), undecoded.
    private static func values(_ bytes: UnsafeRawBufferPointer, keys: [[UInt8]]) -> [Range<Int>?] {
        var found = [Range<Int>?](repeating: nil, count: keys.count)
        var remaining = keys.count
        let count = bytes.count
        func skipSpace(_ i: Int) -> Int { JSONLeadingMembers.skipSpace(bytes, from: i) }
        var index = skipSpace(0)
        guard index < count, bytes[index] == UInt8(ascii: "{") else { return found }
        index = skipSpace(index + 1)
        while remaining > 0, index < count, bytes[index] == UInt8(ascii: "\"") {
            guard let keyEnd = JSONStringScan.end(in: bytes, contentsFrom: index + 1) else { break }
            let key = UnsafeRawBufferPointer(rebasing: bytes[(index + 1)..<(keyEnd - 1)])
            index = skipSpace(keyEnd)
            guard index < count, bytes[index] == UInt8(ascii: ":") else { break }
            index = skipSpace(index + 1)
            guard let valueEnd = end(ofValueIn: bytes, at: index) else { break }
            if let slot = keys.firstIndex(where: { same($0, key) }), found[slot] == nil {
                found[slot] = index..<valueEnd
                remaining -= 1
            }
            index = skipSpace(valueEnd)
            guard index < count, bytes[index] == UInt8(ascii: ",") else { break }
            index = skipSpace(index + 1)
        }
        return found
    }

    /// The index of the first byte at or after `from` that is not JSON whitespace.
    @inline(__always) private static func skipSpace(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int {
        var i = from
        while i < bytes.count, bytes[i] <= 0x20, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        return i
    }

    /// Whether a key's bytes are these: compared by length, then as memory (a generic
    /// `elementsEqual` was two thirds of finding a record's time in a replay's first pass).
    @inline(__always) private static func same(_ key: [UInt8], _ bytes: UnsafeRawBufferPointer) -> Bool {
        key.count == bytes.count && key.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, key.count) == 0 }
    }

    /// A Graph record's `id` and `createdDateTime`, read up to them and no further; nil when they
    /// are not the strings they should be (or the id is empty) before anything stops the reading.
    public static func idAndTime(_ bytes: UnsafeRawBufferPointer) -> (id: String, time: Date)? {
        let members = values(bytes, keys: identityKeys)
        guard let idRange = members[0], let id = string(UnsafeRawBufferPointer(rebasing: bytes[idRange])), !id.isEmpty,
              let timeRange = members[1], let time = timeValue(UnsafeRawBufferPointer(rebasing: bytes[timeRange])) else { return nil }
        return (id, time)
    }

    /// `idAndTime(bytes)?.time`, without making the id a String or the time text one: a plain
    /// ASCII id is only checked, a plain time read from the bytes (anything else goes the way
    /// `idAndTime` goes, so the two agree on every record).
    public static func time(_ bytes: UnsafeRawBufferPointer) -> Date? {
        let usual = usualTime(bytes)
        if usual.shaped { return usual.time }
        let members = values(bytes, keys: identityKeys)
        guard let idRange = members[0], let timeRange = members[1] else { return nil }
        let id = UnsafeRawBufferPointer(rebasing: bytes[idRange])
        // Non-empty plain ASCII is a valid id as it lies; anything else is decoded to be sure.
        let plainASCII = plainContents(id).map { !$0.isEmpty && JSONStringScan.isASCII($0) } ?? false
        guard plainASCII || string(id)?.isEmpty == false else { return nil }
        return timeValue(UnsafeRawBufferPointer(rebasing: bytes[timeRange]))
    }

    private static let identityKeys = [Array("id".utf8), Array("createdDateTime".utf8)]

    /// `time` for the record Graph writes, `{"id":"<plain ASCII>","createdDateTime":"<plain>"`
    /// (whitespace where JSON allows it), read straight through: `shaped` is false for any other
    /// start, which `time` then reads the general way. Where it is true, the general way finds
    /// the same two values and reads the time the same way (a first pass spent most of its time
    /// per record looking its names up in a table).
    private static func usualTime(_ bytes: UnsafeRawBufferPointer) -> (shaped: Bool, time: Date?) {
        let count = bytes.count
        var i = 0
        func skipSpace() { i = JSONLeadingMembers.skipSpace(bytes, from: i) }
        func take(_ text: StaticString) -> Bool {
            skipSpace()
            let length = text.utf8CodeUnitCount
            guard i + length <= count, memcmp(bytes.baseAddress! + i, text.utf8Start, length) == 0 else { return false }
            i += length
            return true
        }
        /// A string without escapes or control bytes: its contents.
        func plainString() -> UnsafeRawBufferPointer? {
            skipSpace()
            guard i < count, bytes[i] == UInt8(ascii: "\"") else { return nil }
            let end = JSONStringScan.quoteBackslashOrControl(in: bytes, from: i + 1)
            guard end < count, bytes[end] == UInt8(ascii: "\"") else { return nil }
            defer { i = end + 1 }
            return UnsafeRawBufferPointer(rebasing: bytes[(i + 1)..<end])
        }
        guard count > 0, take("{"), take("\"id\""), take(":"), let id = plainString(), !id.isEmpty, JSONStringScan.isASCII(id),
              take(","), take("\"createdDateTime\""), take(":"), let time = plainString() else { return (false, nil) }
        return (true, GraphTimestamp.parse(utf8: time.bindMemory(to: UInt8.self)))
    }

    /// The time a string value's bytes hold: read from the bytes when the string is plain, else
    /// decoded first.
    private static func timeValue(_ value: UnsafeRawBufferPointer) -> Date? {
        if let contents = plainContents(value) { return GraphTimestamp.parse(utf8: contents.bindMemory(to: UInt8.self)) }
        return string(value).flatMap(GraphTimestamp.parse)
    }

    /// Where the value at `start` ends, by its brackets and quotes alone; nil when the bytes end first.
    static func end(ofValueIn bytes: UnsafeRawBufferPointer, at start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        var index = start
        var depth = 0
        repeat {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard let end = JSONStringScan.end(in: bytes, contentsFrom: index + 1) else { return nil }
                index = end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { return index }
                depth -= 1
                index += 1
            case UInt8(ascii: ","), 0x20, 0x0A, 0x0D, 0x09:
                if depth == 0 { return index }
                index += 1
            default:
                index += 1
                if depth == 0 {
                    // A number, true, false or null: it runs to the next delimiter (a record
                    // whose names are sorted has autonomousSystemNumber before its id).
                    while index < bytes.count, !isDelimiter(bytes[index]) { index += 1 }
                    return index
                }
            }
        } while depth > 0
        return index
    }

    @inline(__always) private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The string a value's bytes hold, read strictly; nil when they hold anything else.
    static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\"") else { return nil }
        // Most have no escapes and no control bytes (and so no quote): their bytes are the text,
        // once checked as UTF-8.
        if let contents = plainContents(bytes) { return JSONStringScan.text(contents.bindMemory(to: UInt8.self)) }
        guard case .string(let text)? = try? JSONValue.parse(Data(bytes)) else { return nil }
        return text
    }

    /// The contents of a string value's bytes (from `end(ofValueIn:)`, so closed by a quote)
    /// when they hold no escape, quote or control byte, as they lie; nil for anything else.
    private static func plainContents(_ value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard value.count >= 2, value[0] == UInt8(ascii: "\"") else { return nil }
        let contents = UnsafeRawBufferPointer(rebasing: value[1..<(value.count - 1)])
        return JSONStringScan.quoteBackslashOrControl(in: contents, from: 0) == contents.count ? contents : nil
    }
}
