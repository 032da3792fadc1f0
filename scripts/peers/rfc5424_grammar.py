#!/usr/bin/env python3
"""A strict checker of RFC 5424 section 6's ABNF, independent of the Swift formatter.

Reads JSON lines {"name": ..., "framing": "none" | "octet-counted", "base64": ...} on stdin,
where octet-counted is RFC 6587 section 3.4.1 (MSG-LEN SP SYSLOG-MSG). Checks every message
against the grammar, plus the two SHOULDs the agent promises: a message that is not ASCII is
MSG-UTF8 (BOM first), and the whole message fits the given --max-bytes.

Prints one line per message that fails and a summary; exits 0 only when every message passed.
`--self-test` runs the checker on known-good and known-bad messages first, so a checker that
accepts everything cannot pass.
"""
import argparse
import base64
import json
import re
import sys

PRINTUSASCII = set(range(33, 127))
SD_NAME_EXCLUDED = set(b'= ]"')
TIME = re.compile(
    rb"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$")


class Bad(Exception):
    pass


class Reader:
    def __init__(self, data):
        self.data = data
        self.at = 0

    def peek(self):
        return self.data[self.at] if self.at < len(self.data) else None

    def take(self, count=1):
        if self.at + count > len(self.data):
            raise Bad(f"message ends at byte {len(self.data)}, expected more")
        part = self.data[self.at:self.at + count]
        self.at += count
        return part

    def expect(self, byte, what):
        if self.peek() != byte:
            raise Bad(f"expected {what} at byte {self.at}, found {self.data[self.at:self.at + 8]!r}")
        self.at += 1

    def token(self, limit, what):
        """1*limit PRINTUSASCII up to the next SP."""
        start = self.at
        while self.peek() is not None and self.peek() in PRINTUSASCII:
            self.at += 1
        value = self.data[start:self.at]
        if not value or len(value) > limit:
            raise Bad(f"{what} must be 1 to {limit} printable ASCII characters, got {value[:80]!r}")
        return value


def utf8(data, what):
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as error:
        raise Bad(f"{what} is not valid UTF-8 (RFC 3629): {error}")


def check_timestamp(value):
    if value == b"-":
        return
    match = TIME.match(value)
    if not match:
        raise Bad(f"TIMESTAMP {value!r} is not FULL-DATE 'T' FULL-TIME")
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59 and second <= 59):
        raise Bad(f"TIMESTAMP {value!r} has a field out of range")
    offset = match.group(8)
    if offset != b"Z" and (int(offset[1:3]) > 23 or int(offset[4:6]) > 59):
        raise Bad(f"TIME-OFFSET {offset!r} out of range")


def check_sd_name(reader, what):
    start = reader.at
    while reader.peek() is not None and reader.peek() in PRINTUSASCII and reader.peek() not in SD_NAME_EXCLUDED:
        reader.at += 1
    name = reader.data[start:reader.at]
    if not 1 <= len(name) <= 32:
        raise Bad(f"{what} must be 1 to 32 characters, got {name!r}")
    return name


def check_structured_data(reader):
    if reader.peek() == ord("-"):
        reader.at += 1
        return
    if reader.peek() != ord("["):
        raise Bad("STRUCTURED-DATA must be '-' or start with '['")
    while reader.peek() == ord("["):
        reader.at += 1
        sd_id = check_sd_name(reader, "SD-ID")
        if b"@" in sd_id:
            name, _, number = sd_id.partition(b"@")
            if not name or b"@" in number or not re.fullmatch(rb"\d+(\.\d+)*", number):
                raise Bad(f"SD-ID {sd_id!r} must be name@<private enterprise number>")
        seen = set()
        while reader.peek() == ord(" "):
            reader.at += 1
            name = check_sd_name(reader, "PARAM-NAME")
            reader.expect(ord("="), "'=' after PARAM-NAME")
            reader.expect(ord('"'), "'\"' opening PARAM-VALUE")
            value = bytearray()
            while True:
                byte = reader.peek()
                if byte is None:
                    raise Bad(f"PARAM-VALUE of {name!r} is not closed")
                if byte == ord("\\"):
                    reader.at += 1
                    escaped = reader.peek()
                    if escaped is None:
                        raise Bad("PARAM-VALUE ends in a lone backslash")
                    value.extend(b"\\" if escaped not in b'"\\]' else b"")
                    value.append(escaped)
                    reader.at += 1
                    continue
                if byte == ord('"'):
                    reader.at += 1
                    break
                if byte == ord("]"):
                    raise Bad(f"PARAM-VALUE of {name!r} has an unescaped ']' (section 6.3.3)")
                value.append(byte)
                reader.at += 1
            utf8(bytes(value), f"PARAM-VALUE of {name!r}")
            seen.add(name)
        reader.expect(ord("]"), "']' closing SD-ELEMENT")


