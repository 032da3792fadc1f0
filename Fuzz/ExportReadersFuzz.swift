// libFuzzer harness over the export readers (built by scripts/fuzz-exports.sh, not by CI).
// Each input is written to a file and read every way an export is read: told apart by its
// content, forced as each JSON format through a window of a few dozen bytes (records cut apart),
// and as CSV a row at a time. Refusals are answers; only a crash (a trap, an ASan report) is a
// finding.
import Foundation
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast
@testable import TophhieReplay

/// The pack's rules (the run's folder is the repository's), for replaying an export from itself.
let engine = Engine(rules: RuleLoader.load((try? RuleSource.read(paths: ["rules"])) ?? []))

/// This run's folder: the input's file and the readers' scratch files, removed as they go.
let folder: String = {
    let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("tophhie-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    // Gone when the run ends (libFuzzer exits; a crash leaves it, beside its crash input).
    atexit { try? FileManager.default.removeItem(atPath: folder) }
    return path
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = start.map { Data(bytes: $0, count: count) } ?? Data()
    // The admin center's download says its stream in its name.
    let file = (folder as NSString).appendingPathComponent(count % 2 == 0 ? "input.json" : "NonInteractiveSignIns_input.csv")
    guard FileManager.default.createFile(atPath: file, contents: bytes) else { return 0 }
    defer { try? FileManager.default.removeItem(atPath: file) }
    func read(_ conversion: () throws -> ExportConversion?) {
        (try? conversion())??.remove()
    }
    read { try ExportConversion.convert(file: file, format: nil, strict: false, scratch: folder) }
    for format in [ExportFormat.azureMonitor, .logAnalytics] {
        read { try StreamedExport.convert(file: file, format: format, strict: false, scratch: folder, chunkSize: 61) }
    }
    for format in [ExportFormat.csv, .adminCenterCSV] {
        read { try StreamedExport.convertCSV(file: file, format: format, strict: false, scratch: folder, chunkSize: 53) }
    }
    read { try StreamedExport.checkGraph(file: file, strict: false, scratch: folder, chunkSize: 61) }
    // Replayed from itself: the records kept indexed (spilled every 7), read back, mapped and
    // handed to the engine.
    func replay(_ conversion: () throws -> ExportConversion?) {
        guard let conversion = try? conversion(), let index = conversion.index else { return }
        _ = try? StreamedReplay(file: index.file, layout: .document, latest: index.latest, order: index.order(), reading: index.reading).evaluate(engine)
    }
    for format in [ExportFormat.azureMonitor, .logAnalytics] {
        replay { try StreamedExport.convert(file: file, format: format, strict: false, scratch: folder, streaming: true, chunkSize: 61, indexSpillLimit: 7) }
    }
    for format in [ExportFormat.csv, .adminCenterCSV] {
        replay { try StreamedExport.convertCSV(file: file, format: format, strict: false, scratch: folder, streaming: true, chunkSize: 53) }
    }
    // The splitter alone, in every layout, a few bytes at a time.
    for layout in [JSONElementSplitter.Layout.document, .lines, .timeline, .table] {
        var splitter = JSONElementSplitter(layout: layout, maxRecordLength: 1 << 16, wrappers: ["value", "records"])
        var at = 0
        while at < bytes.count {
            let piece = bytes[at..<min(at + 3, bytes.count)]
            let fed: Bool = piece.withUnsafeBytes { chunk in
                (try? splitter.feed(chunk, columns: { _, _ in }, record: { _, record in _ = try? JSONValue.parse(record) })) != nil
            }
            if !fed { break }
            at += 3
        }
        if at >= bytes.count { try? splitter.finish(record: { _, _ in }) }
    }
    return 0
}
