import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// The fast engine's tables by sign-in id keep each id's hash, and turn into the plain state's
/// tables by id text, and back, unchanged.
@Suite struct IDTableTests {
    static let ids = ["7c1f0c4e-0000-4000-8000-000000000001", "", "caf\u{E9}", "cafe\u{301}", "a", "A", String(repeating: "x", count: 300)]

    @Test func aTableTurnsIntoTheDictionaryByIDTextAndBack() {
        var dictionary: [String: Date] = [:]
        var table = IDTable<Date>()
        for (n, id) in Self.ids.enumerated() {
            dictionary[id] = Date(timeIntervalSince1970: Double(n) * 1000.5)
            table[HashedText(id)] = dictionary[id]
        }
        // Two ids Swift calls equal (é precomposed and decomposed) are one key in both.
        #expect(table.count == dictionary.count)
        // To the plain state's dictionary and back: the same entries.
        #expect(table.dictionary == dictionary)
        let read = IDTable(dictionary)
        #expect(read == table)
        for id in Self.ids {
            #expect(read[id] == dictionary[id] && read[HashedText(id)] == dictionary[id], "\(id.debugDescription)")
        }
        #expect(Set(read.ids) == Set(dictionary.keys))
    }

    @Test func aTableIsChangedAsATableByIDTextIs() {
        var table: IDTable<[String]> = ["a": ["r1"], "b": []]
        var dictionary: [String: [String]] = ["a": ["r1"], "b": []]
        table[HashedText("a"), default: []].append("r2")
        dictionary["a", default: []].append("r2")
        table[HashedText("c"), default: []].append("r3")
        dictionary["c", default: []].append("r3")
        table["b"] = nil
        dictionary["b"] = nil
        #expect(table.removeValue(forKey: HashedText("zz")) == nil)
        #expect(table.removeValue(forKey: HashedText("c")) == ["r3"])
        dictionary["c"] = nil
        #expect(table.count == dictionary.count && Set(table.ids) == Set(dictionary.keys))
        for id in dictionary.keys { #expect(table[id] == dictionary[id]) }
        let kept = table.filter { key, value in key.text == "a" && value.count == 2 }
        #expect(kept.ids == ["a"] && kept["a"] == ["r1", "r2"])
        var seen: [String] = []
        table.forEach { key, _ in seen.append(key.text) }
        #expect(seen.sorted() == ["a"])
        #expect(IDTable<Int>().isEmpty && !table.isEmpty)
    }

    /// A table hashes a key from the hash it carries (`_rawHashValue(seed:)`): every key must be
    /// found again, under its own value, and a text equal to it as Swift compares strings finds
    /// it too, in tables grown, shrunk and copied.
    @Test func keysAreFoundByTheHashTheyCarry() {
        var table: [HashedText: Int] = [:]
        let ids = (0..<20_000).map { "\($0)-\(String(repeating: "x", count: $0 % 40))" }
        for (n, id) in ids.enumerated() { table[HashedText(id)] = n }
        #expect(table.count == ids.count)
        for (n, id) in ids.enumerated() where table[HashedText(id)] != n { Issue.record("\(id) lost"); break }
        for id in ids.prefix(15_000) { table.removeValue(forKey: HashedText(id)) }
        let copy = table.filter { _ in true }
        #expect(copy.count == 5_000 && table.count == 5_000)
        for (n, id) in ids.enumerated().dropFirst(15_000) where copy[HashedText(id)] != n { Issue.record("\(id) lost in the copy"); break }
        #expect(table[HashedText(ids[0])] == nil)
        table[HashedText("caf\u{E9}")] = 1
        #expect(table[HashedText("cafe\u{301}")] == 1)
        #expect(Set(ids.map(HashedText.init)).count == ids.count)
    }

    /// A value found once is read and changed where it lies; the entries come out whole and
    /// make the same table again.
    @Test func aValueFoundIsReadAndChangedInPlace() throws {
        var table: IDTable<Date> = ["gb": Date(timeIntervalSince1970: 1), "pt": Date(timeIntervalSince1970: 2)]
        let place = try #require(table.index(forKey: HashedText("pt")))
        #expect(table[at: place] == Date(timeIntervalSince1970: 2))
        table[at: place] = Date(timeIntervalSince1970: 3)
        #expect(table["pt"] == Date(timeIntervalSince1970: 3) && table["gb"] == Date(timeIntervalSince1970: 1))
        #expect(table.index(forKey: HashedText("ng")) == nil)
        #expect(IDTable(uniqueKeysWithValues: table.all) == table)
        #expect(Set(table.all.map(\.key.text)) == ["gb", "pt"])
    }

    /// A first-seen baseline keeps its known values in one, written as the object it was.
    @Test func aBaselinesKnownValuesAreWrittenAsBefore() throws {
        let baseline = EngineState.Baseline(learningStart: Date(timeIntervalSinceReferenceDate: 0), events: 2, known: ["pt": Date(timeIntervalSinceReferenceDate: 20)])
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        let text = String(decoding: try sorted.encode(baseline), as: UTF8.self)
        #expect(text == #"{"events":2,"known":{"pt":20},"learningStart":0}"#)
        #expect(try JSONDecoder().decode(EngineState.Baseline.self, from: Data(text.utf8)) == baseline)
    }
}
