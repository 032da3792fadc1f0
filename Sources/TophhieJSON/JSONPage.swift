import Foundation

/// A JSON object whose one array member is read element by element, so one damaged element
/// (invalid UTF-8, a raw control byte, a lone surrogate escape) costs that element, not the page.
///
/// A Graph page is `{"@odata.context": …, "value": [ … ], "@odata.nextLink": …}` and its elements
/// carry attacker-controlled text (device and app names). A strict reader that refuses the whole
/// page on one bad byte would fail every poll until the event left retention.
public struct JSONPage: Sendable {
    /// One element of the array member: its value, or why it could not be read.
    public enum Element: Sendable, Equatable {
        case value(JSONValue)
        /// - Parameters:
        ///   - id: the element's `id` member when that member itself could still be read.
        ///   - error: the first problem, with its offset inside the element.
        case damaged(id: String?, error: JSONParseError)
    }

    /// The other members, read strictly.
    public var members: [String: JSONValue]
    /// The array member's elements in order; nil when the object has no such member or it is
    /// not an array.
    public var elements: [Element]?

    /// Reads `data` as an object whose `arrayMember` is read element by element.
    /// - Throws: `JSONParseError` when the text is not an object, when a member other than
    ///   `arrayMember` is damaged, or when the damage breaks the structure itself (an
    ///   unterminated string or bracket) so elements cannot be told apart.
    /// - Complexity: O(n); a page without damage is parsed once, strictly.
    public static func read(_ data: Data, arrayMember: String) throws -> JSONPage {
        if let whole = try? JSONValue.parse(data) {
            guard case .object(var members) = whole else { throw JSONParseError(offset: 0, message: "expected an object") }
            let array = members.removeValue(forKey: arrayMember)
            if case .array(let items)? = array { return JSONPage(members: members, elements: items.map(Element.value)) }
            if let array { members[arrayMember] = array }
            return JSONPage(members: members, elements: nil)
        }
        return try data.withUnsafeBytes { bytes in
            let skeleton = try extents(bytes, arrayMember: arrayMember)
            return JSONPage(members: skeleton.members, elements: skeleton.elements.map { ranges in ranges.map { element(bytes, $0) } })
        }
    }

    /// The page's other members read strictly and its array's elements found but not read, so
    /// a caller that recognises some elements from their bytes parses only the rest (`element`).
    /// - Returns: the other members, and each element's extent in `bytes` (nil when the object
    ///   has no `arrayMember` array).
    /// - Throws: `JSONParseError` as `read` does, except for damage inside an element.
    /// - Complexity: O(n), without building any element.
    public static func extents(_ bytes: UnsafeRawBufferPointer, arrayMember: String) throws -> (members: [String: JSONValue], elements: [Range<Int>]?) {
        let scanner = JSONExtentScanner(bytes: bytes)
        var members: [String: JSONValue] = [:]
        let object = try scanner.members(ofObjectAt: scanner.firstValue(), expanding: arrayMember)
        for member in object.members where !(member.key == arrayMember && bytes[member.value.lowerBound] == UInt8(ascii: "[")) {
            do { members[member.key] = try JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[member.value])) } catch let error as JSONParseError {
                throw JSONParseError(offset: member.value.lowerBound + error.offset, message: error.message)
            }
        }
        return (members, object.elements)
    }

    /// The extents of the elements of a top-level array, found but not read.
    /// - Throws: `JSONParseError` when the bytes are not one array (damage inside an element
    ///   is left to `element`, as far as the element's end can still be found).
    /// - Complexity: O(n), without building any element.
    public static func arrayExtents(_ bytes: UnsafeRawBufferPointer) throws -> [Range<Int>] {
        let scanner = JSONExtentScanner(bytes: bytes)
        let start = try scanner.firstValue()
        guard start < bytes.count, bytes[start] == UInt8(ascii: "[") else { throw JSONParseError(offset: start, message: "expected an array") }
        let found = try scanner.elements(ofArrayAt: start)
        let rest = scanner.skipWhitespace(found.end)
        guard rest == bytes.count else { throw JSONParseError(offset: rest, message: "unexpected data after the array") }
        return found.elements
    }

    /// One element found by `extents`, read strictly: its value, or why it could not be read.
    public static func element(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Element {
        do { return .value(try JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[range]))) } catch let error as JSONParseError {
            return .damaged(id: Self.idMember(bytes, range), error: JSONParseError(offset: error.offset, message: error.message))
        } catch {
            return .damaged(id: Self.idMember(bytes, range), error: JSONParseError(offset: 0, message: "\(error)"))
        }
    }

    /// The `id` string of a damaged element, when that member can be read on its own.
    private static func idMember(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String? {
        let scanner = JSONExtentScanner(bytes: bytes)
        guard bytes[range.lowerBound] == UInt8(ascii: "{"), let members = try? scanner.members(ofObjectAt: range.lowerBound).members else { return nil }
        guard let id = members.first(where: { $0.key == "id" }),
              case .string(let text)? = try? JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[id.value])) else { return nil }
        return text
    }
}

