import Foundation
import TophhieRules

/// Something that declares an option: what `OptionGroup` collects for help, completion and parsing.
protocol OptionDeclaring: Sendable {
    var spec: OptionSpec { get }
}

/// An option declared once, typed by the value a command reads: its name, value kind and help
/// (the `spec`), and how the values parsing checked become `Value`.
///
/// A command lists its options as properties of its `Options` group
/// (`var top: Option<Int> = .integer("top", in: 1...10_000, default: 20, help: …)`) and reads
/// them as `options.top`.
struct Option<Value: Sendable>: OptionDeclaring {
    let spec: OptionSpec
    /// The value from what was given: nothing, a flag's marker, or each value in order. Only
    /// values the spec's kind accepts arrive here, so it cannot fail.
    let convert: @Sendable ([String]) -> Value

    /// The same option with `fallback` when it is not given.
    func defaulting<Wrapped>(to fallback: Wrapped) -> Option<Wrapped> where Value == Wrapped? {
        let convert = self.convert
        return Option<Wrapped>(spec: spec) { convert($0) ?? fallback }
    }
}

extension Option where Value == Bool {
    /// `--name`, taking no value.
    static func flag(_ name: String, help: String) -> Self {
        Self(spec: OptionSpec(name, help: help)) { !$0.isEmpty }
    }
}

extension Option where Value == String? {
    /// `--name VALUE`, given at most once.
    static func text(_ name: String, value: String, kind: ValueKind = .text, help: String) -> Self {
        Self(spec: OptionSpec(name, value: value, kind: kind, help: help)) { $0.last }
    }

    /// `--name FILE`.
    static func file(_ name: String, value: String = "FILE", help: String) -> Self {
        text(name, value: value, kind: .file, help: help)
    }
}

extension Option where Value == [String] {
    /// `--name VALUE`, repeatable: every value in order.
    static func list(_ name: String, value: String, kind: ValueKind = .text, help: String) -> Self {
        Self(spec: OptionSpec(name, value: value, kind: kind, repeatable: true, help: help)) { $0 }
    }
}

extension Option where Value == Int? {
    /// `--name N`, a whole number within `range`.
    static func integer(_ name: String, value: String = "N", in range: ClosedRange<Int>, help: String) -> Self {
        Self(spec: OptionSpec(name, value: value, kind: .integer(range), help: help)) { $0.last.flatMap { Int($0) } }
    }
}

extension Option where Value == Int {
    /// `--name N`, a whole number within `range`; `fallback` when not given.
    static func integer(_ name: String, value: String = "N", in range: ClosedRange<Int>, default fallback: Int, help: String) -> Self {
        Option<Int?>.integer(name, value: value, in: range, help: help).defaulting(to: fallback)
    }
}

extension Option where Value == TimeInterval? {
    /// `--name DURATION` (`24h`, `90m`, `7d`), in seconds; `like` gives the examples a refusal shows.
    static func duration(_ name: String, like: String, positive: Bool = false, help: String) -> Self {
        Self(spec: OptionSpec(name, value: "DURATION", kind: .duration(like: like, positive: positive), help: help)) {
            $0.last.flatMap { RuleDuration.parse($0)?.interval }
        }
    }
}

extension Option {
    /// `--name VALUE`, one of `values`; the placeholder is the values joined by `|` unless given,
    /// and a refusal lists them as `takes` says (default `a, b or c`).
    static func choice<Choice: RawRepresentable & Sendable>(_ name: String, among values: [Choice], value: String? = nil, takes: String? = nil, help: String) -> Self
    where Value == Choice?, Choice.RawValue == String {
        let words = values.map(\.rawValue)
        let kind = ValueKind.enumeration(words, takes: takes ?? ValueKind.listing(words))
        return Self(spec: OptionSpec(name, value: value ?? words.joined(separator: "|"), kind: kind, help: help)) { $0.last.flatMap(Choice.init(rawValue:)) }
    }
}

extension Option where Value: RawRepresentable, Value.RawValue == String {
    /// `--name VALUE`, one of `values`, `fallback` when not given.
    static func choice(_ name: String, among values: [Value], default fallback: Value, value: String? = nil, takes: String? = nil, help: String) -> Self {
        Option<Value?>.choice(name, among: values, value: value, takes: takes, help: help).defaulting(to: fallback)
    }
}
