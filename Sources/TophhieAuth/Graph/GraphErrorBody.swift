import Foundation

/// Graph's error body: `{"error":{"code":"…","message":"…"}}`. The code is what code reacts to.
struct GraphErrorBody: Decodable {
    struct Inner: Decodable {
        let code: String?
        let message: String?
    }
    let error: Inner

    static func code(in body: Data) -> String? {
        (try? JSONDecoder().decode(GraphErrorBody.self, from: body))?.error.code
    }
}