/// Finds where JSON values begin and end without reading them: strings are skipped by their
/// quotes and backslashes only, so bytes that would fail a strict reader inside a string do not
/// hide the structure around it.
struct JSONExtentScanner {
    let bytes: UnsafeRawBufferPointer
    private static let maxDepth = 512

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private func whitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    func skipWhitespace(_ index: Int) -> Int {
        var index = index
        while index < bytes.count, whitespace(bytes[index]) { index += 1 }
        return index
    }

    /// The offset of the document's first value.
    func firstValue() throws -> Int {
        let index = skipWhitespace(0)
        guard index < bytes.count else { throw JSONParseError(offset: index, message: "unexpected end of input") }
        return index
    }

    /// The end (exclusive) of the value that starts at `start`.
    func end(ofValueAt start: Int) throws -> Int {
        guard start < bytes.count else { throw JSONParseError(offset: start, message: "unexpected end of input") }
        switch bytes[start] {
        case UInt8(ascii: "\""): return try end(ofStringAt: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["): break
        default:
            // A number or a literal: it runs to the next delimiter.
            var index = start
            while index < bytes.count, !whitespace(bytes[index]), ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[index]) { index += 1 }
            return index
        }
        var index = start
        var depth = 0
        repeat {
            guard index < bytes.count else { throw JSONParseError(offset: index, message: "unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index = try end(ofStringAt: index)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                guard depth < Self.maxDepth else { throw JSONParseError(offset: index, message: "nested deeper than \(Self.maxDepth) levels") }
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { throw JSONParseError(offset: index, message: "unexpected character") }
                depth -= 1
                index += 1
            default:
                index += 1
            }
        } while depth > 0
        return index
    }

    private func end(ofStringAt start: Int) throws -> Int {
        let end = JSONStringScan.end(in: bytes, contentsFrom: start + 1)
        guard let end else { throw JSONParseError(offset: start, message: "unterminated string") }
        return end
    }

    /// The members of the object at `start`: each key (read strictly) and its value's extent,
    /// and the elements of the array member named `arrayMember` (the last, if it repeats).
    /// - Complexity: O(n), the array walked once: finding its end and then its elements read a
    ///   Graph page twice: 13.8M of the 186M instructions of a poll with nothing new.
    func members(ofObjectAt start: Int, expanding arrayMember: String? = nil) throws -> (members: [(key: String, value: Range<Int>)], elements: [Range<Int>]?) {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "{") else { throw JSONParseError(offset: start, message: "expected an object") }
        var index = skipWhitespace(start + 1)
        var members: [(key: String, value: Range<Int>)] = []
        var elements: [Range<Int>]?
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { return (members, elements) }
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw JSONParseError(offset: index, message: "expected a member name in quotes") }
            let keyEnd = try end(ofStringAt: index)
            guard case .string(let key) = try JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[index..<keyEnd])) else { throw JSONParseError(offset: index, message: "expected a member name") }
            index = skipWhitespace(keyEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw JSONParseError(offset: index, message: "expected ':' after a member name") }
            index = skipWhitespace(index + 1)
            let valueEnd: Int
            if key == arrayMember, index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                let array = try self.elements(ofArrayAt: index)
                elements = array.elements
                valueEnd = array.end
            } else {
                valueEnd = try end(ofValueAt: index)
            }
            guard valueEnd > index else { throw JSONParseError(offset: index, message: "expected a value") }
            members.append((key, index..<valueEnd))
            index = skipWhitespace(valueEnd)
            guard index < bytes.count else { throw JSONParseError(offset: index, message: "unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") { index = skipWhitespace(index + 1); continue }
            if bytes[index] == UInt8(ascii: "}") { return (members, elements) }
            throw JSONParseError(offset: index, message: "expected ',' or '}' in an object")
        }
    }

    /// The extents of the elements of the array at `start`, and where the array ends (exclusive).
    func elements(ofArrayAt start: Int) throws -> (elements: [Range<Int>], end: Int) {
        var index = skipWhitespace(start + 1)
        var elements: [Range<Int>] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return (elements, index + 1) }
        while true {
            let valueEnd = try end(ofValueAt: index)
            guard valueEnd > index else { throw JSONParseError(offset: index, message: "expected a value") }
            elements.append(index..<valueEnd)
            index = skipWhitespace(valueEnd)
            guard index < bytes.count else { throw JSONParseError(offset: index, message: "unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") { index = skipWhitespace(index + 1); continue }
            if bytes[index] == UInt8(ascii: "]") { return (elements, index + 1) }
            throw JSONParseError(offset: index, message: "expected ',' or ']' in an array")
        }
    }
}
