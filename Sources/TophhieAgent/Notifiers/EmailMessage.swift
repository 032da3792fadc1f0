import Foundation
import TophhieRules

/// One alert as an RFC 5322 message for sendmail's standard input: From, To, Subject (level, rule
/// title, account), Date, Message-ID, MIME-Version and a `text/plain; charset=utf-8` body, in
/// quoted-printable where it is not short ASCII lines.
///
/// Header values carry no CR or LF from the data (control characters are shown as escapes) and
/// are folded at 78 columns, in RFC 2047 encoded words where they are not ASCII or hold a word too
/// long to fold: a sign-in field holding `\r\nBcc: …` adds no header. Lines end in LF, as
/// sendmail reads them; it writes CRLF on the wire.
public enum EmailMessage {
    /// The message for `alert`.
    /// - Parameters:
    ///   - messageHost: the host part of the Message-ID.
    public static func text(for alert: Alert, from: String, to: [String], messageHost: String) -> String {
        var headers: [String] = []
        headers.append(header("From", from))
        headers.append(header("To", to.joined(separator: ", ")))
        headers.append(header("Subject", subject(alert)))
        headers.append(header("Date", date(alert.detectedAt)))
        headers.append(header("Message-ID", messageID(alert, host: messageHost)))
        headers.append("MIME-Version: 1.0")
        headers.append("Content-Type: text/plain; charset=utf-8")
        let body = self.body(alert)
        let plain = body.allSatisfy { $0.isASCII } && body.split(separator: "\n", omittingEmptySubsequences: false).allSatisfy { $0.utf8.count <= 76 && $0.last != " " }
        headers.append("Content-Transfer-Encoding: " + (plain ? "7bit" : "quoted-printable"))
        // RFC 3834: a machine wrote it; vacation responders must not answer.
        headers.append("Auto-Submitted: auto-generated")
        return headers.joined(separator: "\n") + "\n\n" + (plain ? body : quotedPrintable(body)) + "\n"
    }

    /// `[HIGH] Failed sign-in burst - jane@contoso[.]com`, or with several people watched
    /// `[HIGH] Failed sign-in burst - jane (jane@contoso[.]com)`: ASCII when the data is.
    public static func subject(_ alert: Alert) -> String {
        var text = "[\(alert.level.rawValue.uppercased())] \(PersonalAlertText.safe(alert.rule.title, limit: 150))"
        // The name adds up to 35 characters before the principal name's 100.
        if let owner = PersonalAlertText.owner(alert) { text += " - " + PersonalAlertText.safe(owner, limit: alert.account == nil ? 100 : 140) }
        return text
    }

    /// The body: the text a person reads, then where it came from.
    static func body(_ alert: Alert) -> String {
        PersonalAlertText.text(alert) + "\n\n-- \nSent by tophhie-watch, which watches your own Microsoft Entra sign-ins.\n"
    }

    /// `<alert-id.tophhie-watch@host>`: the same on every retry, so a mailbox can drop a copy.
    static func messageID(_ alert: Alert, host: String) -> String {
        let id = String(alert.id.unicodeScalars.prefix(120).map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
        })
        return "<\(id).tophhie-watch@\(host)>"
    }

    /// RFC 5322 §3.3: `Tue, 02 Dec 2025 13:05:00 +0000`.
    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }

    /// `Name: value`, the value without control characters, folded to lines of at most 78
    /// characters; encoded words when it is not ASCII or has a word too long to fold.
    static func header(_ name: String, _ value: String) -> String {
        // Values from the data are already shown with escapes; whatever control character is
        // left (none should be) becomes a space, so no value can end the line.
        let clean = String(String.UnicodeScalarView(value.unicodeScalars.map { ControlCharacterEscaping.needsEscape($0) ? " " : $0 }))
        let words = clean.split(separator: " ", omittingEmptySubsequences: false)
        if clean.allSatisfy({ $0.isASCII }), words.allSatisfy({ $0.count <= 66 }) {
            var lines: [String] = []
            var line = name + ":"
            for word in words {
                if line.count + 1 + word.count > 78, line != name + ":" {
                    lines.append(line)
                    line = ""
                }
                line += " " + word
            }
            lines.append(line)
            return lines.joined(separator: "\n")
        }
        // The first word shares its line with the name: fewer bytes, so the line stays in 78.
        let first = max(3, (78 - name.count - 2 - 12) / 4 * 3)
        return name + ": " + encodedWords(clean, firstLimit: min(45, first)).joined(separator: "\n ")
    }

    /// RFC 2047 `=?utf-8?B?…?=` words of at most 75 characters (45 bytes of text, `firstLimit`
    /// for the first), split between characters.
    static func encodedWords(_ text: String, firstLimit: Int = 45) -> [String] {
        var words: [String] = []
        var chunk = Data()
        for character in text {
            let bytes = Data(String(character).utf8)
            if chunk.count + bytes.count > (words.isEmpty ? firstLimit : 45), !chunk.isEmpty {
                words.append("=?utf-8?B?" + chunk.base64EncodedString() + "?=")
                chunk = Data()
            }
            chunk.append(bytes)
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?utf-8?B?" + chunk.base64EncodedString() + "?=") }
        return words
    }

    /// RFC 2045 §6.7 quoted-printable of UTF-8 text whose lines end in LF: lines of at most 76
    /// characters, soft breaks (`=`) between, trailing spaces encoded.
    static func quotedPrintable(_ text: String) -> String {
        var out: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let bytes = Array(line.utf8)
            var encoded = ""
            for (index, byte) in bytes.enumerated() {
                let last = index == bytes.count - 1
                let piece: String
                if (byte == 0x20 || byte == 0x09) && !last {
                    piece = String(UnicodeScalar(byte))
                } else if byte >= 33 && byte <= 126 && byte != 0x3D && !(byte == 0x2E && index == 0) {
                    piece = String(UnicodeScalar(byte))
                } else {
                    piece = "=" + String(format: "%02X", byte)
                }
                if encoded.count + piece.count > 75 {
                    out.append(encoded + "=")
                    encoded = ""
                }
                encoded += piece
            }
            out.append(encoded)
        }
        return out.joined(separator: "\n")
    }
}
