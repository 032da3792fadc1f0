import Foundation

/// A value written in a rule, as YAML's core schema read it.
///
/// Kept typed so `ResultType: 50053` can match the number `50053` and the text `"50053"` alike.
package enum RuleValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)

    /// The value as text the way Sigma compares it (`50053`, `true`), nil for null.
    public var text: String? {
        switch self {
        case .null: return nil
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .string(let s): return s
        }
    }

    /// The value as a number, reading numeric strings too.
    public var number: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .string(let s): return Double(s.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .string(let s): return "'\(s)'"
        default: return text ?? ""
        }
    }
}
