import Foundation
import Testing
@testable import TophhieCLI

/// Replay's output is gathered into pieces of at least 64 KB, each ending where a line ends,
/// and nothing is lost or reordered, whether a line was written as text or straight into the
/// gathered bytes.
@Suite struct GatheredOutputTests {
    final class Pieces: @unchecked Sendable {
        private let lock = NSLock()
        private var written: [String] = []
        func add(_ piece: String) { lock.withLock { written.append(piece) } }
        var all: [String] { lock.withLock { written } }
    }

    @Test func linesArriveWholeInPiecesOfAtLeast64KBAndInOrder() {
        let pieces = Pieces()
        let output = GatheredOutput(write: pieces.add)
        var expected = ""
        for number in 0..<5_000 {
            let line = "line \(number) é\u{202E} " + String(repeating: "x", count: number % 97) + "\n"
            expected += line
            if number % 3 == 0 {
                output.add(line)
            } else {
                output.add { $0.append(contentsOf: line.utf8) }
            }
        }
        let beforeFlush = pieces.all
        output.flush()
        output.flush()
        let all = pieces.all
        #expect(beforeFlush.count >= 2)
        #expect(beforeFlush.allSatisfy { $0.utf8.count >= 1 << 16 && $0.hasSuffix("\n") })
        #expect(all.count == beforeFlush.count + 1)
        #expect(all.joined() == expected)
    }
}