def check_message(data, max_bytes):
    if max_bytes and len(data) > max_bytes:
        raise Bad(f"{len(data)} bytes, more than the {max_bytes} allowed")
    reader = Reader(data)
    reader.expect(ord("<"), "'<' starting PRI")
    start = reader.at
    while reader.peek() is not None and chr(reader.peek()).isdigit():
        reader.at += 1
    prival = data[start:reader.at]
    if not 1 <= len(prival) <= 3 or (len(prival) > 1 and prival[0] == ord("0")) or int(prival) > 191:
        raise Bad(f"PRIVAL {prival!r} is not 0..191 without leading zeros")
    reader.expect(ord(">"), "'>' ending PRI")
    version = reader.token(3, "VERSION")
    if not re.fullmatch(rb"[1-9]\d{0,2}", version):
        raise Bad(f"VERSION {version!r} is not NONZERO-DIGIT 0*2DIGIT")
    reader.expect(ord(" "), "SP after VERSION")
    check_timestamp(reader.token(32, "TIMESTAMP"))
    reader.expect(ord(" "), "SP after TIMESTAMP")
    reader.token(255, "HOSTNAME")
    reader.expect(ord(" "), "SP after HOSTNAME")
    reader.token(48, "APP-NAME")
    reader.expect(ord(" "), "SP after APP-NAME")
    reader.token(128, "PROCID")
    reader.expect(ord(" "), "SP after PROCID")
    reader.token(32, "MSGID")
    reader.expect(ord(" "), "SP after MSGID")
    check_structured_data(reader)
    if reader.peek() is None:
        return
    reader.expect(ord(" "), "SP before MSG")
    msg = data[reader.at:]
    if msg.startswith(b"\xef\xbb\xbf"):
        utf8(msg[3:], "MSG-UTF8")
    elif any(byte > 127 for byte in msg):
        raise Bad("MSG has non-ASCII octets without the BOM that marks MSG-UTF8 (section 6.4)")


def unframe(data, framing):
    if framing == "none":
        return data
    length, space, rest = data.partition(b" ")
    if not space or not re.fullmatch(rb"[1-9]\d*", length):
        raise Bad(f"octet-counted frame does not start with MSG-LEN SP: {data[:12]!r}")
    if int(length) != len(rest):
        raise Bad(f"MSG-LEN says {int(length)} octets, the frame has {len(rest)}")
    return rest


GOOD = [
    b"<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - \xef\xbb\xbf'su root' failed for lonvick on /dev/pts/8",
    b"<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - %% It's time to make the do-nuts.",
    b'<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"][examplePriority@32473 class="high"]',
    b'<13>1 - - - - - [a@1 v="x\\]y \\"q\\" \\\\"]',
]
BAD = [
    (b"<192>1 2003-10-11T22:14:15.003Z h a p m - x", "PRIVAL"),
    (b"<034>1 2003-10-11T22:14:15.003Z h a p m - x", "PRIVAL"),
    (b"<34>0 2003-10-11T22:14:15.003Z h a p m - x", "VERSION"),
    (b"<34>1 2003-10-11 22:14:15Z h a p m - x", "FULL-DATE 'T' FULL-TIME"),
    (b"<34>1 2003-10-11T22:14:15.0000003Z h a p m - x", "TIMESTAMP"),
    (b"<34>1 - " + b"h" * 256 + b" a p m - x", "HOSTNAME"),
    (b"<34>1 - h " + b"a" * 49 + b" p m - x", "APP-NAME"),
    (b'<34>1 - h a p m [a=b v="1"] x', "closing SD-ELEMENT"),
    (b'<34>1 - h a p m [a@x v="1"] x', "enterprise"),
    (b'<34>1 - h a p m [a@1 v="1]"] x', "unescaped"),
    (b'<34>1 - h a p m [a@1 v="\xff"] x', "UTF-8"),
    (b"<34>1 - h a p m - caf\xc3\xa9", "BOM"),
    (b"<34>1 - h a p m - \xef\xbb\xbf\xc3", "UTF-8"),
    (b"<34>1 - h a p m -x", "SP before MSG"),
]


def self_test():
    failures = []
    for message in GOOD:
        try:
            check_message(message, 0)
        except Bad as error:
            failures.append(f"rejected a valid message {message[:40]!r}: {error}")
    for message, reason in BAD:
        try:
            check_message(message, 0)
            failures.append(f"accepted an invalid message ({reason}): {message[:60]!r}")
        except Bad as error:
            if reason not in str(error) and reason.lower() not in str(error).lower():
                failures.append(f"rejected {message[:40]!r} for '{error}', expected {reason}")
    try:
        unframe(b"12 <34>1 - - - - -", "octet-counted")
        failures.append("accepted a frame whose MSG-LEN is wrong")
    except Bad:
        pass
    for line in failures:
        print("self-test: " + line)
    return not failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-bytes", type=int, default=0)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        ok = self_test()
        print(f"self-test: {len(GOOD)} valid and {len(BAD) + 1} invalid samples, {'ok' if ok else 'FAILED'}")
        return 0 if ok else 1
    checked = failed = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        item = json.loads(line)
        checked += 1
        try:
            message = unframe(base64.b64decode(item["base64"]), item.get("framing", "none"))
            check_message(message, item.get("maxBytes", args.max_bytes))
        except Bad as error:
            failed += 1
            print(f"{item.get('name', '?')}: {error}")
    print(f"{checked} messages, {failed} invalid")
    return 0 if failed == 0 and checked > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
