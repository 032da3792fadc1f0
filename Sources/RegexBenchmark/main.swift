// Times one (engine, pattern, size) run so the calling script can put a timeout around ICU.
// Usage: RegexBenchmark linear|icu nested|dotstar|alternation SIZE
import Foundation
import TophhieRegex

struct Workload {
    var pattern: String
    var value: String
}

func workload(named name: String, size: Int) -> Workload? {
    switch name {
    case "nested":
        // The classic catastrophic case: no match, so a backtracker tries every split of the run of a's.
        return Workload(pattern: "(a+)+$", value: String(repeating: "a", count: size - 1) + "!")
    case "dotstar":
        // "python" but no "requests": every start position fails only after scanning to the end.
        return Workload(pattern: ".*python.*requests.*", value: "python" + String(repeating: "x", count: size - 6))
    case "alternation":
        return Workload(pattern: "^(a|b)*$", value: String(repeating: "ab", count: size / 2))
    default:
        return nil
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let size = Int(arguments[3]), let work = workload(named: arguments[2], size: size) else {
    print("usage: RegexBenchmark linear|icu nested|dotstar|alternation SIZE")
    exit(2)
}

let clock = ContinuousClock()
var matched = false
let elapsed: Duration
switch arguments[1] {
case "linear":
    let regex = try LinearRegex(work.pattern)
    elapsed = clock.measure { matched = regex.matches(work.value) }
case "icu":
    let regex = try NSRegularExpression(pattern: work.pattern)
    let range = NSRange(work.value.startIndex..., in: work.value)
    elapsed = clock.measure { matched = regex.firstMatch(in: work.value, range: range) != nil }
default:
    print("unknown engine \(arguments[1])")
    exit(2)
}
let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
print(String(format: "%.1f ms, matched: %@", milliseconds, matched ? "true" : "false"))
