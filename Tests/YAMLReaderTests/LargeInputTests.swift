import Testing
import YAMLReader

/// A megabyte of rule files reads correctly (its speed is measured outside the tests).
@Suite(.timeLimit(.minutes(20))) struct LargeInputTests {
    /// One Sigma-style rule, numbered so every document differs.
    static func rule(_ number: Int) -> String {
        """
        title: Repeated sign-in failures \(number)
        id: 4f0f5b1e-0000-4000-8000-\(String(number, radix: 16).leftPadded(to: 12))
        status: experimental
        level: medium
        description: |
          Fires when one user fails to sign in many times.
          Rule number \(number).
        tags:
          - attack.credential_access
          - attack.t1110
        logsource: {product: azure, service: signinlogs}
        detection:
          selection:
            status.errorCode|contains:
              - 50126
              - '50053'
              - "50055"
            location.countryOrRegion: [NL, BE, DE]
          filter: # known good
            appDisplayName: 'Microsoft Teams'
          condition: selection and not filter
        falsepositives:
          - >
            A user who forgot their password
            after a holiday.
        extensions:
          threshold: \(number % 10 + 1)
          ratio: 0.5
          enabled: true
          note: ~

        """
    }

    @Test func megabyteOfRulesReads() throws {
        var text = ""
        var count = 0
        while text.utf8.count < 1_048_576 {
            if count > 0 { text += "---\n" }
            text += Self.rule(count)
            count += 1
        }
        let documents = try YAMLReader.documents(text)
        #expect(documents.count == count)
        let last = try #require(documents.last)
        #expect(last.mappingValue(forKey: "title")?.scalarText == "Repeated sign-in failures \(count - 1)")
        let errorCodes = last.mappingValue(forKey: "detection")?.mappingValue(forKey: "selection")?
            .mappingValue(forKey: "status.errorCode|contains")?.sequence?.map(\.jsonText)
        #expect(errorCodes == ["50126", #""50053""#, #""50055""#])
        #expect(last.mappingValue(forKey: "falsepositives")?.sequence?.first?.scalarText
            == "A user who forgot their password after a holiday.\n")
        #expect(last.mappingValue(forKey: "extensions")?.jsonText
            == #"{"threshold":\#((count - 1) % 10 + 1),"ratio":0.5,"enabled":true,"note":null}"#)
        let linesBeforeLast = try #require(text.components(separatedBy: "---\n").dropLast().joined(separator: "---\n")
            .split(separator: "\n", omittingEmptySubsequences: false).count)
        #expect(last.mark.line == linesBeforeLast + 1)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
