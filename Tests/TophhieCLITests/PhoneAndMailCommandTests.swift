import Foundation
import Testing
import LoopbackHTTP
@testable import TophhieCLI

/// `notify test` and `doctor` over the phone presets and email: the token set, sendmail present
/// and executable, https except to loopback; no token in anything printed.
@Suite(.serialized, .timeLimit(.minutes(20))) struct PhoneAndMailCommandTests {
    static let telegramToken = "123456:AAH-secret-bot-token"

    func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-phone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    func sendmail(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("sendmail").path
        try "#!/bin/sh\ncat > '\(folder.path)/mail.txt'\nexit 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    func run(_ arguments: [String], _ environment: [String: String]) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: environment))
        return (code, recorder)
    }

    @Test func notifyTestSendsThroughEachAndNamesWhatIsMissing() async throws {
        let received = ReceivedBodies()
        let server = LoopbackHTTPServer { request in
            received.add(request)
            return .text(200, #"{"ok":true}"#)
        }
        let port = try server.start()
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.yml")
        try """
        tenant: contoso.onmicrosoft.com
        client_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c
        notifiers:
          - name: phone
            type: webhook
            preset: ntfy
            url: http://127.0.0.1:\(port)/my-long-random-topic
          - name: telegram
            type: webhook
            preset: telegram
            url: http://127.0.0.1:\(port)
            token_env: TELEGRAM_BOT_TOKEN
            chat_id: "123456789"
          - name: gotify
            type: webhook
            preset: gotify
            url: http://127.0.0.1:\(port)/message
            token_env: GOTIFY_TOKEN
          - name: mail
            type: email
            to: jane@example.com
            sendmail: \(try sendmail(in: folder))
          - name: nomail
            type: email
            to: jane@example.com
            sendmail: \(folder.path)/no-sendmail
        """.write(to: config, atomically: true, encoding: .utf8)
        let (code, output) = await run(["notify", "test", "--config", config.path], ["TELEGRAM_BOT_TOKEN": Self.telegramToken])
        #expect(code == .usage, "two notifiers are misconfigured")
        #expect(output.err.contains("phone (webhook): delivered\n"), "\(output.err)")
        #expect(output.err.contains("telegram (webhook): delivered\n"))
        #expect(output.err.contains("gotify (webhook): NOT SENT — \(config.path):14:5: error: notifier 'gotify': the environment variable GOTIFY_TOKEN named by token_env is not set\n"), "\(output.err)")
        #expect(output.err.contains("mail (email): delivered\n"))
        #expect(output.err.contains("nomail (email): NOT SENT — notifier 'nomail': sendmail cannot run: \(folder.path)/no-sendmail: No such file or directory; install one (msmtp-mta, postfix, exim4 or nullmailer) or point 'sendmail' at it\n"), "\(output.err)")
        #expect(!output.err.contains(Self.telegramToken) && !output.out.contains(Self.telegramToken))
        let paths = received.all.map(\.path)
        #expect(paths == ["/", "/bot\(Self.telegramToken)/sendMessage"], "\(paths.count)")
        let mail = try String(contentsOfFile: folder.path + "/mail.txt", encoding: .utf8)
        #expect(mail.contains("\nSubject: [HIGH] Burst of failed sign-ins (test alert) - jane@contoso[.]com\n"), "\(mail)")
        await server.stop()
    }

    @Test func doctorChecksSendmailAndSaysTheTokenIsSet() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.yml")
        let environment = ["TOPHHIE_STATE_DIR": folder.path, "TELEGRAM_BOT_TOKEN": Self.telegramToken]
        try """
        tenant: contoso.onmicrosoft.com
        client_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c
        notifiers:
          - name: telegram
            type: webhook
            preset: telegram
            url: https://api.telegram.org
            token_env: TELEGRAM_BOT_TOKEN
            chat_id: "123456789"
          - name: mail
            type: email
            to: [jane@example.com, sec@example.org]
            from: watch@example.com
            sendmail: \(try sendmail(in: folder))
          - name: nomail
            type: email
            to: jane@example.com
            sendmail: \(folder.path)/plain
        """.write(to: config, atomically: true, encoding: .utf8)
        try "not a program".write(toFile: folder.path + "/plain", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder.path + "/plain")
        let (code, doctor) = await run(["doctor", "--config", config.path, "--rules", RulesTestPaths.rules], environment)
        #expect(code == .usage)
        #expect(doctor.out.contains("  ok    notifier telegram (webhook): options and secrets readable; telegram to https://api.telegram.org/…, token set (never shown)\n"), "\(doctor.out)")
        #expect(doctor.out.contains("  ok    notifier mail (email): options and secrets readable; \(folder.path)/sendmail is executable; runs as: sendmail -i -f watch@example.com -- jane@example.com sec@example.org\n"), "\(doctor.out)")
        #expect(doctor.out.contains("  FAIL  notifier nomail (email): sendmail cannot run: \(folder.path)/plain is not executable (mode 644); install one (msmtp-mta, postfix, exim4 or nullmailer) or point 'sendmail' at it\n"), "\(doctor.out)")
        #expect(!doctor.out.contains(Self.telegramToken))
        // Plain http to anything but loopback is refused.
        try """
        tenant: contoso.onmicrosoft.com
        client_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c
        notifiers:
          - name: phone
            type: webhook
            preset: ntfy
            url: http://ntfy.example.com/topic
        """.write(to: config, atomically: true, encoding: .utf8)
        let (httpCode, http) = await run(["doctor", "--config", config.path, "--rules", RulesTestPaths.rules], environment)
        #expect(httpCode == .usage)
        #expect(http.out.contains("  FAIL  notifier phone (webhook): \(config.path):4:5: error: notifier 'phone': the webhook URL must use https (plain http is allowed only to 127.0.0.1 or localhost, not ntfy.example.com)"), "\(http.out)")
    }
}
