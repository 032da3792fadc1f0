import Foundation

/// A 1-based position in the source text.
public struct YAMLMark: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (a: YAMLMark, b: YAMLMark) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// How a scalar was written; a quoted `"true"` is a string, a plain `true` is a bool.
public enum YAMLScalarStyle: Sendable, Hashable {
    case plain, singleQuoted, doubleQuoted, literal, folded
}

/// A scalar's text and its YAML 1.2 core-schema reading.
public struct YAMLScalar: Sendable, Hashable {
    /// The text after quoting, escapes and folding were applied.
    public var text: String
    public var style: YAMLScalarStyle

    public init(text: String, style: YAMLScalarStyle) {
        self.text = text
        self.style = style
    }
}

/// One node of a YAML document, with where it starts.
public struct YAMLNode: Sendable, Hashable {
    public indirect enum Kind: Sendable, Hashable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        /// Pairs in document order; keys are unique (a duplicate is a read error).
        case mapping([YAMLPair])
    }

    public var kind: Kind
    public var mark: YAMLMark

    public init(_ kind: Kind, at mark: YAMLMark) {
        self.kind = kind
        self.mark = mark
    }
}

/// A key and its value in a mapping.
public struct YAMLPair: Sendable, Hashable {
    public var key: YAMLNode
    public var value: YAMLNode

    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}

/// A value resolved with the YAML 1.2 core schema.
public enum YAMLCoreValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
}

/// A reading error: where, and what, in plain words.
public struct YAMLError: Error, Sendable, Hashable, CustomStringConvertible {
    public var mark: YAMLMark
    public var message: String

    public init(_ message: String, at mark: YAMLMark) {
        self.mark = mark
        self.message = message
    }

    public var description: String { "\(mark): \(message)" }
}
