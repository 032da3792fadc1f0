/// A Sigma string value compiled for matching: `*` any run, `?` one character, `\` escapes.
///
/// Sigma's escape rules: `\*` and `\?` are the literal characters, `\\` is one backslash, and a
/// backslash before anything else is itself literal (so `C:\Windows` needs no doubling).
/// Characters are compared as Unicode scalars after lower-casing both sides unless `cased`.
package struct WildcardPattern: Sendable, Hashable {
    package enum Piece: Sendable, Hashable {
        case literal([Unicode.Scalar])
        case anyRun
        case anyOne
    }

    /// What the pattern's pieces amount to, its text apart (`literal`): reading an enum's text
    /// payload out for every test copied it (a retain and a release) for every event.
    package enum Shape: Sendable, Hashable {
        case exact
        case prefix
        case suffix
        case contains
        case general
    }

    package let pieces: [Piece]
    package let shape: Shape
    /// The text of an exact, prefix, suffix or contains shape; empty for a general one.
    package let literal: String
    /// Whether the pattern has no wildcard: only equal text matches.
    package var isExact: Bool { shape == .exact }
    public let caseSensitive: Bool

    /// Compiles `text` (already unquoted YAML) with Sigma's wildcard and escape rules.
    /// - Parameters:
    ///   - escapes: false reads `\` as an ordinary character (condition identifier patterns).
    public init(sigma text: String, caseSensitive: Bool = false, escapes: Bool = true) {
        self.caseSensitive = caseSensitive
        let folded = caseSensitive ? text : text.lowercased()
        let source = Array(folded.unicodeScalars)
        var pieces: [Piece] = []
        var literal: [Unicode.Scalar] = []
        func flush() {
            if !literal.isEmpty { pieces.append(.literal(literal)); literal = [] }
        }
        var index = 0
        while index < source.count {
            let scalar = source[index]
            if escapes && scalar == "\\" && index + 1 < source.count && "*?\\".unicodeScalars.contains(source[index + 1]) {
                literal.append(source[index + 1])
                index += 2
                continue
            }
            switch scalar {
            case "*":
                flush()
                if pieces.last != .anyRun { pieces.append(.anyRun) }
            case "?":
                flush()
                pieces.append(.anyOne)
            default:
                literal.append(scalar)
            }
            index += 1
        }
        flush()
        self.pieces = pieces
        func string(_ scalars: [Unicode.Scalar]) -> String { String(String.UnicodeScalarView(scalars)) }
        var shape = Shape.general, shapeText = ""
        switch pieces.count {
        case 0:
            shape = .exact
        case 1:
            if case .literal(let l) = pieces[0] { shape = .exact; shapeText = string(l) }
        case 2:
            if case .literal(let l) = pieces[0], pieces[1] == .anyRun { shape = .prefix; shapeText = string(l) }
            else if case .literal(let l) = pieces[1], pieces[0] == .anyRun { shape = .suffix; shapeText = string(l) }
        case 3:
            if case .literal(let l) = pieces[1], pieces[0] == .anyRun, pieces[2] == .anyRun { shape = .contains; shapeText = string(l) }
        default:
            break
        }
        self.shape = shape
        self.literal = shapeText
    }

    /// Whether the whole of `subject` matches.
    /// - Complexity: O(n) for exact, prefix, suffix and contains shapes; O(n·m) worst case otherwise.
    public func matches(_ subject: String) -> Bool {
        matches(folded: caseSensitive ? subject : subject.lowercased())
    }

    /// Whether the whole of `folded` matches, when the caller has already lower-cased it (or the
    /// pattern is case-sensitive).
    public func matches(folded: String) -> Bool {
        switch shape {
        // UTF-8 is self-synchronising: byte comparisons agree with scalar comparisons.
        case .exact: return folded.utf8.elementsEqual(literal.utf8)
        case .prefix: return folded.utf8.starts(with: literal.utf8)
        case .suffix: return folded.utf8.reversed().starts(with: literal.utf8.reversed())
        // Bytes, not String.contains (grapheme clusters): combining marks behave as in the
        // general matcher.
        case .contains: return WildcardPattern.bytes(of: folded, contain: literal)
        case .general: return generalMatch(Array(folded.unicodeScalars))
        }
    }

    /// Whether `needle`'s UTF-8 bytes occur in `haystack`'s (an empty needle always does).
    static func bytes(of haystack: String, contain needle: String) -> Bool {
        let h = Array(haystack.utf8), n = Array(needle.utf8)
        guard !n.isEmpty else { return true }
        guard n.count <= h.count else { return false }
        for start in 0...(h.count - n.count) where h[start] == n[0] && h[start..<(start + n.count)].elementsEqual(n) { return true }
        return false
    }

    private enum Step { case star, one, scalar(Unicode.Scalar) }

    package func generalMatch(_ subject: [Unicode.Scalar]) -> Bool {
        var steps: [Step] = []
        for piece in pieces {
            switch piece {
            case .anyRun: steps.append(.star)
            case .anyOne: steps.append(.one)
            case .literal(let scalars): steps.append(contentsOf: scalars.map { .scalar($0) })
            }
        }
        // Two pointers with one backtrack point at the most recent `*`: linear in practice,
        // O(n·m) worst case, never exponential.
        var s = 0, p = 0, star = -1, mark = 0
        while s < subject.count {
            if p < steps.count, case .star = steps[p] {
                star = p
                mark = s
                p += 1
                continue
            }
            if p < steps.count {
                switch steps[p] {
                case .one:
                    s += 1; p += 1; continue
                case .scalar(let c) where c == subject[s]:
                    s += 1; p += 1; continue
                default:
                    break
                }
            }
            guard star >= 0 else { return false }
            mark += 1
            s = mark
            p = star + 1
        }
        while p < steps.count, case .star = steps[p] { p += 1 }
        return p == steps.count
    }
}
