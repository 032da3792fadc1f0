#!/usr/bin/env python3
"""Do the agent and pySigma-sqlite select the same sign-ins for SigmaHQ's rules?

Usage: sigma_agreement.py BINARY SIGMA_RULES WORKDIR [COUNT] [SEED]

Writes a corpus of COUNT (default 4000) Graph sign-ins whose fields take the values SigmaHQ's
Azure sign-in rules test, in other cases, as substrings, as neighbouring values and absent
(beta-only fields such as authenticationRequirement and userAgent included, as the Graph beta
returns them), then compares, rule by rule, the set of sign-in ids `BINARY rules match` lists
with the set pySigma-backend-sqlite's queries select (scripts/peers/pysigma_sqlite.py). Prints
one line per rule and exits 1 when any set differs or when a rule selects nothing in the
corpus (an agreement on nothing would prove nothing).
"""
import collections
import json
import os
import random
import subprocess
import sys
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pysigma_sqlite  # noqa: E402

MISSING = object()
POOLS = {
    "status.errorCode": [0, 0, 50053, 50057, 53003, 50074, 500121, 50097, 50155, 50158, 50126],
    "status.failureReason": [None, "Failure", "FAILURE", "Failure to launch",
                             "User account is disabled. The account has been disabled by an administrator.",
                             "Blocked by Conditional Access", "blocked by conditional access", "Blocked by Conditional Access policy",
                             "Device authentication is required", "DeviceAuthenticationFailed",
                             "ExternalSecurityChallenge - External security challenge was not satisfied",
                             "Strong Auth required", "the Strong Auth required step", "STRONG AUTH REQUIRED",
                             "Authentication failed during strong authentication request.", "MFA denied; user declined",
                             "Other"],
    "status.additionalDetails": [None, "MFA Denied; user declined the authentication", "mfa denied", "MFA completed in Azure AD"],
    "authenticationRequirement": [MISSING, "singleFactorAuthentication", "multiFactorAuthentication", "SINGLEFACTORAUTHENTICATION"],
    "clientAppUsed": ["Browser", "Other client", "IMAP", "imap", "POP3", "MAPI", "SMTP", "Exchange ActiveSync",
                      "Exchange Web Services", "Mobile Apps and Desktop clients"],
    "userPrincipalName": ["ada@contoso.com", "UPN", "upn"],
    "resourceDisplayName": ["Device Registration Service", "device registration service", "Microsoft Graph", None],
    "riskState": ["none", "atRisk", "ATRISK", "remediated"],
    "conditionalAccessStatus": ["success", "failure", "notApplied", "SUCCESS"],
    "networkLocationDetails": [MISSING, [], [{"networkType": "namedNetwork", "networkNames": ["Office"]}]],
    "userAgent": [MISSING, "Mozilla/5.0 (Windows NT 10.0)", "BAV2ROPC", "x CBAinPROD y", "cbaintar", "azurehound/2.0.1", "AzureHound"],
    "deviceDetail.deviceId": ["", "", "1b2c3d4e-0000-4000-8000-00000000abcd", None],
    "deviceDetail.isCompliant": [None, True, False],
    "deviceDetail.trustType": [None, "", "Azure AD joined", "Hybrid Azure AD joined"],
}


def corpus(count, seed):
    rng = random.Random(seed)
    start = datetime(2024, 5, 1, tzinfo=timezone.utc)
    events = []
    for n in range(count):
        when = start + timedelta(seconds=37 * n)
        event = {"id": f"{n:08x}-0000-4000-8000-{seed:012x}",
                 "createdDateTime": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "userId": "7c1f0c4e-0000-4000-8000-000000000001", "appDisplayName": "Azure Portal",
                 "ipAddress": f"203.0.113.{n % 250 + 1}"}
        for path, pool in POOLS.items():
            value = rng.choice(pool)
            if value is MISSING:
                continue
            target = event
            parts = path.split(".")
            for part in parts[:-1]:
                target = target.setdefault(part, {})
            target[parts[-1]] = value
        events.append(event)
    return events


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    binary, rules, work = argv[1], argv[2], argv[3]
    count = int(argv[4]) if len(argv) > 4 else 4000
    seed = int(argv[5]) if len(argv) > 5 else 5
    os.makedirs(work, exist_ok=True)
    events_path = os.path.join(work, "sigma-corpus.json")
    with open(events_path, "w", encoding="utf-8") as out:
        json.dump({"value": corpus(count, seed)}, out)

    ours = collections.defaultdict(set)
    result = subprocess.run([binary, "rules", "match", events_path, "--rules", rules, "--format", "json"],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        print(f"rules match exited {result.returncode}: {result.stderr.strip()}")
        return 1
    for line in result.stdout.splitlines():
        match = json.loads(line)
        ours[match["rule"]].add(match["event"])

    theirs = collections.defaultdict(set)
    db = pysigma_sqlite.load(pysigma_sqlite.read_events(events_path))
    queries = pysigma_sqlite.convert(rules)
    for rule_id, query in queries:
        for (event_id,) in db.execute(query.replace("SELECT * FROM", "SELECT id FROM", 1)):
            theirs[rule_id].add(event_id)

    failed = 0
    for rule_id, _ in queries:
        a, b = ours[rule_id], theirs[rule_id]
        if a != b:
            failed += 1
            print(f"DIFFERS {rule_id}: agent {len(a)}, pySigma {len(b)}; only agent {sorted(a - b)[:3]}, only pySigma {sorted(b - a)[:3]}")
        elif not a:
            # SigmaHQ rules whose values never occur in Graph data select nothing on either side.
            print(f"same    {rule_id}: 0 sign-ins (nothing in the corpus can match)")
        else:
            print(f"same    {rule_id}: {len(a)} sign-ins")
    unmatched = [r for r, _ in queries if not ours[r] and not theirs[r]]
    print(f"{len(queries)} rules over {count} sign-ins: {len(queries) - failed} agree, {failed} differ; "
          f"{len(unmatched)} select nothing on either side")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
