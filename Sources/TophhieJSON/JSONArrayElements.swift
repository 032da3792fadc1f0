import Foundation

extension JSONValue {
    /// The elements of a JSON array, parsing only those `keeping` asks for by position; the
    /// others (and any past `keeping`) are checked for structure, as `parse` checks them, and
    /// left nil. A query API table's row read for some of its columns.
    /// - Returns: nil when the text is a value but not an array.
    /// - Throws: `JSONParseError` as `parse` does (a skipped string's UTF-8 is not checked).
    public static func parseElements(_ bytes: UnsafeRawBufferPointer, keeping: [Bool]) throws -> [JSONValue?]? {
        try JSONParser.parsing(bytes) { parser in
            parser.skipWhitespace()
            guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "[") else {
                _ = try parser.parseDocument()
                return nil
            }
            parser.index += 1
            var items: [JSONValue?] = []
            parser.skipWhitespace()
            if parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "]") {
                parser.index += 1
            } else {
                repeat {
                    parser.skipWhitespace()
                    if items.count < keeping.count, keeping[items.count] {
                        items.append(try parser.parseValue(depth: 1))
                    } else {
                        try parser.skipValue(depth: 1)
                        items.append(nil)
                    }
                } while try parser.another(UInt8(ascii: "]"))
            }
            parser.skipWhitespace()
            guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the value") }
            return items
        }
    }
}
