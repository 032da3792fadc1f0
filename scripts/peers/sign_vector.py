"""Prints the reference library's signature for one message, for the Swift cross-check.

Usage: sign_vector.py MSG_ID UNIX_TIMESTAMP < body   (secret in TOPHHIE_PEER_WEBHOOK_SECRET)
With --official, checks the specification's own test vector instead and exits non-zero on mismatch.
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
    msg_id, timestamp = sys.argv[1], int(sys.argv[2])
    body = sys.stdin.buffer.read().decode("utf-8")
    wh = Webhook(os.environ["TOPHHIE_PEER_WEBHOOK_SECRET"])
    sys.stdout.write(wh.sign(msg_id, datetime.fromtimestamp(timestamp, tz=timezone.utc), body))
    return 0


if __name__ == "__main__":
    sys.exit(main())
