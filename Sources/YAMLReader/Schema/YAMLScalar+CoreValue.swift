/// The YAML 1.2 core schema, applied to plain scalars only: quoted and block scalars are strings.
extension YAMLScalar {
    /// This scalar's value under the core schema.
    ///
    /// Integers that do not fit in 64 bits read as floats (their magnitude survives, their last
    /// digits may not); a rule that needs exact big numbers should quote them.
    public var coreValue: YAMLCoreValue {
        guard style == .plain else { return .string(text) }
        return CoreSchema.resolve(text)
    }
}

/// The core schema's regular expressions, written out as small scanners.
enum CoreSchema {
    static func resolve(_ text: String) -> YAMLCoreValue {
        switch text {
        case "", "~", "null", "Null", "NULL":
            return .null
        case "true", "True", "TRUE":
            return .bool(true)
        case "false", "False", "FALSE":
            return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
            return .float(.infinity)
        case "-.inf", "-.Inf", "-.INF":
            return .float(-.infinity)
        case ".nan", ".NaN", ".NAN":
            return .float(.nan)
        default:
            break
        }
        let scalars = Array(text.unicodeScalars)
        if let value = integer(scalars) { return value }
        if isFloat(scalars), let value = Double(text) { return .float(value) }
        return .string(text)
    }

    /// `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`.
    private static func integer(_ s: [Unicode.Scalar]) -> YAMLCoreValue? {
        if s.count > 2 && s[0] == "0" && (s[1] == "o" || s[1] == "x") {
            let radix: UInt32 = s[1] == "o" ? 8 : 16
            let digits = s[2...]
            guard digits.allSatisfy({ ($0.hexDigitValue ?? 99) < radix }) else { return nil }
            let text = String(scalars: digits)
            if let value = Int64(text, radix: Int(radix)) { return .int(value) }
            return .float(digits.reduce(0.0) { $0 * Double(radix) + Double($1.hexDigitValue ?? 0) })
        }
        var body = s[...]
        if let first = body.first, first == "-" || first == "+" { body = body.dropFirst() }
        guard !body.isEmpty, body.allSatisfy(\.isDecimalDigit) else { return nil }
        let text = String(scalars: s.first == "+" ? s[1...] : s[...])
        if let value = Int64(text) { return .int(value) }
        return Double(text).map { .float($0) }
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
    private static func isFloat(_ s: [Unicode.Scalar]) -> Bool {
        var i = 0
        func digits() -> Int {
            let begin = i
            while i < s.count && s[i].isDecimalDigit { i += 1 }
            return i - begin
        }
        if i < s.count && (s[i] == "-" || s[i] == "+") { i += 1 }
        if i < s.count && s[i] == "." {
            i += 1
            guard digits() > 0 else { return false }
        } else {
            guard digits() > 0 else { return false }
            if i < s.count && s[i] == "." {
                i += 1
                _ = digits()
            }
        }
        if i < s.count && (s[i] == "e" || s[i] == "E") {
            i += 1
            if i < s.count && (s[i] == "-" || s[i] == "+") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == s.count
    }
}
