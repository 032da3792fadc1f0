/// Lowers a `RegexNode` to a `RegexProgram` (Thompson's construction).
///
/// Counted repetitions are expanded by copying, so the program size is checked
/// first: matching costs O(text × program), and the program must stay small.
struct RegexCompiler {
    /// Keeps the per-scalar cost bounded even for patterns such as `(\w{1000}){20}`.
    static let maximumInstructionCount = 20_000

    private var program = RegexProgram()

    static func compile(_ node: RegexNode) throws -> RegexProgram {
        if try instructionCount(of: node) > maximumInstructionCount {
            throw RegexSyntaxError(
                "the pattern expands beyond \(maximumInstructionCount) steps once its repetitions are copied out; use smaller counts",
                at: 0)
        }
        var compiler = RegexCompiler()
        compiler.emit(node)
        compiler.append(RegexInstruction(opcode: .match))
        compiler.program.isAnchoredAtStart = node.isAnchoredAtStart
        return compiler.program
    }

    /// Instructions `node` will need, throwing at the first repetition that makes the total too large.
    private static func instructionCount(of node: RegexNode) throws -> Int {
        switch node {
        case .empty:
            return 0
        case .scalars, .assertion:
            return 1
        case .concatenation(let items):
            var total = 0
            for item in items {
                total += try instructionCount(of: item)
            }
            return total
        case .alternation(let branches):
            var total = 2 * (branches.count - 1)
            for branch in branches {
                total += try instructionCount(of: branch)
            }
            return total
        case .repetition(let body, let minimum, let maximum, let offset):
            let bodyCount = try instructionCount(of: body)
            let total: Int
            if let maximum {
                total = minimum * bodyCount + (maximum - minimum) * (bodyCount + 1)
            } else {
                total = max(minimum, 1) * bodyCount + 2
            }
            if total > maximumInstructionCount {
                throw RegexSyntaxError(
                    "this repetition expands the pattern beyond \(maximumInstructionCount) steps; use smaller counts or + / *",
                    at: offset)
            }
            return total
        }
    }

    @discardableResult
    private mutating func append(_ instruction: RegexInstruction) -> Int {
        program.instructions.append(instruction)
        return program.instructions.count - 1
    }

    private var nextIndex: Int { program.instructions.count }

    private mutating func emit(_ node: RegexNode) {
        switch node {
        case .empty:
            break
        case .scalars(let set):
            emitScalars(set)
        case .assertion(let assertion):
            program.assertions.append(assertion)
            append(RegexInstruction(opcode: .assertion, operand: program.assertions.count - 1))
        case .concatenation(let items):
            for item in items {
                emit(item)
            }
        case .alternation(let branches):
            var exits: [Int] = []
            for branch in branches.dropLast() {
                let split = append(RegexInstruction(opcode: .split, operand: nextIndex + 1))
                emit(branch)
                exits.append(append(RegexInstruction(opcode: .jump)))
                program.instructions[split].alternate = nextIndex
            }
            if let last = branches.last {
                emit(last)
            }
            for exit in exits {
                program.instructions[exit].operand = nextIndex
            }
        case .repetition(let body, let minimum, let maximum, _):
            emitRepetition(body, minimum: minimum, maximum: maximum)
        }
    }

    private mutating func emitScalars(_ set: ScalarSet) {
        if let scalar = set.singleScalar {
            append(RegexInstruction(opcode: .scalar, operand: Int(scalar)))
        } else if set == ScalarSet.all {
            append(RegexInstruction(opcode: .anyScalar))
        } else if set == ScalarSet(0x0A).inverted() {
            append(RegexInstruction(opcode: .anyExceptNewline))
        } else {
            program.sets.append(set)
            append(RegexInstruction(opcode: .scalarSet, operand: program.sets.count - 1))
        }
    }

    private mutating func emitRepetition(_ body: RegexNode, minimum: Int, maximum: Int?) {
        guard let maximum else {
            if minimum == 0 {
                // L: split(body, exit); body; jump L
                let loop = append(RegexInstruction(opcode: .split, operand: nextIndex + 1))
                emit(body)
                append(RegexInstruction(opcode: .jump, operand: loop))
                program.instructions[loop].alternate = nextIndex
            } else {
                for _ in 0..<(minimum - 1) {
                    emit(body)
                }
                // L: body; split(L, exit)
                let loop = nextIndex
                emit(body)
                append(RegexInstruction(opcode: .split, operand: loop, alternate: nextIndex + 1))
            }
            return
        }
        for _ in 0..<minimum {
            emit(body)
        }
        // Optional copies: skipping one skips the rest, so every split exits to the common end.
        var skips: [Int] = []
        for _ in minimum..<maximum {
            skips.append(append(RegexInstruction(opcode: .split, operand: nextIndex + 1)))
            emit(body)
        }
        for skip in skips {
            program.instructions[skip].alternate = nextIndex
        }
    }
}
