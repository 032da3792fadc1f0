"""Prints the reference library's signature for one message, for the Swift cross-check.

Usage: sign_vector.py MSG_ID UNIX_TIMESTAMP < body   (secret in TOPHHIE_PEER_WEBHOOK_SECRET)
With --official, checks the specification's own test vector instead and exits non-zero on mismatch.
With --round-trip FILE, reads a secret `tophhie-watch notify secret --file` wrote, checks it is
whsec_ and 32 bytes, signs a message with it and verifies the signature (and refuses a changed body).
"""

import os
import sys
from datetime import datetime, timezone

from standardwebhooks import Webhook


def main():
    if sys.argv[1:] == ["--official"]:
        wh = Webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        got = wh.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", datetime.fromtimestamp(1614265330, tz=timezone.utc), '{"test": 2432232314}')
        expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        print("official vector:", "ok" if got == expected else f"MISMATCH {got}")
        return 0 if got == expected else 1
    if sys.argv[1:2] == ["--round-trip"]:
        import base64
        secret = open(sys.argv[2], encoding="utf-8").read().strip()
        if not secret.startswith("whsec_") or len(base64.b64decode(secret[len("whsec_"):])) != 32:
            print("not a whsec_ secret of 32 bytes")
            return 1
        now = datetime.now(tz=timezone.utc)
        body = '{"type":"tophhie.alert","data":{"id":"round-trip"}}'
        signature = Webhook(secret).sign("msg_round_trip", now, body)
        headers = {"webhook-id": "msg_round_trip", "webhook-timestamp": str(int(now.timestamp())), "webhook-signature": signature}
        Webhook(secret).verify(body, headers)
        try:
            Webhook(secret).verify(body.replace("round-trip", "changed"), headers)
            print("a changed body verified")
            return 1
        except Exception:
            pass
        print("round trip: signed and verified")
        return 0
    msg_id, timestamp = sys.argv[1], int(sys.argv[2])
    body = sys.stdin.buffer.read().decode("utf-8")
    wh = Webhook(os.environ["TOPHHIE_PEER_WEBHOOK_SECRET"])
    sys.stdout.write(wh.sign(msg_id, datetime.fromtimestamp(timestamp, tz=timezone.utc), body))
    return 0


if __name__ == "__main__":
    sys.exit(main())
