#!/usr/bin/env python3
"""A loopback stand-in for ntfy, Gotify and the Telegram Bot API, for the process checks.

Answers every POST with 200 and `{"ok":true}` and writes one JSON line per request to RECORDS:
the path, the headers (lower-cased names) and the body parsed as JSON. The payload contracts are
checked in the Swift tests; this one shows that the real binary, polling the simulated tenant,
reaches each service at the path and with the headers it expects.
"""
import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--records", required=True)
    args = parser.parse_args()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
            record = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": parsed}
            with open(args.records, "a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
            reply = b'{"ok":true}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *_):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args.port_file, "w") as out:
        out.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
