import Foundation
import TophhieAuth
import TophhieAgent

/// `profile show`: the signed-in user's profile.
enum ProfileShowCommand: CLICommand {
    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var json: Option<Bool> = .flag("json", help: "print the profile as JSON")
    }

    static let about = CommandAbout(
        path: ["profile", "show"],
        summary: "Show your profile (GET /me)",
        discussion: "example:\n  tophhie-watch profile show")

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let auth = TophhieAuth(configuration: try ConnectionOptions.authConfiguration(options.connection, io: io), transport: io.transport, clock: io.clock)
        let profile = try await auth.getUserProfile()
        if options.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            io.out(ControlCharacterEscaping.hardenJSON(String(decoding: try encoder.encode(profile), as: UTF8.self)) + "\n")
        } else {
            io.out(ProfileText.render(profile))
        }
        return .ok
    }
}

/// `profile set`: change some fields with the nil / "" / value rules.
enum ProfileSetCommand: CLICommand {
    /// Flag name → Graph field, for the ten writable fields.
    static let fieldFlags: [(flag: String, field: String)] = [
        ("display-name", "displayName"), ("given-name", "givenName"), ("surname", "surname"),
        ("job-title", "jobTitle"), ("street-address", "streetAddress"), ("city", "city"),
        ("state", "state"), ("postal-code", "postalCode"), ("country", "country"),
        ("preferred-language", "preferredLanguage"),
    ]

    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        /// One `--display-name TEXT` … per writable field, in `fieldFlags`' order.
        var fields: [Option<String?>] = ProfileSetCommand.fieldFlags.map { .text($0.flag, value: "TEXT", help: "set \($0.field)") }
        var clear: Option<[String]> = .list("clear", value: "FIELD", help: "clear a field (flag or Graph name, e.g. --clear job-title)")
        var listLanguages: Option<Bool> = .flag("list-languages", help: "list the language tags offered for --preferred-language")
    }

    static let about = CommandAbout(
        path: ["profile", "set"],
        summary: "Change profile fields (PATCH /me); untouched fields are never sent",
        discussion: """
        Only the fields you name are sent; --clear sends null for a field. After the change the
        profile is read again and shown as Graph now has it.

        Member (work) accounts need Directory.AccessAsUser.All for these fields: sign in with
        'tophhie-watch login --scopes profile,profile-edit,member-edit' (admin consent required).

        examples:
          tophhie-watch profile set --given-name Jane --surname Smith --city London
          tophhie-watch profile set --preferred-language en-GB --clear job-title
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        if options.listLanguages {
            for language in TophhieLanguages.all { io.out("\(language.tag.padding(toLength: 12, withPad: " ", startingAt: 0))\(language.name)\n") }
            return .ok
        }
        let update = try makeUpdate(options)
        guard update.hasChanges else {
            throw UsageError("nothing to change: name at least one field, e.g. --city London or --clear job-title")
        }
        if let tag = update.preferredLanguage, !tag.isEmpty, !TophhieLanguages.isValidTag(tag) {
            throw UsageError("'\(tag)' is not a BCP-47 language tag such as en-GB; see --list-languages")
        }
        let auth = TophhieAuth(configuration: try ConnectionOptions.authConfiguration(options.connection, io: io), transport: io.transport, clock: io.clock)
        let profile = try await auth.updateProfile(update)
        io.out("Updated: \(update.changes.map { $0.value == nil ? "\($0.field) (cleared)" : $0.field }.joined(separator: ", "))\n\n")
        io.out(ProfileText.render(profile))
        return .ok
    }

    /// The update the flags describe.
    /// - Throws: `UsageError` for an unknown field, or a field both set and cleared.
    static func makeUpdate(_ options: ParsedOptions<Options>) throws -> TophhieProfileUpdate {
        var update = TophhieProfileUpdate()
        let given = options.declared.fields.map { options[$0] }
        for ((flag, field), value) in zip(fieldFlags, given) {
            if let value {
                guard !value.isEmpty else { throw UsageError("--\(flag) needs a value; to clear the field use --clear \(flag)") }
                update.set(field, to: value)
            }
        }
        for name in options.clear {
            guard let index = fieldFlags.firstIndex(where: { $0.flag == name || $0.field == name }) else {
                throw UsageError("cannot clear '\(name)': writable fields are \(fieldFlags.map(\.flag).joined(separator: ", "))")
            }
            let entry = fieldFlags[index]
            if given[index] != nil { throw UsageError("\(entry.flag) is both set and cleared") }
            update.set(entry.field, to: "")
        }
        return update
    }
}

/// The profile as aligned lines; values escaped because a profile field can hold anything.
enum ProfileText {
    static func render(_ profile: TophhieUserProfile) -> String {
        let rows: [(String, String?)] = [
            ("User principal name", profile.userPrincipalName), ("Object id", profile.id),
            ("Display name", profile.displayName), ("Given name", profile.givenName), ("Surname", profile.surname),
            ("Mail", profile.mail), ("Job title", profile.jobTitle), ("Street address", profile.streetAddress),
            ("City", profile.city), ("State", profile.state), ("Postal code", profile.postalCode),
            ("Country", profile.country),
            ("Preferred language", profile.preferredLanguage.map { tag in TophhieLanguages.language(forTag: tag).map { "\(tag) (\($0.name))" } ?? tag }),
        ]
        return rows.map { label, value in
            "\(label + ":")".padding(toLength: 21, withPad: " ", startingAt: 0) + (value.map(ControlCharacterEscaping.escape) ?? "—")
        }.joined(separator: "\n") + "\n"
    }
}
