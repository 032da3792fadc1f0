import Foundation
@testable import LoopbackHTTP
import Testing

@Suite("HTTPRequestDecoder", .timeLimit(.minutes(20)))
struct DecoderTests {
    @Test func requestArrivingOneByteAtATimeIsAssembled() throws {
        var decoder = HTTPRequestDecoder()
        let bytes = Array("POST /a%2Fb?x=1 HTTP/1.1\r\nHost: h\r\ncontent-length: 5\r\n\r\nhello".utf8)
        var result: HTTPRequest?
        for (index, byte) in bytes.enumerated() {
            switch decoder.consume([byte][...]) {
            case .needMoreBytes: continue
            case .complete(let request):
                #expect(index == bytes.count - 1)
                result = request
            case let other: Issue.record("unexpected \(other)")
            }
        }
        let request = try #require(result)
        #expect(request.method == "POST")
        #expect(request.path == "/a/b")
        #expect(request.query == ["x": "1"])
        #expect(request.header("Content-Length") == "5")
        #expect(request.body == Data("hello".utf8))
    }

    @Test func expectContinueAsksForTheInterimReplyOnce() {
        var decoder = HTTPRequestDecoder()
        let head = Array("PUT / HTTP/1.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n".utf8)
        guard case .sendContinue = decoder.consume(head[...]) else {
            Issue.record("expected sendContinue")
            return
        }
        guard case .needMoreBytes = decoder.consume(Array("a".utf8)[...]) else {
            Issue.record("expected needMoreBytes")
            return
        }
        guard case .complete(let request) = decoder.consume(Array("bc".utf8)[...]) else {
            Issue.record("expected complete")
            return
        }
        #expect(request.body == Data("abc".utf8))
    }

    @Test func absoluteFormTargetKeepsPathAndQuery() {
        let request = HTTPRequest(method: "GET", target: "http://127.0.0.1:9/v1.0/me?$select=id,city")
        #expect(request.path == "/v1.0/me")
        #expect(request.query == ["$select": "id,city"])
    }

    @Test func formFieldsSkipMalformedPairsAndReadPlusAsSpace() {
        let request = HTTPRequest(method: "POST", target: "/", body: Data("a=1&b=%zz&c=x+y%21&flag".utf8))
        #expect(request.formFields() == ["a": "1", "c": "x y!", "flag": ""])
    }

    @Test func headerLookupIgnoresCase() {
        let request = HTTPRequest(method: "GET", target: "/", headers: [("X-One", "1"), ("x-one", "2")])
        #expect(request.header("x-ONE") == "1")
        #expect(request.headerValues("X-One") == ["1", "2"])
        #expect(request.header("missing") == nil)
    }
}
