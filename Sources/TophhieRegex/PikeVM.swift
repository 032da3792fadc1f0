/// Runs a `RegexProgram` over a text by simulating all NFA threads in lock step (Thompson / Pike).
///
/// Each scalar is read once and each instruction is visited at most once per
/// position, so time is O(text × program) and memory O(program) whatever the
/// pattern or input: nothing here can backtrack. Only a boolean is needed, so
/// threads carry no capture slots and no priorities.
struct PikeVM {
    private let program: RegexProgram

    init(program: RegexProgram) {
        self.program = program
    }

    /// The scalars around the current position, which is all an assertion may look at.
    private struct Surroundings {
        static let none = UInt32.max
        var previous: UInt32
        var current: UInt32
        /// Whether `current` is the last scalar of the text (for `$` before a final "\n").
        var currentIsLast: Bool

        func satisfies(_ assertion: RegexAssertion) -> Bool {
            let newline: UInt32 = 0x0A
            switch assertion {
            case .startOfText:
                return previous == Self.none
            case .endOfText:
                return current == Self.none
            case .endOfTextOrFinalNewline:
                return current == Self.none || (current == newline && currentIsLast)
            case .startOfLine:
                return previous == Self.none || (previous == newline && current != Self.none)
            case .endOfLine:
                return current == Self.none || current == newline
            case .wordBoundary:
                return isWord(previous) != isWord(current)
            case .notWordBoundary:
                return isWord(previous) == isWord(current)
            }
        }

        private func isWord(_ scalar: UInt32) -> Bool {
            scalar != Self.none && PerlClass.isWord(scalar)
        }
    }

    func matches(_ text: String) -> Bool {
        let instructions = program.instructions
        var pending = SparseSet(capacity: instructions.count)
        var ready = SparseSet(capacity: instructions.count)
        var stack: [Int] = []
        stack.reserveCapacity(instructions.count)

        var scalars = text.unicodeScalars.makeIterator()
        var surroundings = Surroundings(previous: Surroundings.none, current: Surroundings.none, currentIsLast: false)
        surroundings.current = scalars.next()?.value ?? Surroundings.none
        var following = surroundings.current == Surroundings.none ? Surroundings.none : scalars.next()?.value ?? Surroundings.none
        var isAtStart = true

        while true {
            surroundings.currentIsLast = surroundings.current != Surroundings.none && following == Surroundings.none
            ready.removeAll()
            // Closures are taken here, not when a thread advances, because assertions need this position's surroundings.
            for index in 0..<pending.count {
                if addClosure(of: pending.members[index], to: &ready, stack: &stack, surroundings: surroundings) {
                    return true
                }
            }
            if isAtStart || !program.isAnchoredAtStart {
                // Starting a thread at every position is the unanchored search (an implicit leading .*?).
                if addClosure(of: 0, to: &ready, stack: &stack, surroundings: surroundings) {
                    return true
                }
            }
            let scalar = surroundings.current
            if scalar == Surroundings.none {
                return false
            }
            pending.removeAll()
            for index in 0..<ready.count {
                let programCounter = ready.members[index]
                let instruction = instructions[programCounter]
                let accepts: Bool
                switch instruction.opcode {
                case .scalar:
                    accepts = UInt32(truncatingIfNeeded: instruction.operand) == scalar
                case .scalarSet:
                    accepts = program.sets[instruction.operand].contains(scalar)
                case .anyScalar:
                    accepts = true
                case .anyExceptNewline:
                    accepts = scalar != 0x0A
                case .assertion, .split, .jump, .match:
                    accepts = false
                }
                if accepts {
                    pending.insert(programCounter + 1)
                }
            }
            if pending.count == 0 && program.isAnchoredAtStart {
                return false
            }
            surroundings.previous = scalar
            surroundings.current = following
            following = following == Surroundings.none ? Surroundings.none : scalars.next()?.value ?? Surroundings.none
            isAtStart = false
        }
    }

    /// Adds every instruction reachable from `start` without consuming input; returns true on reaching `match`.
    private func addClosure(
        of start: Int,
        to set: inout SparseSet,
        stack: inout [Int],
        surroundings: Surroundings
    ) -> Bool {
        // An explicit stack, because `(?:a?){1000}` would nest a recursive walk a thousand deep.
        stack.append(start)
        while let programCounter = stack.popLast() {
            guard set.insert(programCounter) else { continue }
            let instruction = program.instructions[programCounter]
            switch instruction.opcode {
            case .match:
                stack.removeAll(keepingCapacity: true)
                return true
            case .jump:
                stack.append(instruction.operand)
            case .split:
                stack.append(instruction.alternate)
                stack.append(instruction.operand)
            case .assertion:
                if surroundings.satisfies(program.assertions[instruction.operand]) {
                    stack.append(programCounter + 1)
                }
            case .scalar, .scalarSet, .anyScalar, .anyExceptNewline:
                break
            }
        }
        return false
    }
}
