/// A condition that does not parse: what is wrong and the 1-based column in the condition text.
package struct ConditionSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public var column: Int
    public var message: String

    public init(column: Int, message: String) {
        self.column = column
        self.message = message
    }

    public var description: String { "column \(column): \(message)" }
}

/// Parses Sigma conditions with Sigma's precedence, loosest first: `or`, `and`, `not`, `x of`,
/// parentheses.
///
/// Keywords are case-insensitive (`AND`, `Not`), identifiers keep their case.
package enum ConditionParser {
    /// Parses one condition string.
    /// - Throws: `ConditionSyntaxError` pointing at the offending token.
    /// - Complexity: O(length); nesting deeper than 64 levels is rejected.
    public static func parse(_ text: String) throws -> ConditionExpression {
        var parser = Parser(tokens: try tokenize(text), end: text.count + 1)
        let expression = try parser.orExpression()
        if let extra = parser.peek {
            throw ConditionSyntaxError(column: extra.column, message: "unexpected '\(extra.text)' after a complete condition")
        }
        return expression
    }

    struct Token: Equatable {
        enum Kind: Equatable { case word, open, close }
        var kind: Kind
        var text: String
        var column: Int
        var keyword: String { text.lowercased() }
    }

    static func tokenize(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var start = 0
        var column = 0
        func flush() {
            if !current.isEmpty { tokens.append(Token(kind: .word, text: current, column: start)) }
            current = ""
        }
        for character in text {
            column += 1
            switch character {
            case "(", ")":
                flush()
                tokens.append(Token(kind: character == "(" ? .open : .close, text: String(character), column: column))
            case " ", "\t", "\n", "\r":
                flush()
            default:
                guard character.isLetter || character.isNumber || "_*-.".contains(character) else {
                    throw ConditionSyntaxError(column: column, message: "unexpected character '\(character)' in condition (identifiers use letters, digits, '_', '-', '.' and '*')")
                }
                if current.isEmpty { start = column }
                current.append(character)
            }
        }
        flush()
        return tokens
    }

    struct Parser {
        var tokens: [Token]
        var index = 0
        var depth = 0
        let end: Int

        var peek: Token? { index < tokens.count ? tokens[index] : nil }

        mutating func next() -> Token? {
            defer { index += 1 }
            return peek
        }

        func isKeyword(_ token: Token?, _ word: String) -> Bool {
            token?.kind == .word && token?.keyword == word
        }

        mutating func orExpression() throws -> ConditionExpression {
            var parts = [try andExpression()]
            while isKeyword(peek, "or") {
                index += 1
                parts.append(try andExpression())
            }
            return parts.count == 1 ? parts[0] : .or(parts)
        }

        mutating func andExpression() throws -> ConditionExpression {
            var parts = [try notExpression()]
            while isKeyword(peek, "and") {
                index += 1
                parts.append(try notExpression())
            }
            return parts.count == 1 ? parts[0] : .and(parts)
        }

        mutating func notExpression() throws -> ConditionExpression {
            if isKeyword(peek, "not") {
                index += 1
                return .not(try notExpression())
            }
            return try primary()
        }

        mutating func primary() throws -> ConditionExpression {
            guard let token = next() else {
                throw ConditionSyntaxError(column: end, message: tokens.isEmpty ? "the condition is empty" : "the condition ends where an identifier or '(' was expected")
            }
            switch token.kind {
            case .open:
                depth += 1
                guard depth <= 64 else { throw ConditionSyntaxError(column: token.column, message: "parentheses nested more than 64 deep") }
                let inner = try orExpression()
                guard let close = peek, close.kind == .close else {
                    throw ConditionSyntaxError(column: peek?.column ?? end, message: "'(' at column \(token.column) is never closed")
                }
                index += 1
                depth -= 1
                return inner
            case .close:
                throw ConditionSyntaxError(column: token.column, message: "unexpected ')'")
            case .word:
                let word = token.keyword
                if ["and", "or", "of", "them"].contains(word) {
                    throw ConditionSyntaxError(column: token.column, message: "'\(token.text)' where an identifier was expected")
                }
                if isKeyword(peek, "of") {
                    let quantifier: ConditionQuantifier
                    if word == "all" {
                        quantifier = .all
                    } else if word == "any" {
                        quantifier = .atLeast(1)
                    } else if let n = Int(token.text), n >= 1 {
                        quantifier = .atLeast(n)
                    } else {
                        throw ConditionSyntaxError(column: token.column, message: "'\(token.text) of' needs a positive number, 'any' or 'all' before 'of'")
                    }
                    index += 1
                    guard let target = peek, target.kind == .word, !["and", "or", "not", "of"].contains(target.keyword) else {
                        throw ConditionSyntaxError(column: peek?.column ?? end, message: "'of' needs 'them' or an identifier pattern after it")
                    }
                    index += 1
                    return .quantified(quantifier, target.keyword == "them" ? .them : .pattern(target.text))
                }
                if word == "all" || word == "any" || Int(token.text) != nil {
                    throw ConditionSyntaxError(column: token.column, message: "'\(token.text)' must be followed by 'of'")
                }
                if token.text.contains("*") {
                    throw ConditionSyntaxError(column: token.column, message: "a pattern like '\(token.text)' needs a quantifier: '1 of \(token.text)' or 'all of \(token.text)'")
                }
                return .identifier(token.text)
            }
        }
    }
}
