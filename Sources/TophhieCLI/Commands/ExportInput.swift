import Foundation
import TophhieReplay
import TophhieSystem

/// `--input FORMAT` and `--strict` for the commands that read sign-in files (`replay`,
/// `rules match`): an export that is not Graph's own shape is read as Graph's records first.
struct ExportInput: OptionGroup {
    var format: Option<ExportFormat?> = .choice("input", among: ExportFormat.allCases, value: "graph|azure-monitor|log-analytics|csv", takes: ExportFormat.allCases.map(\.rawValue).joined(separator: ", "), help: "read FILE as this format instead of telling it from the content")
    var strict: Option<Bool> = .flag("strict", help: "stop at the first record the agent would skip, instead of skipping it and saying so; a rule warning (one that could never fire) is an error too")

    static let discussion = """
        FILE may also be an export, told apart by its content: Azure Monitor diagnostic records
        ({"records":[{"category":"SignInLogs","properties":{…}}]}, an array or JSON lines of
        them), a Log Analytics / Sentinel result over SigninLogs or AADNonInteractiveUserSignInLogs
        as JSON or CSV (dynamic columns as JSON text), or Graph PowerShell's ConvertTo-Json output;
        the Entra admin center's JSON download is Graph's shape already. A UTF-8 BOM is ignored.
        Each record is read by the decoder the live poll uses: one it would skip is skipped here
        too and named on standard error (--strict stops at it instead). A file whose records are
        none of them sign-ins (an audit log, another table) is refused, naming what it holds.
        Rule warnings (a rule that could never fire) are printed as 'rules check' prints them;
        --strict makes them an error.
        """

    /// A message about the scratch file an export was converted to, naming the user's file
    /// instead: the scratch file is gone when the command ends, and was never theirs.
    static func naming(_ file: String, in message: String, for export: ExportConversion?) -> String {
        guard let export, !export.path.isEmpty else { return message }
        return message.replacingOccurrences(of: export.path, with: file)
    }

    /// The file to read: `file` itself, a scratch file of Graph records made from the export,
    /// or with `streaming`, the export itself, its records checked and indexed (`index`).
    /// - Parameter checkingFirst: false leaves the records of a file of Graph's own shape (nil is
    ///   returned for it unread) and of a Log Analytics export to be checked as they are replayed
    ///   (`ExportConversion.convert`).
    /// - Throws: `UsageError` for a file that is no format (naming those tried).
    static func prepare(_ file: String, options: ParsedOptions<ExportInput>, io: CommandIO, command: String, streaming: Bool = false,
                        checkingFirst: Bool = true) async throws -> ExportConversion? {
        let forced = options.format
        let conversion: ExportConversion?
        let strict = options.strict
        let scratch = io.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        do {
            // Reading and writing files: on the blocking pool, not Swift's cooperative one.
            let format = forced
            conversion = try await BlockingWork.shared.run {
                try ExportConversion.convert(file: file, format: format, strict: strict, scratch: scratch, streaming: streaming, checkingFirst: checkingFirst)
            }
        } catch let error as ReplayFileError {
            throw UsageError(error.message)
        }
        // Records still to be checked are told of once they are (`tell`).
        if let conversion, conversion.index?.checked != false { tell(conversion, file: file, io: io, command: command) }
        return conversion
    }

    /// What reading an export came to: its records, and each one skipped.
    static func tell(_ conversion: ExportConversion, file: String, io: CommandIO, command: String) {
        io.err("\(command): read \(file) as \(conversion.format.rawValue): \(conversion.records) sign-in(s)\(conversion.skipped.isEmpty ? "" : ", \(conversion.skipped.count) skipped")\(conversion.coordinatesDropped > 0 ? "; \(conversion.coordinatesDropped) with coordinates out of range, kept without them" : "")\n")
        for sentence in conversion.skipped { io.err("\(command): \(sentence)\n") }
    }
}
