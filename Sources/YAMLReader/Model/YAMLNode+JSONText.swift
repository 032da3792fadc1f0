import Foundation

/// A compact JSON rendering of a node, resolved with the core schema; handy for tests and debugging.
extension YAMLNode {
    /// The node as one line of JSON: keys in document order (as their scalar text), scalars by their
    /// core-schema value. Infinities and NaN, which JSON lacks, appear as the bare words
    /// `inf`, `-inf` and `nan`.
    public var jsonText: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch kind {
        case .scalar(let scalar):
            switch scalar.coreValue {
            case .null: out += "null"
            case .bool(let value): out += value ? "true" : "false"
            case .int(let value): out += String(value)
            case .float(let value):
                if value.isNaN {
                    out += "nan"
                } else if value.isInfinite {
                    out += value < 0 ? "-inf" : "inf"
                } else {
                    out += "\(value)"
                }
            case .string(let text): Self.writeString(text, into: &out)
            }
        case .sequence(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .mapping(let pairs):
            out += "{"
            for (index, pair) in pairs.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(pair.key.scalarText ?? pair.key.jsonText, into: &out)
                out += ":"
                pair.value.write(into: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0) {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
