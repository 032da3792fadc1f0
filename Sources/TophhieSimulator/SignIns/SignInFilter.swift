import Foundation
import TophhieJSON

/// The part of the signIns `$filter` grammar the simulator understands: `and`-joined clauses on
/// `userId` (`eq`, quoted GUID) and `createdDateTime` (`ge`, `le`, `eq`, unquoted ISO-8601 UTC),
/// with optional parentheses, and beta's `signInEventTypes/any(t: t eq '…')`. Everything else is rejected as Graph rejects it: "Invalid filter clause".
public struct SignInFilter: Sendable, Equatable {
    /// Every `userId eq '…'` value, in order.
    public var userIDs: [String] = []
    /// The latest `createdDateTime ge` bound.
    public var notBefore: Date?
    /// The earliest `createdDateTime le` bound.
    public var notAfter: Date?
    /// A `createdDateTime eq` value.
    public var exactly: Date?
    /// Every `signInEventTypes/any(t: t eq '…')` value (beta only): without one, Graph returns
    /// the interactive sign-ins alone.
    public var eventTypes: [String] = []

    /// Why a filter was refused.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// What was wrong, for logs and tests; Graph itself only says "Invalid filter clause".
        public var reason: String
        public var description: String { reason }
    }

    /// Parses `$filter` text.
    /// - Throws: `ParseError` for anything outside the grammar.
    public static func parse(_ text: String) throws(ParseError) -> SignInFilter {
        var parser = Parser(tokens: try tokenize(text))
        var filter = SignInFilter()
        try parser.parseExpression(into: &filter)
        guard parser.isAtEnd else { throw ParseError(reason: "unexpected '\(parser.peekText)'") }
        return filter
    }

    /// Whether an event with this user id, time and event types passes every clause.
    public func matches(userID: String?, createdAt: Date, eventTypes types: Set<String> = ["interactiveUser"]) -> Bool {
        for id in userIDs where id.lowercased() != userID?.lowercased() { return false }
        if eventTypes.isEmpty {
            if !types.contains("interactiveUser") { return false }
        } else {
            for wanted in eventTypes where !types.contains(wanted) { return false }
        }
        if let notBefore, createdAt < notBefore { return false }
        if let notAfter, createdAt > notAfter { return false }
        if let exactly, createdAt != exactly { return false }
        return true
    }

    /// Whether the filter restricts results to `userID` alone, which is what lets a role-less user read.
    public func isSelfFilter(for userID: String) -> Bool {
        !userIDs.isEmpty && userIDs.allSatisfy { $0.lowercased() == userID.lowercased() }
    }

    enum Token: Equatable {
        case open, close
        case word(String)
        case quoted(String)
    }

    static func tokenize(_ text: String) throws(ParseError) -> [Token] {
        var tokens: [Token] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == " " || character == "\t" {
                index = text.index(after: index)
            } else if character == "(" {
                tokens.append(.open)
                index = text.index(after: index)
            } else if character == ")" {
                tokens.append(.close)
                index = text.index(after: index)
            } else if character == "'" {
                var value = ""
                index = text.index(after: index)
                var closed = false
                while index < text.endIndex {
                    if text[index] == "'" {
                        let next = text.index(after: index)
                        if next < text.endIndex && text[next] == "'" {
                            value.append("'")
                            index = text.index(after: next)
                            continue
                        }
                        index = next
                        closed = true
                        break
                    }
                    value.append(text[index])
                    index = text.index(after: index)
                }
                guard closed else { throw ParseError(reason: "unterminated string literal") }
                tokens.append(.quoted(value))
            } else {
                var word = ""
                while index < text.endIndex, !" \t()'".contains(text[index]) {
                    word.append(text[index])
                    index = text.index(after: index)
                }
                tokens.append(.word(word))
            }
        }
        return tokens
    }

    struct Parser {
        var tokens: [Token]
        var position = 0

        var isAtEnd: Bool { position >= tokens.count }

        var peekText: String {
            guard position < tokens.count else { return "end of filter" }
            switch tokens[position] {
            case .open: return "("
            case .close: return ")"
            case .word(let word): return word
            case .quoted(let value): return "'\(value)'"
            }
        }

        mutating func next() -> Token? {
            guard position < tokens.count else { return nil }
            defer { position += 1 }
            return tokens[position]
        }

        mutating func parseExpression(into filter: inout SignInFilter) throws(ParseError) {
            try parseTerm(into: &filter)
            while case .word(let word)? = tokens[safe: position], word.lowercased() == "and" {
                position += 1
                try parseTerm(into: &filter)
            }
            if case .word(let word)? = tokens[safe: position], word.lowercased() == "or" {
                throw ParseError(reason: "'or' is not supported")
            }
        }

        mutating func parseTerm(into filter: inout SignInFilter) throws(ParseError) {
            if tokens[safe: position] == .open {
                position += 1
                try parseExpression(into: &filter)
                guard next() == .close else { throw ParseError(reason: "missing ')'") }
                return
            }
            guard case .word(let field)? = next() else { throw ParseError(reason: "expected a property name before \(peekText)") }
            if field.lowercased() == "signineventtypes/any" {
                // `signInEventTypes/any(t: t eq 'nonInteractiveUser')`, the lambda Graph documents.
                guard next() == .open, case .word(let variable)? = next(), variable.hasSuffix(":"),
                      case .word(let name)? = next(), name + ":" == variable,
                      case .word(let op)? = next(), op.lowercased() == "eq",
                      case .quoted(let type)? = next(), next() == .close else {
                    throw ParseError(reason: "signInEventTypes supports only any(t: t eq '…')")
                }
                filter.eventTypes.append(type)
                return
            }
            guard case .word(let op)? = next() else { throw ParseError(reason: "expected an operator after '\(field)'") }
            guard let value = next() else { throw ParseError(reason: "expected a value after '\(field) \(op)'") }
            switch (field.lowercased(), op.lowercased(), value) {
            case ("userid", "eq", .quoted(let id)):
                filter.userIDs.append(id)
            case ("userid", _, _):
                throw ParseError(reason: "userId supports only eq with a quoted value")
            case ("createddatetime", let op, .word(let literal)):
                guard let date = GraphTimestamp.parse(literal) ?? GraphTimestamp.parseDate(literal) else {
                    throw ParseError(reason: "'\(literal)' is not an ISO-8601 date")
                }
                switch op {
                case "ge": filter.notBefore = max(filter.notBefore ?? date, date)
                case "le": filter.notAfter = min(filter.notAfter ?? date, date)
                case "eq": filter.exactly = date
                default: throw ParseError(reason: "createdDateTime supports only eq, ge and le")
                }
            case ("createddatetime", _, .quoted):
                throw ParseError(reason: "createdDateTime values must not be quoted")
            default:
                throw ParseError(reason: "unsupported clause '\(field) \(op)'")
            }
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
