import Foundation
import Testing
@testable import TophhieAgent

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

private func bytes(hex text: String) -> [UInt8] {
    var out: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        out.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return out
}

/// A deterministic byte pattern; its digests were computed with Python's hashlib.
private func pattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(($0 * 7 + 3) % 256) }
}

@Suite(.timeLimit(.minutes(20))) struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func nistVectors(message: String, digest: String) {
        #expect(hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func oneMillionA() {
        #expect(hex(SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000))) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: [
        (55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"),
        (56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"),
        (63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"),
        (64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"),
        (65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"),
        (119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"),
        (120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"),
        (128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"),
    ])
    func paddingBoundaries(length: Int, digest: String) {
        #expect(hex(SHA256.hash(pattern(length))) == digest)
    }

    @Test func splitInputGivesTheSameDigest() {
        let message = pattern(300)
        let whole = SHA256.hash(message)
        for split in [0, 1, 55, 63, 64, 65, 128, 299, 300] {
            var hasher = SHA256()
            hasher.update(message[0..<split])
            hasher.update(message[split...])
            #expect(hasher.finalize() == whole, "split at \(split)")
        }
    }
}

@Suite(.timeLimit(.minutes(20))) struct HMACSHA256Tests {
    static let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (bytes(hex: "0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        ([UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8),
         "a3b6167473100ee06e0c796c2955552bfa6f7c0a6a8aef8b93f860aab0cd20c5"),
        ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ([UInt8](repeating: 0xaa, count: 131),
         Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: 0..<7)
    func rfc4231(caseIndex: Int) {
        let c = Self.cases[caseIndex]
        #expect(hex(HMACSHA256.authenticationCode(key: c.key, message: c.data)) == c.mac, "RFC 4231 case \(caseIndex + 1)")
    }

    @Test func rfc4231Case5TruncatedForm() {
        let c = Self.cases[4]
        #expect(hex(Array(HMACSHA256.authenticationCode(key: c.key, message: c.data).prefix(16))) == "a3b6167473100ee06e0c796c2955552b")
    }

    @Test func constantTimeEqual() {
        #expect(HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2]))
    }
}

@Suite(.timeLimit(.minutes(20))) struct StandardWebhookSignatureTests {
    static let officialSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    @Test func specificationVector() throws {
        let secret = try WebhookSecret(parsing: Self.officialSecret)
        #expect(secret.keyBytes.count == 24)
        let signature = StandardWebhookSignature.sign(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330,
                                                      body: Array(#"{"test": 2432232314}"#.utf8), secret: secret)
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func specificationExamplePayload() throws {
        let secret = try WebhookSecret(parsing: Self.officialSecret)
        let body = #"{"type":"contact.created","timestamp":"2022-11-03T20:26:10.344522Z","data":{"id":"1f81eb52-5198-4599-803e-771906343485"}}"#
        let signature = StandardWebhookSignature.sign(id: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", timestamp: 1674087231, body: Array(body.utf8), secret: secret)
        #expect(signature == "v1,ARw42xaAApl/nxRo+iPGYwSaMQaOwMo2eyH5JBRA+bQ=")
    }

    @Test func paddedThirtyTwoByteSecret() throws {
        let secret = try WebhookSecret(parsing: "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
        #expect(secret.keyBytes == Array(0..<32))
        let signature = StandardWebhookSignature.sign(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330,
                                                      body: Array(#"{"test": 2432232314}"#.utf8), secret: secret)
        #expect(signature == "v1,O4Gjv1HqPqsMrjmczoggs/sWA8gZD0VyHG+fLh4+ktI=")
        // The same secret without its padding decodes to the same key.
        let unpadded = try WebhookSecret(parsing: "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
        #expect(unpadded.keyBytes == secret.keyBytes)
    }

    @Test func verifyAcceptsMatchAndSkipsOthers() throws {
        let secret = try WebhookSecret(parsing: Self.officialSecret)
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
        #expect(StandardWebhookSignature.verify(header: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", id: id, timestamp: 1614265330, body: body, secret: secret))
        #expect(!StandardWebhookSignature.verify(header: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=", id: id, timestamp: 1614265330, body: body, secret: secret))
        #expect(StandardWebhookSignature.verify(header: "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,xyz v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", id: id, timestamp: 1614265330, body: body, secret: secret))
        #expect(!StandardWebhookSignature.verify(header: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", id: id, timestamp: 1614265331, body: body, secret: secret))
    }

    @Test func aBareBase64SecretIsAcceptedAsTheReferenceLibrariesDo() throws {
        let bare = try WebhookSecret(parsing: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        #expect(bare.keyBytes == (try WebhookSecret(parsing: Self.officialSecret)).keyBytes)
    }

    @Test func duringARotationEverySecretSignsAndEitherVerifies() throws {
        let secrets = try WebhookSecret.list(parsing: "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8= \n " + Self.officialSecret)
        #expect(secrets.count == 2)
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let header = StandardWebhookSignature.sign(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330, body: body, secrets: secrets)
        #expect(header == "v1,O4Gjv1HqPqsMrjmczoggs/sWA8gZD0VyHG+fLh4+ktI= v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        for secret in secrets {
            #expect(StandardWebhookSignature.verify(header: header, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330, body: body, secret: secret))
        }
        #expect(throws: WebhookSecretError.notBase64) { try WebhookSecret.list(parsing: Self.officialSecret + " whsec_!!!!") }
        #expect(throws: WebhookSecretError.empty) { try WebhookSecret.list(parsing: "  ") }
    }

    @Test(arguments: [
        ("hunter2-is-my-password", WebhookSecretError.missingPrefix),
        ("MfKQ9r8G", .missingPrefix),
        ("whsec_", .empty),
        ("whsec_!!!!not-base64", .notBase64),
        ("whsec_AAAAA", .notBase64),
        ("whsec_AAECAw==", .tooShort(byteCount: 4)),
    ])
    func badSecrets(text: String, expected: WebhookSecretError) {
        #expect(throws: expected) { try WebhookSecret(parsing: text) }
    }

    @Test func secretNeverPrinted() throws {
        let secret = try WebhookSecret(parsing: Self.officialSecret)
        #expect(!"\(secret)".contains("MfKQ9r8"))
        #expect(!String(reflecting: secret).contains("MfKQ9r8"))
        #expect("\(secret)" == "whsec_<redacted>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("49"), "dump shows no key bytes: \(dumped)")
        let error = WebhookSecretError.notBase64
        #expect(!error.description.contains("MfKQ"))
    }
}
