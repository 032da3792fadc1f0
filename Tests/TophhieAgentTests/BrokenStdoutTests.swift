import Foundation
import Testing
import TophhieSystem
@testable import TophhieAgent

/// `poll > /dev/full` and `poll | head`: the stdout notifier reports the failure, keeps the alert
/// queued, and the other notifiers still get it.
@Suite(.serialized, .timeLimit(.minutes(20))) struct BrokenStdoutTests {
    @Test func aFullDiskIsATransientFailureNotACrash() async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let fd = full.fileDescriptor
        let notifier = StdoutNotifier(write: { line in try StandardStream.write(line, to: fd) })
        await #expect(throws: NotifierError.transient("stdout: cannot write to descriptor \(fd): No space left on device")) {
            try await notifier.deliver(NotifierTestAlerts.alert())
        }
        try full.close()
    }

    @Test func aClosedPipeIsATransientFailureNotASIGPIPE() async throws {
        StandardStream.ignoreBrokenPipes()
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let fd = pipe.fileHandleForWriting.fileDescriptor
        let notifier = StdoutNotifier(write: { line in try StandardStream.write(line, to: fd) })
        await #expect(throws: NotifierError.transient("stdout: cannot write to descriptor \(fd): Broken pipe")) {
            try await notifier.deliver(NotifierTestAlerts.alert())
        }
    }

    @Test func otherNotifiersStillGetTheAlertAndStdoutKeepsItQueued() async throws {
        let dir = TemporaryStateDirectory()
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let fd = full.fileDescriptor
        let stdout = StdoutNotifier(name: "stdout", write: { line in try StandardStream.write(line, to: fd) })
        let recorder = RecordingNotifier(name: "webhook")
        let dispatch = try OutboxDispatch(stateDirectory: URL(fileURLWithPath: dir.path), notifiers: [(stdout, NotifierRoute()), (recorder, NotifierRoute())],
                                          now: { Date(timeIntervalSince1970: 1_764_680_000) }, sleep: { _ in }, random: { 0 })
        let alert = NotifierTestAlerts.alert(id: "a-1")
        try await dispatch.append([alert])
        let reports = await dispatch.deliverPending()
        #expect(await recorder.deliveredIDs == ["a-1"])
        let stdoutReport = try #require(reports.first { $0.notifier == "stdout" })
        #expect(stdoutReport.delivered == 0 && stdoutReport.pending == 1)
        #expect(stdoutReport.lastError == "stdout: cannot write to descriptor \(fd): No space left on device")
        try full.close()
    }
}
