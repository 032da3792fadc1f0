/// Turns pattern text into a `RegexNode`, refusing anything a Thompson NFA cannot run.
///
/// The accepted syntax is Sigma's `re` flavour (PCRE metacharacters) plus common
/// escapes. Where PCRE, ICU and Rust disagree on a construct, it is refused
/// rather than guessed, so a rule never silently means something else here.
struct RegexParser {
    /// RE2's limit: larger counts make programs whose size, not the input, dominates the cost.
    static let maximumRepetitionCount = 1000
    /// Bounds recursion in the parser and compiler, so a hostile pattern cannot exhaust the stack.
    static let maximumNestingDepth = 250

    private let scalars: [UInt32]
    private var position = 0
    private var flags: RegexFlags
    private var depth = 0

    init(pattern: String, flags: RegexFlags) {
        scalars = pattern.unicodeScalars.map(\.value)
        self.flags = flags
    }

    mutating func parse() throws -> RegexNode {
        let node = try parseAlternation()
        if position < scalars.count {
            // parseAlternation stops only at the end or at a `)` with no group open.
            throw RegexSyntaxError("unmatched ) with no group to close; write \\) for a literal parenthesis", at: position)
        }
        return node
    }

    // MARK: - Structure

    private mutating func parseAlternation() throws -> RegexNode {
        var branches = [try parseConcatenation()]
        while peek() == "|" {
            position += 1
            branches.append(try parseConcatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseConcatenation() throws -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = peek(), scalar != "|", scalar != ")" {
            let atomOffset = position
            guard let atom = try parseAtom() else { continue }
            items.append(try parseQuantifiers(on: atom, atomOffset: atomOffset))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    private mutating func parseQuantifiers(on atom: RegexNode, atomOffset: Int) throws -> RegexNode {
        let quantifierOffset = position
        guard let quantifier = try parseQuantifier() else { return atom }
        if peek() == "?" {
            // Lazy and greedy forms accept the same texts; only match positions differ.
            position += 1
        } else if peek() == "+" {
            throw RegexSyntaxError.refused(
                "possessive quantifier \(quantifier.written)+",
                at: quantifierOffset,
                advice: "write \(quantifier.written) without the +, and if the rule relied on it, make the repeated item exclude what follows")
        }
        let followingOffset = position
        if let following = try parseQuantifier() {
            throw RegexSyntaxError(
                "quantifier \(following.written) follows another quantifier; wrap the repeated part in (?:...) first",
                at: followingOffset)
        }
        return .repetition(atom, minimum: quantifier.minimum, maximum: quantifier.maximum, offset: quantifierOffset)
    }

    private struct Quantifier {
        var minimum: Int
        var maximum: Int?
        var written: String
    }

    /// Reads `*`, `+`, `?` or a counted repetition; a `{` that does not form one is left as a literal, as PCRE does.
    private mutating func parseQuantifier() throws -> Quantifier? {
        switch peek() {
        case "*":
            position += 1
            return Quantifier(minimum: 0, maximum: nil, written: "*")
        case "+":
            position += 1
            return Quantifier(minimum: 1, maximum: nil, written: "+")
        case "?":
            position += 1
            return Quantifier(minimum: 0, maximum: 1, written: "?")
        case "{":
            return try parseCountedRepetition()
        default:
            return nil
        }
    }

    private mutating func parseCountedRepetition() throws -> Quantifier? {
        let start = position
        var cursor = position + 1
        func readNumber() -> Int? {
            var value: Int?
            while cursor < scalars.count, let digit = Self.digitValue(scalars[cursor]) {
                value = min((value ?? 0) * 10 + digit, 1_000_000)
                cursor += 1
            }
            return value
        }
        let minimum = readNumber()
        var maximum: Int?
        var isOpenEnded = false
        if cursor < scalars.count, scalars[cursor] == UInt32(UInt8(ascii: ",")) {
            cursor += 1
            maximum = readNumber()
            isOpenEnded = maximum == nil
        } else {
            maximum = minimum
        }
        guard cursor < scalars.count, scalars[cursor] == UInt32(UInt8(ascii: "}")) else { return nil }
        let written = text(from: start, to: cursor + 1)
        guard let minimum else {
            if let maximum {
                throw RegexSyntaxError("counted repetition \(written) has no minimum; write {0,\(maximum)}", at: start)
            }
            return nil
        }
        position = cursor + 1
        let limit = Self.maximumRepetitionCount
        if minimum > limit || (maximum ?? 0) > limit {
            throw RegexSyntaxError(
                "counted repetition \(written) exceeds the limit of \(limit); use a smaller count or + / * for open-ended repetition",
                at: start)
        }
        if let maximum, maximum < minimum {
            throw RegexSyntaxError("counted repetition \(written) has its minimum above its maximum", at: start)
        }
        return Quantifier(minimum: minimum, maximum: isOpenEnded ? nil : maximum, written: written)
    }

    /// Returns nil for items that match nothing themselves, such as `(?i)` or a comment.
    private mutating func parseAtom() throws -> RegexNode? {
        let offset = position
        guard let scalar = next() else { return nil }
        switch scalar {
        case "(":
            return try parseGroup(openedAt: offset)
        case "[":
            return try parseClass(openedAt: offset)
        case ".":
            let set = flags.dotMatchesNewline ? ScalarSet.all : ScalarSet(0x0A).inverted()
            return .scalars(set)
        case "^":
            return .assertion(flags.multiline ? .startOfLine : .startOfText)
        case "$":
            return .assertion(flags.multiline ? .endOfLine : .endOfTextOrFinalNewline)
        case "\\":
            return try parseEscape(at: offset)
        case "*", "+", "?":
            throw RegexSyntaxError("quantifier \(Character(scalar)) has nothing to repeat; write \\\(Character(scalar)) for a literal", at: offset)
        case "{":
            position = offset
            if let quantifier = try parseCountedRepetition() {
                throw RegexSyntaxError("quantifier \(quantifier.written) has nothing to repeat; write \\{ for a literal brace", at: offset)
            }
            position = offset + 1
            return literal(scalar.value)
        default:
            return literal(scalar.value)
        }
    }

    private func literal(_ scalar: UInt32) -> RegexNode {
        let set = ScalarSet(scalar)
        return .scalars(flags.ignoreCase ? set.caseFolded() : set)
    }

    // MARK: - Groups

    private mutating func parseGroup(openedAt offset: Int) throws -> RegexNode? {
        guard peek() == "?" else {
            return try parseGroupBody(openedAt: offset, flags: flags)
        }
        position += 1
        let introducer = text(from: offset, to: min(offset + 4, scalars.count))
        switch peek() {
        case ":":
            position += 1
            return try parseGroupBody(openedAt: offset, flags: flags)
        case "=", "!":
            throw RegexSyntaxError.refused(
                "lookahead \(text(from: offset, to: offset + 3))", at: offset,
                advice: "match the text itself, or move the condition into a second selection joined with 'and' / 'and not'")
        case "<" where peek(at: 1) == "=" || peek(at: 1) == "!":
            throw RegexSyntaxError.refused(
                "lookbehind \(text(from: offset, to: offset + 4))", at: offset,
                advice: "match the text itself, or move the condition into a second selection joined with 'and' / 'and not'")
        case "<", "'":
            try skipGroupName(opener: next()!, groupOffset: offset)
            return try parseGroupBody(openedAt: offset, flags: flags)
        case "P":
            switch peek(at: 1) {
            case "<":
                position += 1
                try skipGroupName(opener: next()!, groupOffset: offset)
                return try parseGroupBody(openedAt: offset, flags: flags)
            case "=":
                throw RegexSyntaxError.refused(
                    "backreference \(constructText(from: offset, through: ")"))", at: offset,
                    advice: "match the repeated text explicitly or use two selections")
            case ">":
                throw recursionError(constructText(from: offset, through: ")"), at: offset)
            default:
                throw RegexSyntaxError("unknown group syntax \(introducer)", at: offset)
            }
        case ">":
            throw RegexSyntaxError.refused(
                "atomic group (?>", at: offset,
                advice: "write a plain group (?: and make its contents exclude what follows")
        case "(":
            throw RegexSyntaxError.refused(
                "conditional group (?(", at: offset,
                advice: "write the alternatives out with | or use two selections")
        case "R", "&", "+":
            throw recursionError(constructText(from: offset, through: ")"), at: offset)
        case "-" where peek(at: 1).map { Self.digitValue($0.value) != nil } ?? false:
            throw recursionError(constructText(from: offset, through: ")"), at: offset)
        case let scalar? where Self.digitValue(scalar.value) != nil:
            throw recursionError(constructText(from: offset, through: ")"), at: offset)
        case "#":
            while let scalar = next() {
                if scalar == ")" { return nil }
            }
            throw RegexSyntaxError("missing ) to close the comment opened here", at: offset)
        default:
            return try parseFlagGroup(openedAt: offset)
        }
    }

    private func recursionError(_ construct: String, at offset: Int) -> RegexSyntaxError {
        RegexSyntaxError.refused(
            "recursion \(construct)", at: offset,
            advice: "write out the nesting you need explicitly")
    }

    /// `(?flags)` changes the enclosing group from here on; `(?flags:...)` only its own body.
    private mutating func parseFlagGroup(openedAt offset: Int) throws -> RegexNode? {
        var updated = flags
        var negating = false
        var sawFlag = false
        while let scalar = peek() {
            let flagOffset = position
            position += 1
            switch scalar {
            case "i":
                updated.ignoreCase = !negating
            case "m":
                updated.multiline = !negating
            case "s":
                updated.dotMatchesNewline = !negating
            case "-":
                if negating {
                    throw RegexSyntaxError("inline flags may contain only one -", at: flagOffset)
                }
                negating = true
                continue
            case ")", ":":
                guard sawFlag else {
                    throw RegexSyntaxError("inline flag group names no flag; write (?i), (?m), (?s) or (?:...)", at: offset)
                }
                if scalar == ")" {
                    flags = updated
                    return nil
                }
                return try parseGroupBody(openedAt: offset, flags: updated)
            case "x":
                throw RegexSyntaxError(
                    "inline flag x (extended mode) is not supported; remove the whitespace and # comments from the pattern",
                    at: flagOffset)
            default:
                throw RegexSyntaxError(
                    "unknown group syntax or inline flag \(Character(scalar)); supported are (?:...), (?<name>...), (?i), (?m), (?s)",
                    at: flagOffset)
            }
            sawFlag = true
        }
        throw RegexSyntaxError("missing ) to close the group opened here", at: offset)
    }

    private mutating func parseGroupBody(openedAt offset: Int, flags groupFlags: RegexFlags) throws -> RegexNode {
        depth += 1
        if depth > Self.maximumNestingDepth {
            throw RegexSyntaxError("groups are nested more than \(Self.maximumNestingDepth) deep", at: offset)
        }
        let outerFlags = flags
        flags = groupFlags
        let body = try parseAlternation()
        flags = outerFlags
        depth -= 1
        guard next() == ")" else {
            throw RegexSyntaxError("missing ) to close the group opened here", at: offset)
        }
        return body
    }

    private mutating func skipGroupName(opener: Unicode.Scalar, groupOffset: Int) throws {
        let closer: Unicode.Scalar = opener == "<" ? ">" : "'"
        let nameStart = position
        while let scalar = peek(), scalar != closer {
            let isNameScalar = scalar == "_" || Self.isASCIILetter(scalar.value)
                || (position > nameStart && Self.digitValue(scalar.value) != nil)
            guard isNameScalar else {
                throw RegexSyntaxError("group name may contain only ASCII letters, digits and _", at: position)
            }
            position += 1
        }
        guard position > nameStart, peek() == closer else {
            throw RegexSyntaxError("group name is empty or not closed with \(closer)", at: groupOffset)
        }
        position += 1
    }

    // MARK: - Escapes

    private mutating func parseEscape(at offset: Int) throws -> RegexNode {
        guard let scalar = next() else {
            throw RegexSyntaxError("pattern ends with a lone backslash; write \\\\ for a literal backslash", at: offset)
        }
        switch scalar {
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "A": return .assertion(.startOfText)
        case "z": return .assertion(.endOfText)
        case "Z": return .assertion(.endOfTextOrFinalNewline)
        default: break
        }
        if let set = try parseClassEscape(scalar, at: offset) {
            return .scalars(set)
        }
        return literal(try parseScalarEscape(scalar, at: offset))
    }

    /// `\d \w \s` and their negations. They are ASCII-only — Rust's ASCII mode (`(?-u)`) and RE2's default —
    /// and are not case-folded, since they already contain both cases.
    private func parseClassEscape(_ scalar: Unicode.Scalar, at offset: Int) throws -> ScalarSet? {
        switch scalar {
        case "d": return PerlClass.digit
        case "D": return PerlClass.digit.inverted()
        case "w": return PerlClass.word
        case "W": return PerlClass.word.inverted()
        case "s": return PerlClass.space
        case "S": return PerlClass.space.inverted()
        case "p", "P":
            throw RegexSyntaxError(
                "Unicode property class \\\(Character(scalar)) is not supported; list the characters in a class such as [A-Za-z]",
                at: offset)
        default:
            return nil
        }
    }

    /// Escapes that stand for one scalar; everything else with a backslash is refused or taken literally.
    private mutating func parseScalarEscape(_ scalar: Unicode.Scalar, at offset: Int) throws -> UInt32 {
        switch scalar {
        case "t": return 0x09
        case "n": return 0x0A
        case "v": return 0x0B
        case "f": return 0x0C
        case "r": return 0x0D
        case "a": return 0x07
        case "e": return 0x1B
        case "x":
            return try parseHexEscape(at: offset)
        case "u":
            return try parseFixedHex(digits: 4, escape: "\\u", at: offset)
        case "0":
            throw RegexSyntaxError("octal escape \\0 is not supported; write \\x00 or \\x{...} with the hexadecimal value", at: offset)
        case "1"..."9":
            position -= 1
            var digits = ""
            while let next = peek(), Self.digitValue(next.value) != nil {
                digits.unicodeScalars.append(next)
                position += 1
            }
            throw RegexSyntaxError.refused(
                "backreference \\\(digits)", at: offset,
                advice: "match the repeated text explicitly or use two selections")
        case "k", "g":
            let construct = constructText(from: offset, through: nil)
            let opener = peek()
            if scalar == "g", opener == "<" || opener == "'" {
                throw recursionError(construct, at: offset)
            }
            throw RegexSyntaxError.refused(
                "backreference \(construct)", at: offset,
                advice: "match the repeated text explicitly or use two selections")
        case "Q":
            throw RegexSyntaxError("\\Q...\\E quoting is not supported; escape each metacharacter with a backslash", at: offset)
        default:
            if Self.isASCIILetter(scalar.value) || Self.digitValue(scalar.value) != nil {
                throw RegexSyntaxError("unknown escape \\\(Character(scalar)); write the character without a backslash, or \\\\ for a backslash", at: offset)
            }
            // Any other escaped character — metacharacters, punctuation, spaces, non-ASCII — stands for itself.
            return scalar.value
        }
    }

    private mutating func parseHexEscape(at offset: Int) throws -> UInt32 {
        guard peek() == "{" else {
            return try parseFixedHex(digits: 2, escape: "\\x", at: offset)
        }
        position += 1
        var value: UInt32 = 0
        var count = 0
        while let scalar = peek(), let digit = Self.hexValue(scalar.value) {
            value = value &* 16 &+ digit
            count += 1
            position += 1
            if count > 6 { break }
        }
        guard count > 0, count <= 6, next() == "}" else {
            throw RegexSyntaxError("\\x{...} needs 1 to 6 hexadecimal digits and a closing }", at: offset)
        }
        return try validScalar(value, at: offset)
    }

    private mutating func parseFixedHex(digits: Int, escape: String, at offset: Int) throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let scalar = peek(), let digit = Self.hexValue(scalar.value) else {
                throw RegexSyntaxError("\(escape) needs exactly \(digits) hexadecimal digits", at: offset)
            }
            value = value * 16 + digit
            position += 1
        }
        return try validScalar(value, at: offset)
    }

    private func validScalar(_ value: UInt32, at offset: Int) throws -> UInt32 {
        guard Unicode.Scalar(value) != nil else {
            throw RegexSyntaxError("escape names \(String(value, radix: 16, uppercase: true)), which is not a Unicode scalar value", at: offset)
        }
        return value
    }

    // MARK: - Classes

    private mutating func parseClass(openedAt offset: Int) throws -> RegexNode {
        let isNegated = peek() == "^"
        if isNegated { position += 1 }
        // Literals, ranges and [:name:] follow (?i), as in Rust and PCRE; \d, \w and \s already hold both cases.
        var literals = ScalarSet()
        var fixedClasses = ScalarSet()
        var isFirstItem = true
        while true {
            guard let scalar = peek() else {
                throw RegexSyntaxError("missing ] to close the class opened here", at: offset)
            }
            if scalar == "]", !isFirstItem {
                position += 1
                break
            }
            isFirstItem = false
            let itemOffset = position
            if scalar == "[" {
                if peek(at: 1) == ":" {
                    literals.formUnion(try parsePOSIXClass())
                    continue
                }
                throw RegexSyntaxError(
                    "[ inside a class is read differently by PCRE, ICU and Rust; write \\[ for a literal bracket (nested classes are not supported)",
                    at: itemOffset)
            }
            if scalar == "&" || scalar == "~" || scalar == "-", peek(at: 1) == scalar {
                let pair = "\(Character(scalar))\(Character(scalar))"
                throw RegexSyntaxError(
                    "\(pair) inside a class is a set operation in ICU and Rust but literal in PCRE; escape the characters as \\\(Character(scalar))\\\(Character(scalar))",
                    at: itemOffset)
            }
            switch try parseClassItem() {
            case .set(let set):
                if peek() == "-", let after = peek(at: 1), after != "]" {
                    throw RegexSyntaxError("a range cannot start with a class such as \\d; write \\- for a literal hyphen", at: position)
                }
                fixedClasses.formUnion(set)
            case .scalar(let start):
                guard peek() == "-", let after = peek(at: 1), after != "]" else {
                    literals.insert(start)
                    continue
                }
                position += 1
                let endOffset = position
                guard case .scalar(let end) = try parseClassItem() else {
                    throw RegexSyntaxError("a range cannot end with a class such as \\d; write \\- for a literal hyphen", at: endOffset)
                }
                guard start <= end else {
                    throw RegexSyntaxError(
                        "range \(text(from: itemOffset, to: position)) is out of order; write the smaller character first",
                        at: itemOffset)
                }
                literals.insert(start...end)
            }
        }
        var set = flags.ignoreCase ? literals.caseFolded() : literals
        set.formUnion(fixedClasses)
        return .scalars(isNegated ? set.inverted() : set)
    }

    private enum ClassItem {
        case scalar(UInt32)
        case set(ScalarSet)
    }

    private mutating func parseClassItem() throws -> ClassItem {
        let offset = position
        guard let scalar = next() else {
            throw RegexSyntaxError("missing ] to close the class", at: offset)
        }
        guard scalar == "\\" else { return .scalar(scalar.value) }
        guard let escaped = next() else {
            throw RegexSyntaxError("pattern ends with a lone backslash; write \\\\ for a literal backslash", at: offset)
        }
        if let set = try parseClassEscape(escaped, at: offset) {
            return .set(set)
        }
        switch escaped {
        case "b":
            throw RegexSyntaxError("\\b inside a class means backspace in PCRE but is an error elsewhere; write \\x08", at: offset)
        case "A", "z", "Z", "B":
            throw RegexSyntaxError("\\\(Character(escaped)) is an anchor and cannot appear inside a class", at: offset)
        default:
            return .scalar(try parseScalarEscape(escaped, at: offset))
        }
    }

    private mutating func parsePOSIXClass() throws -> ScalarSet {
        let offset = position
        position += 2
        let isNegated = peek() == "^"
        if isNegated { position += 1 }
        let nameStart = position
        while let scalar = peek(), Self.isASCIILetter(scalar.value) {
            position += 1
        }
        let name = text(from: nameStart, to: position)
        guard peek() == ":", peek(at: 1) == "]" else {
            throw RegexSyntaxError("[: inside a class must start a POSIX class such as [:alpha:]; write \\[ for a literal bracket", at: offset)
        }
        position += 2
        guard let set = PerlClass.posix(named: name) else {
            throw RegexSyntaxError("unknown POSIX class [:\(name):]", at: offset)
        }
        return isNegated ? set.inverted() : set
    }

    // MARK: - Scanning

    private func peek(at distance: Int = 0) -> Unicode.Scalar? {
        let index = position + distance
        guard index < scalars.count else { return nil }
        return Unicode.Scalar(scalars[index])
    }

    private mutating func next() -> Unicode.Scalar? {
        guard let scalar = peek() else { return nil }
        position += 1
        return scalar
    }

    private func text(from start: Int, to end: Int) -> String {
        var result = String.UnicodeScalarView()
        for value in scalars[start..<min(end, scalars.count)] {
            if let scalar = Unicode.Scalar(value) { result.append(scalar) }
        }
        return String(result)
    }

    /// The construct's text for messages: up to `terminator` if given, else through the name after `\k` / `\g`.
    private func constructText(from start: Int, through terminator: Unicode.Scalar?) -> String {
        var end = start + 2
        if let terminator {
            while end < scalars.count, scalars[end] != terminator.value { end += 1 }
            return text(from: start, to: end + 1)
        }
        let closers: [UInt32: UInt32] = [0x3C: 0x3E, 0x27: 0x27, 0x7B: 0x7D]
        if end < scalars.count, let closer = closers[scalars[end]] {
            while end < scalars.count, scalars[end] != closer { end += 1 }
            return text(from: start, to: end + 1)
        }
        while end < scalars.count, Self.digitValue(scalars[end]) != nil || scalars[end] == 0x2D { end += 1 }
        return text(from: start, to: end)
    }

    private static func digitValue(_ value: UInt32) -> Int? {
        (0x30...0x39).contains(value) ? Int(value - 0x30) : nil
    }

    private static func hexValue(_ value: UInt32) -> UInt32? {
        switch value {
        case 0x30...0x39: return value - 0x30
        case 0x41...0x46: return value - 0x41 + 10
        case 0x61...0x66: return value - 0x61 + 10
        default: return nil
        }
    }

    private static func isASCIILetter(_ value: UInt32) -> Bool {
        (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
    }
}
