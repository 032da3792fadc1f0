import Foundation
import TophhieSystem

/// Every session of the account revoked (`respond --revoke-sessions`): when, and the alert that
/// prompted it. Kept in its own file, `<state>/sessions-revoked.json` (0600), written whole by
/// `respond` without the state lock a running daemon holds, and read by every poll: a sign-in
/// older than it is dead, so the poll says sign-in needed at once.
public struct SessionRevocation: Codable, Sendable, Equatable {
    public var at: Date
    public var alertID: String?

    public init(at: Date, alertID: String?) {
        self.at = at
        self.alertID = alertID
    }

    static func path(_ stateDirectory: URL) -> String { stateDirectory.appendingPathComponent("sessions-revoked.json").path }

    /// The last revocation recorded in `stateDirectory`; nil when none (or the file is unreadable:
    /// a poll then goes on as before, and the refresh token's refusal says the same later).
    public static func read(stateDirectory: URL) -> SessionRevocation? {
        guard let data = FileManager.default.contents(atPath: path(stateDirectory)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(SessionRevocation.self, from: data)
    }

    /// Records this revocation, replacing the file atomically.
    /// - Throws: `FileError` when it cannot be written.
    public func write(stateDirectory: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        try DurableFile.replace(Self.path(stateDirectory), with: Array(try encoder.encode(self)), mode: 0o600)
    }
}
