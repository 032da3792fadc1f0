import Foundation
import TophhieJSON
import TophhieRules
import TophhieRulesFast

/// A replay file read whole: the poll timeline, and any file the streamed reader does not take;
/// its errors name the record that is wrong.
enum WholeReplayFile {
    /// The file's polls, each sign-in parsed keeping `projection`.
    /// - Throws: `ReplayFileError` naming the file and what is wrong with it.
    static func read(_ file: String, keeping projection: JSONProjection) throws -> ReplayInput {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ReplayFileError("cannot read '\(file)'")
        }
        do {
            return try ReplayInput(data: data, keeping: projection)
        } catch let error as SignInEventError {
            throw ReplayFileError("\(file): \(error.message)")
        }
    }
}
