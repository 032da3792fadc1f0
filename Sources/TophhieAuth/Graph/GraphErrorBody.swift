import Foundation
import TophhieJSON

/// Graph's error body:
/// `{"error":{"code":"…","message":"…","innerError":{"date":"…","request-id":"…","client-request-id":"…"}}}`.
/// The code is what code reacts to; the inner ids are what Microsoft support asks for.
enum GraphErrorBody {
    /// `error.code`, when the body is a Graph error.
    static func code(in body: Data) -> String? {
        error(in: body)?["code"]?.stringValue
    }

    /// The string members of `error.innerError` (Graph spells it `innerError`; older services `innererror`).
    static func innerError(in body: Data) -> [String: String]? {
        guard let error = error(in: body), case .object(let inner)? = error["innerError"] ?? error["innererror"] else { return nil }
        return inner.compactMapValues { $0.stringValue }
    }

    private static func error(in body: Data) -> JSONValue? {
        guard let json = try? JSONValue.parse(body), case .object? = json["error"] else { return nil }
        return json["error"]
    }
}
