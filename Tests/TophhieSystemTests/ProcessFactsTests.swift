import Foundation
import Testing
import TophhieSystem

/// What the process knows of itself, read without Foundation's `Bundle.main` (which lists the
/// binary's directory first).
@Suite struct ProcessFactsTests {
    @Test func theExecutableIsWhatTheKernelSays() throws {
        let path = try #require(ProcessFacts.executablePath())
        #expect(path.hasPrefix("/"))
        #expect(path == Bundle.main.executableURL?.resolvingSymlinksInPath().path)
    }
}
