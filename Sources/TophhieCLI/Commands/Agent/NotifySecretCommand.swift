import Foundation
import TophhieAgent
import TophhieSystem

/// `notify secret`: a new Standard Webhooks signing secret, printed or written to a 0600 file.
enum NotifySecretCommand: CLICommand {
    struct Options: OptionGroup {
        var file: Option<String?> = .file("file", value: "PATH", help: "write the secret to this new file (0600) instead of printing it")
    }

    static let about = CommandAbout(
        path: ["notify", "secret"],
        summary: "Make a new webhook signing secret (whsec_..., Standard Webhooks)",
        discussion: """
        Prints a new secret of 32 random bytes in Standard Webhooks' form (whsec_ and base64),
        or with --file writes it to a new file readable by its owner only (0600) and prints
        nothing of it. Point the webhook's secret_file at that file (or put the secret in the
        variable secret_env names) and give the receiver the same secret. An existing file is
        never replaced: during a rotation, add the new secret to it beside the old one.

        examples:
          tophhie-watch notify secret --file /etc/tophhie-watch/webhook.secret
          tophhie-watch notify secret
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let secret = WebhookSecret.generate()
        guard let path = options.file else {
            io.out(secret.serialized + "\n")
            return .ok
        }
        let bytes = Array((secret.serialized + "\n").utf8)
        let created = try await BlockingWork.shared.run { () throws -> Bool in
            // Never over a secret a receiver already checks: a rotation keeps the old one beside.
            guard !FileManager.default.fileExists(atPath: path) else { return false }
            try DurableFile.replace(path, with: bytes, mode: 0o600)
            return true
        }
        guard created else {
            throw UsageError("'\(path)' exists: a new secret would replace the one the receiver checks; to rotate, add the new secret to it, space-separated, beside the old one")
        }
        io.out("wrote a new webhook secret to \(path) (0600); give the receiver the same secret\n")
        return .ok
    }
}
