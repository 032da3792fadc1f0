#!/usr/bin/env python3
"""A local SMTP server (aiosmtpd, Debian's python3-aiosmtpd) for the email peer check.

Receives what msmtp submits on 127.0.0.1:PORT and writes one JSON line per message to RECORDS:
the envelope (MAIL FROM, RCPT TO) and the message as Python's `email` package parses it back
(policy=default: encoded words decoded, the body decoded from its transfer encoding), with the
parser's defects. A recipient whose local part is `nouser` is refused with 550 5.1.1, as a server
refuses an unknown mailbox.
"""
import argparse
import email
import json
import time
from email import policy

from aiosmtpd.controller import Controller


class Handler:
    def __init__(self, records):
        self.records = records

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.split("@")[0] == "nouser":
            return "550 5.1.1 <%s>: no such user here" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        message = email.message_from_bytes(raw, policy=policy.default)
        record = {
            "mailFrom": envelope.mail_from,
            "rcptTos": list(envelope.rcpt_tos),
            "headerNames": list(message.keys()),
            "subject": str(message["subject"]),
            "from": str(message["from"]),
            "to": str(message["to"]),
            "date": str(message["date"]),
            "messageID": str(message["message-id"]),
            "mimeVersion": str(message["mime-version"]),
            "contentType": message.get_content_type(),
            "charset": message.get_content_charset(),
            "transferEncoding": str(message["content-transfer-encoding"]),
            "body": message.get_content(),
            "defects": [type(d).__name__ for d in message.defects],
            "longestLine": max(len(line) for line in raw.split(b"\r\n")),
        }
        with open(self.records, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
        return "250 2.0.0 accepted"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--records", required=True)
    args = parser.parse_args()
    controller = Controller(Handler(args.records), hostname="127.0.0.1", port=args.port)
    controller.start()
    try:
        while True:
            time.sleep(3600)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
