import Foundation
import Testing
import LoopbackHTTP
import TophhieAgent
@testable import TophhieCLI

/// `notify test` over real sockets: a loopback webhook receiver and a syslog port nobody serves.
@Suite(.serialized, .timeLimit(.minutes(20))) struct NotifyTestCommandTests {
    @Test func eachNotifierIsTriedAndItsResultReported() async throws {
        let received = ReceivedBodies()
        let server = LoopbackHTTPServer { request in
            received.add(request)
            return .empty(204)
        }
        let port = try server.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-notify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.yml")
        try """
        tenant: contoso.onmicrosoft.com
        client_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c
        notifiers:
          - name: console
            type: stdout
            format: json
          - name: hook
            type: webhook
            url: http://127.0.0.1:\(port)/alerts
            secret_env: HOOK_SECRET
          - name: dead
            type: syslog
            transport: tcp
            address: 127.0.0.1:9
        """.write(to: config, atomically: true, encoding: .utf8)
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(["notify", "test", "--config", config.path], io: recorder.io(environment: ["HOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]))
        #expect(code == .failure, "one notifier failed")
        #expect(recorder.err.contains("console (stdout): delivered"))
        #expect(recorder.err.contains("hook (webhook): delivered"))
        #expect(recorder.err.contains("dead (syslog): FAILED"))
        #expect(recorder.out.contains("\"rule\":{\"author\":\"Tophhie Watch\""))
        let request = try #require(received.all.first)
        #expect(request.header("webhook-signature")?.hasPrefix("v1,") == true)
        #expect(request.header("webhook-id")?.hasPrefix("test-") == true)
        #expect(!recorder.err.contains("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") && !recorder.out.contains("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        await server.stop()
    }
}

@Suite(.timeLimit(.minutes(20))) struct NotifierWarningTests {
    @Test func rfc5424ToTheLocalSocketIsAcceptedWithAWarningAtItsEntry() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-warn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.yml")
        try """
        tenant: contoso.onmicrosoft.com
        client_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c
        notifiers:
          - name: local
            type: syslog
            format: rfc5424
            address: \(folder.path)/no-socket
          - name: remote
            type: syslog
            transport: udp
            format: rfc5424
            address: 127.0.0.1:9
        """.write(to: config, atomically: true, encoding: .utf8)
        let recorder = CommandOutputRecorder()
        _ = await TophhieCommandLine.run(["notify", "test", "--config", config.path], io: recorder.io(environment: [:]))
        let warnings = recorder.err.split(separator: "\n").filter { $0.contains("warning:") }
        #expect(warnings.count == 1, "\(recorder.err)")
        #expect(warnings.first?.hasPrefix("\(config.path):4:") == true, "\(warnings)")
        #expect(warnings.first?.contains("warning: notifier 'local': format rfc5424 to the local socket \(folder.path)/no-socket: rsyslog's imuxsock") == true, "\(warnings)")
    }
}

final class ReceivedBodies: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [HTTPRequest] = []
    func add(_ request: HTTPRequest) { lock.withLock { requests.append(request) } }
    var all: [HTTPRequest] { lock.withLock { requests } }
}

@Suite(.timeLimit(.minutes(20))) struct ConnectionOptionsTests {
    @Test func systemdStateDirectoryIsOnlyADefault() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-opts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.yml")
        try "tenant: contoso.onmicrosoft.com\nclient_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c\nstate_dir: /srv/tophhie\n".write(to: config, atomically: true, encoding: .utf8)
        let fromFile = try ConnectionOptions.agentConfiguration(try ParsedOptions<ConnectionOptions>(parsing: ["--config", config.path]), io: CommandIO(out: { _ in }, err: { _ in }, environment: ["STATE_DIRECTORY": "/var/lib/tophhie-watch"]))
        #expect(fromFile.stateDirectory.path == "/srv/tophhie")
        let fromFlag = try ConnectionOptions.agentConfiguration(try ParsedOptions<ConnectionOptions>(parsing: ["--config", config.path, "--state-dir", "/tmp/x"]), io: CommandIO(out: { _ in }, err: { _ in }, environment: ["STATE_DIRECTORY": "/var/lib/tophhie-watch"]))
        #expect(fromFlag.stateDirectory.path == "/tmp/x")
        let noFile = try ConnectionOptions.agentConfiguration(try ParsedOptions<ConnectionOptions>(parsing: []), io: CommandIO(out: { _ in }, err: { _ in }, environment: ["STATE_DIRECTORY": "/var/lib/tophhie-watch"]))
        #expect(noFile.stateDirectory.path == "/var/lib/tophhie-watch")
    }
}

@Suite(.timeLimit(.minutes(20))) struct OutboxRepairLogTests {
    /// An outbox line that cannot be read is skipped on open, and the poll's log says so.
    @Test func aRepairedOutboxIsNamedInTheLog() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-repair-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        try FileManager.default.createDirectory(at: state.appendingPathComponent("outbox"), withIntermediateDirectories: true)
        let queue = state.appendingPathComponent("outbox/stdout.jsonl")
        try Data("{not json}\n".utf8).write(to: queue)
        let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("rules").path
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(["poll"], io: recorder.io(environment: [
            "TOPHHIE_TENANT": "contoso.onmicrosoft.com", "TOPHHIE_CLIENT_ID": "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c", "TOPHHIE_STATE_DIR": state.path, "TOPHHIE_RULES": rules,
        ], transport: AccountCommandTests.noNetwork))
        #expect(code == .signInNeeded, "\(recorder.err)")
        #expect(recorder.err.contains("outbox repaired: \(queue.path):1: skipped an unreadable line (10 bytes)"), "\(recorder.err)")
    }
}

/// `notify secret`: a new Standard Webhooks secret, printed or written 0600, never over one.
@Suite struct NotifySecretCommandTests {
    func run(_ arguments: [String]) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: [:]))
        return (code, recorder)
    }

    @Test func printsANewSecretOf32Bytes() async throws {
        let (code, first) = await run(["notify", "secret"])
        let (_, second) = await run(["notify", "secret"])
        #expect(code == .ok)
        let text = first.out.trimmingCharacters(in: .newlines)
        #expect(text.hasPrefix("whsec_"))
        #expect(Data(base64Encoded: String(text.dropFirst(6)))?.count == 32)
        #expect(first.out != second.out, "each is new")
        #expect(try WebhookSecret(parsing: text).serialized == text)
    }

    @Test func writesItToANewFileReadableByItsOwnerOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-secret-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/webhook.secret"
        let (code, made) = await run(["notify", "secret", "--file", path])
        #expect(code == .ok, "\(made.err)")
        let secret = try String(contentsOfFile: path, encoding: .utf8)
        #expect(secret.hasPrefix("whsec_") && secret.hasSuffix("\n"))
        #expect(!made.out.contains(secret.trimmingCharacters(in: .newlines)), "the secret is not printed")
        #expect(made.out == "wrote a new webhook secret to \(path) (0600); give the receiver the same secret\n")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let (again, refused) = await run(["notify", "secret", "--file", path])
        #expect(again == .usage)
        #expect(refused.err.hasPrefix("tophhie-watch notify secret: '\(path)' exists: a new secret would replace the one the receiver checks; to rotate, add the new secret to it, space-separated, beside the old one\n"), "\(refused.err)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == secret, "left as it was")
    }
}
