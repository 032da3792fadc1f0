"""A webhook receiver that verifies Standard Webhooks signatures with the reference library.

Used by scripts/peer-checks.sh: every POST is checked with
`standardwebhooks.Webhook(secret).verify(body, headers)`, answered 204 when it verifies and 401
when it does not, and recorded as one JSON line in the records file so the Swift PeerChecks tests
can assert on what a real, independent verifier accepted or rejected.

The secret comes from the environment (TOPHHIE_PEER_WEBHOOK_SECRET), never from argv, and is
never printed or recorded.
"""

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook

RECORD_LOCK = threading.Lock()


def make_handler(webhook, records_path):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            headers = {name.lower(): value for name, value in self.headers.items()}
            record = {
                "path": self.path,
                "webhookId": headers.get("webhook-id"),
                "webhookTimestamp": headers.get("webhook-timestamp"),
                "userAgent": headers.get("user-agent"),
                "contentType": headers.get("content-type"),
            }
            try:
                payload = webhook.verify(body, headers)
                record["verified"] = True
                record["type"] = payload.get("type") if isinstance(payload, dict) else None
                status = 204
            except Exception as error:  # the library raises several kinds; all mean "reject"
                record["verified"] = False
                record["error"] = f"{type(error).__name__}: {error}"
                status = 401
            with RECORD_LOCK:
                with open(records_path, "a", encoding="utf-8") as out:
                    out.write(json.dumps(record, sort_keys=True) + "\n")
                    out.flush()
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format, *args):
            pass

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True, help="where to write the bound port")
    parser.add_argument("--records", required=True, help="JSON-lines file of verification outcomes")
    args = parser.parse_args()
    secret = os.environ.get("TOPHHIE_PEER_WEBHOOK_SECRET")
    if not secret:
        print("TOPHHIE_PEER_WEBHOOK_SECRET is not set", file=sys.stderr)
        return 2
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(Webhook(secret), args.records))
    with open(args.port_file + ".tmp", "w", encoding="utf-8") as out:
        out.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
