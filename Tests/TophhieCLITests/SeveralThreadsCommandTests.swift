import Testing
@testable import TophhieCLI

/// `main` keeps glibc's malloc heap per thread only for the commands that read a file on several
/// threads at once; every other command, the agent above all, is limited to one heap.
@Suite struct SeveralThreadsCommandTests {
    @Test(arguments: [
        ["replay", "signins.json", "--rules", "rules"],
        ["rules", "match", "signins.json"],
        ["report", "signins.json", "--format", "html"],
    ])
    func aFileReadOnSeveralThreadsKeepsAHeapPerThread(arguments: [String]) {
        #expect(TophhieCommandLine.readsOnSeveralThreads(arguments))
    }

    @Test(arguments: [
        ["run"], ["poll"], ["login"], ["rules", "check", "rules"], ["rules", "test"], ["history"],
        ["--version"], ["help", "replay"], [], ["replayed"],
    ])
    func everyOtherCommandHasOneHeap(arguments: [String]) {
        #expect(!TophhieCommandLine.readsOnSeveralThreads(arguments))
    }
}
