import Foundation
import Testing
import TophhieJSON
import TophhieSimulator
@testable import TophhieAuth

/// A recognizer that knows the sign-ins whose bytes it was shown, by a plain 128-bit FNV of
/// the bytes (the agent's is keyed; the fetch does not care which).
private struct KnownBytes: SignInRecognizer {
    var known: Set<SignInRecordKey> = []

    func key(of record: UnsafeRawBufferPointer) -> SignInRecordKey {
        var high: UInt64 = 0xcbf2_9ce4_8422_2325, low: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in record {
            high = (high ^ UInt64(byte)) &* 0x100_0000_01b3
            low = (low ^ UInt64(byte) ^ (high >> 29)) &* 0x100_0000_01b3
        }
        return SignInRecordKey(high: high, low: low)
    }

    func isProcessed(_ key: SignInRecordKey) -> Bool { known.contains(key) }
}

@Suite(.timeLimit(.minutes(20))) struct RecognisingFetchTests {
    @Test func recognisedSignInsAreListedNotDecodedAndTheRestAreDecodedAsBefore() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addSignIns(SignInHistoryOverHTTPTests.history(harness, count: 1500))
            let since = harness.clock.now().addingTimeInterval(-2 * 86_400)
            var recognizer = KnownBytes()
            let first = try await harness.auth().fetchSignIns(since: since, recognizer: recognizer)
            #expect(first.events.count == 1500)
            #expect(first.records.count == 1500)
            #expect(first.records.allSatisfy { !$0.recognised })
            #expect(first.records.map(\.id) == first.events.map(\.id))
            #expect(first.records.map(\.createdDateTime) == first.events.map(\.createdDateTime))
            #expect(first.count == 1500)

            // Every other sign-in is known, across both pages.
            recognizer.known = Set(first.records.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.key))
            let second = try await harness.auth().fetchSignIns(since: since, recognizer: recognizer)
            #expect(second.records.map(\.id) == first.records.map(\.id), "the same sign-ins in Graph's order")
            #expect(second.records.map(\.key) == first.records.map(\.key), "the same bytes give the same keys")
            #expect(second.records.indices.filter { second.records[$0].recognised != ($0 % 2 == 0) }.isEmpty, "the known ones, and only those")
            #expect(second.records.map(\.createdDateTime) == first.records.map(\.createdDateTime), "recognised ones carry their time")
            #expect(second.events.map(\.id) == first.events.enumerated().filter { $0.offset % 2 == 1 }.map(\.element.id))
            #expect(second.events == first.events.enumerated().filter { $0.offset % 2 == 1 }.map(\.element), "decoded as before")
            #expect(second.count == 1500)
            #expect(second.pages == 2)
        }
    }

    @Test func aSignInRepublishedWithOtherContentIsNotRecognised() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            let original = SignInHistoryOverHTTPTests.history(harness, count: 1)[0]
            await harness.tenant.addSignIns([original])
            let since = harness.clock.now().addingTimeInterval(-86_400)
            var recognizer = KnownBytes()
            recognizer.known = Set(try await harness.auth().fetchSignIns(since: since, recognizer: recognizer).records.map(\.key))
            guard case .object(var members) = original else { Issue.record("not an object"); return }
            members["riskLevelAggregated"] = .string("high")
            await harness.tenant.addSignIns([ScenarioSignIn(event: .object(members), latencySeconds: 0)])
            let fetch = try await harness.auth().fetchSignIns(since: since, recognizer: recognizer)
            // Graph lists the re-published copy first; the first copy of an id is the one kept.
            #expect(fetch.records.map(\.recognised) == [false])
            #expect(fetch.events.map { $0.riskLevelAggregated } == ["high"])
            #expect(fetch.duplicatesDropped == 1)
        }
    }

    @Test func aDamagedSignInIsSkippedWhateverTheRecognizerKnows() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            let history = SignInHistoryOverHTTPTests.history(harness, count: 4)
            await harness.tenant.addSignIns(history)
            let since = harness.clock.now().addingTimeInterval(-86_400)
            var recognizer = KnownBytes()
            recognizer.known = Set(try await harness.auth().fetchSignIns(since: since, recognizer: recognizer).records.map(\.key))
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .controlByteInEvent, count: 1))
            let fetch = try await harness.auth().fetchSignIns(since: since, recognizer: recognizer)
            #expect(fetch.skipped.map(\.id) == [history[0]["id"]?.stringValue])
            #expect(fetch.records.map(\.recognised) == [true, true, true])
            #expect(fetch.events.isEmpty)
            #expect(fetch.count == 3)
        }
    }
}
