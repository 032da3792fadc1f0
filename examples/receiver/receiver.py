#!/usr/bin/env python3
"""A webhook receiver for tophhie-watch alerts that verifies every signature.

    python3 -m venv .venv && .venv/bin/pip install standardwebhooks==1.1.0
    TOPHHIE_WEBHOOK_SECRET=whsec_... .venv/bin/python examples/receiver/receiver.py --port 8099

Point a notifier at it (plain http is allowed to loopback only):

    - name: hook
      type: webhook
      url: http://127.0.0.1:8099/alerts
      preset: generic
      secret_env: TOPHHIE_WEBHOOK_SECRET

Delivery is at least once: a retried alert carries the same webhook-id, so this receiver keeps
the ids it has seen and acknowledges a repeat without acting on it again.
"""
import argparse
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

SEEN = set()


class Handler(BaseHTTPRequestHandler):
    webhook = None

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length)
        headers = {name.lower(): value for name, value in self.headers.items()}
        try:
            # Checks the v1 HMAC over "{id}.{timestamp}.{body}" and a timestamp within 5 minutes.
            payload = self.webhook.verify(body, headers)
        except WebhookVerificationError as error:
            self.send_response(401)
            self.end_headers()
            print(f"rejected: {error}", file=sys.stderr)
            return
        webhook_id = headers.get("webhook-id", "")
        if webhook_id in SEEN:
            self.send_response(204)
            self.end_headers()
            return
        SEEN.add(webhook_id)
        alert = payload.get("data", {})
        rule = alert.get("rule", {})
        # Field values come from sign-in data an attacker can shape: print them as JSON strings.
        print(json.dumps({
            "type": payload.get("type"),
            "level": alert.get("level"),
            "rule": rule.get("id"),
            "title": rule.get("title"),
            "summary": alert.get("summary"),
            "id": alert.get("id"),
        }), flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8099)
    arguments = parser.parse_args()
    secret = os.environ.get("TOPHHIE_WEBHOOK_SECRET")
    if not secret:
        sys.exit("set TOPHHIE_WEBHOOK_SECRET to the notifier's whsec_ secret")
    Handler.webhook = Webhook(secret)
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    print(f"listening on http://127.0.0.1:{arguments.port}/", file=sys.stderr)
    server.serve_forever()


if __name__ == "__main__":
    main()
