import Foundation

/// RFC 4180 CSV: a header row naming the columns, then one record a row; fields in double
/// quotes may hold commas, line breaks and doubled quotes. A row with another number of fields
/// than the header is an error naming its line.
public struct CSVTable: Sendable {
    public var header: [String]
    /// Each row, with the line it starts on (from 1).
    public var rows: [(line: Int, fields: [String])]

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// - Throws: `Failure` for an unclosed quote, a quote inside an unquoted field, or a row
    ///   whose field count is not the header's.
    public init(_ text: String) throws {
        var records: [(Int, [String])] = []
        var fields: [String] = []
        var field = ""
        var quoted = false, wasQuoted = false
        var line = 1, recordLine = 1
        var characters = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar?
        func next() -> Unicode.Scalar? {
            if let p = pending { pending = nil; return p }
            return characters.next()
        }
        func endRecord() {
            fields.append(field)
            if !(fields.count == 1 && fields[0].isEmpty && !wasQuoted) { records.append((recordLine, fields)) }
            fields = []
            field = ""
            wasQuoted = false
        }
        while let c = next() {
            if quoted {
                if c == "\"" {
                    if let after = next() {
                        if after == "\"" { field.unicodeScalars.append("\"") } else { quoted = false; pending = after }
                    } else {
                        quoted = false
                    }
                } else {
                    if c == "\n" { line += 1 }
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"":
                guard field.isEmpty else { throw Failure(line: line, message: "a quote inside an unquoted field") }
                quoted = true
                wasQuoted = true
            case ",":
                fields.append(field)
                field = ""
            case "\r":
                continue
            case "\n":
                endRecord()
                line += 1
                recordLine = line
            default:
                field.unicodeScalars.append(c)
            }
        }
        if quoted { throw Failure(line: recordLine, message: "a quoted field is not closed") }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        guard let first = records.first else { throw Failure(line: 1, message: "no header row") }
        header = first.1.map { $0.trimmingCharacters(in: .whitespaces) }
        rows = []
        for (at, values) in records.dropFirst() {
            guard values.count == header.count else {
                throw Failure(line: at, message: "\(values.count) fields where the header names \(header.count)")
            }
            rows.append((at, values))
        }
    }
}
