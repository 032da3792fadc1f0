import Foundation
import Testing
@testable import TophhieAuth

@Suite(.timeLimit(.minutes(20))) struct ProfileUpdateTests {
    /// The seed's table: nil untouched, "" cleared (JSON null), any other string set.
    @Test(arguments: [
        (nil as String?, nil as String?, "{}"),
        ("", nil, #"{"city":null}"#),
        ("London", nil, #"{"city":"London"}"#),
        ("London", "", #"{"city":"London","country":null}"#),
        (nil, "GB", #"{"country":"GB"}"#),
    ])
    func nilEmptyValueTable(city: String?, country: String?, body: String) {
        var update = TophhieProfileUpdate()
        update.city = city
        update.country = country
        #expect(String(decoding: update.requestBody(), as: UTF8.self) == body)
        #expect(update.hasChanges == (city != nil || country != nil))
    }

    @Test func everyFieldInDocumentedOrder() {
        var update = TophhieProfileUpdate()
        for name in TophhieProfileUpdate.fieldNames {
            let known = update.set(name, to: name == "jobTitle" ? "" : "v")
            #expect(known)
        }
        let mailKnown = update.set("mail", to: "x")
        #expect(!mailKnown, "mail is not writable")
        let body = String(decoding: update.requestBody(), as: UTF8.self)
        #expect(body == #"{"displayName":"v","givenName":"v","surname":"v","jobTitle":null,"streetAddress":"v","city":"v","state":"v","postalCode":"v","country":"v","preferredLanguage":"v"}"#)
    }

    @Test func hostileTextIsEscapedInTheBody() throws {
        var update = TophhieProfileUpdate()
        update.displayName = "A \"quoted\"\\ name\n\u{1b}[31m"
        let body = update.requestBody()
        let decoded = try JSONSerialization.jsonObject(with: body) as? [String: String]
        #expect(decoded?["displayName"] == "A \"quoted\"\\ name\n\u{1b}[31m")
        #expect(!String(decoding: body, as: UTF8.self).contains("\u{1b}"))
    }

    @Test(arguments: ["en", "en-GB", "zh-Hant-TW", "sr-Latn-RS", "es-419", "de-CH-1996", "x-private", "en-GB-x-tophhie", "fil-PH"])
    func acceptsWellFormedLanguageTags(tag: String) {
        #expect(TophhieLanguages.isValidTag(tag))
    }

    @Test(arguments: ["", "e", "english", "en_GB", "en-", "-GB", "en-GB-", "1234", "en-x", "en--GB", "en GB"])
    func rejectsMalformedLanguageTags(tag: String) {
        #expect(!TophhieLanguages.isValidTag(tag))
    }

    @Test func curatedLanguagesAreAllValidAndUnique() {
        #expect(TophhieLanguages.all.count >= 40)
        #expect(Set(TophhieLanguages.all.map(\.tag)).count == TophhieLanguages.all.count)
        for language in TophhieLanguages.all { #expect(TophhieLanguages.isValidTag(language.tag), "\(language.tag)") }
        #expect(TophhieLanguages.language(forTag: "EN-gb")?.name == "English (United Kingdom)")
    }
}
