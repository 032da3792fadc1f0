/// What one instruction of the compiled NFA does.
enum RegexOpcode: UInt8, Sendable, Hashable {
    /// Consumes the scalar `operand`.
    case scalar
    /// Consumes a scalar in `sets[operand]`.
    case scalarSet
    /// Consumes any scalar (`.` with dotMatchesNewline).
    case anyScalar
    /// Consumes any scalar but "\n" (`.` by default).
    case anyExceptNewline
    /// Continues only if `assertions[operand]` holds here.
    case assertion
    /// Continues at both `operand` and `alternate`.
    case split
    /// Continues at `operand`.
    case jump
    /// The pattern has matched.
    case match
}

/// One NFA state. Kept free of references so the matcher's inner loop does no reference counting.
struct RegexInstruction: Sendable, Hashable {
    var opcode: RegexOpcode
    var operand: Int = 0
    var alternate: Int = 0
}

/// A Thompson NFA: consuming instructions fall through to the next index.
struct RegexProgram: Sendable, Hashable {
    var instructions: [RegexInstruction] = []
    var sets: [ScalarSet] = []
    var assertions: [RegexAssertion] = []
    /// Every match starts at offset 0, so the search can stop as soon as no thread survives.
    var isAnchoredAtStart = false
}
