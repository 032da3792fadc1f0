import Foundation
import TophhieSystem

/// A Graph reply with the ids that name its request, for error messages.
struct GraphReply: Sendable {
    let http: HTTPReply
    let ids: GraphRequestIDs

    var status: Int { http.status }
    var body: Data { http.body }
}
