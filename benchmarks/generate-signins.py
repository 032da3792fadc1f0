#!/usr/bin/env python3
"""Writes a realistic history of Graph v1.0 sign-ins as a Graph page: one person's, or a tenant's.

Usage: generate-signins.py COUNT OUTPUT [SEED] [USERS] [unmanaged]

Mostly successful browser and desktop sign-ins from home and office, with typos, MFA
interrupts, occasional travel, bursts of failed passwords from foreign addresses, MFA prompt
spam, CA blocks and legacy-protocol attempts. Deterministic for a given seed.

One stream of sign-ins about a minute apart; with USERS above 1 (default 1) each step of it
belongs to one of that many people, chosen at random, each with a home of their own (so a
tenant's 100,000 sign-ins over 500 people are about three a day each). USERS=1 gives the one
person's history exactly as before the parameter existed.

With "unmanaged", every device is reported as neither managed nor compliant (people's own
laptops and phones): SigmaHQ's non-compliant-devices rule then matches nearly every sign-in,
the alert-heavy corpus. The sign-ins are otherwise the same.
"""
import json
import random
import sys
from datetime import datetime, timedelta, timezone

count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
output = sys.argv[2] if len(sys.argv) > 2 else "signins.json"
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
users = int(sys.argv[4]) if len(sys.argv) > 4 else 1
unmanaged = len(sys.argv) > 5 and sys.argv[5] == "unmanaged"

# (id, principal name, display name); the first is the one person of a single history.
PEOPLE = [("7c1f0c4e-0000-4000-8000-000000000001", "ada@contoso.com", "Ada Lovelace")] + [
    (f"7c1f0c4e-0000-4000-8000-{k + 1:012d}", f"person{k:03d}@contoso.com", f"Person {k:03d}") for k in range(1, users)]
PLACES = [
    ("Lisbon", "Lisboa", "PT", 38.72, -9.14, "85.240.12."),
    ("Porto", "Porto", "PT", 41.15, -8.61, "85.241.77."),
    ("Madrid", "Madrid", "ES", 40.42, -3.70, "88.12.4."),
    ("London", "England", "GB", 51.51, -0.13, "81.2.69."),
    ("New York", "New York", "US", 40.71, -74.0, "72.229.28."),
    ("Singapore", "Singapore", "SG", 1.35, 103.82, "116.12.3."),
]
ATTACKERS = [("Moscow", "Moscow", "RU", 55.75, 37.62, "95.165.1."), ("Lagos", "Lagos", "NG", 6.52, 3.38, "102.89.4."),
             ("Sao Paulo", "Sao Paulo", "BR", -23.55, -46.63, "177.71.2.")]
APPS = ["Office 365 Exchange Online", "Microsoft Teams", "Azure Portal", "Microsoft Office 365 Portal", "OneDrive SyncEngine"]
DEVICES = [("Windows 10", "Edge 120.0.2210"), ("Windows 10", "Chrome 121.0.6167"), ("MacOs", "Safari 17.2"),
           ("Ios 17", "Mobile Safari"), ("Android", "Chrome Mobile 120.0")]
REASONS = {
    0: None, 50126: "Error validating credentials due to invalid username or password.",
    50053: "Account is locked because user tried to sign in too many times with an incorrect user ID or password.",
    50074: "Strong Authentication is required.", 500121: "Authentication failed during strong authentication request.",
    53003: "Access has been blocked by Conditional Access policies. The access policy does not allow token issuance.",
    50140: "This error occurred due to 'Keep me signed in' interrupt when the user was signing in.",
}


def sign_in(n, when, place, code=0, app=None, device=None, client="Browser", details=None, risk="none"):
    city, state, country, lat, lon, prefix = place
    user_id, upn, display = PEOPLE[person]
    os_name, browser = device or rng.choice(DEVICES[:3])
    return {
        "id": f"{n:08x}-5e1d-4c0a-9b1e-{rng.getrandbits(48):012x}",
        "createdDateTime": when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond * 10:07d}Z",
        "userDisplayName": display, "userPrincipalName": upn, "userId": user_id,
        "appId": "00000002-0000-0ff1-ce00-000000000000", "appDisplayName": app or rng.choice(APPS),
        "ipAddress": prefix + str(rng.randint(2, 250)), "clientAppUsed": client,
        "correlationId": f"{rng.getrandbits(128):032x}", "conditionalAccessStatus": "failure" if code == 53003 else "success",
        "isInteractive": True, "riskDetail": "none", "riskLevelAggregated": risk, "riskLevelDuringSignIn": risk,
        "riskState": "atRisk" if risk in ("medium", "high") else "none", "riskEventTypes": [], "riskEventTypes_v2": [],
        "resourceDisplayName": "Office 365 Exchange Online", "resourceId": "00000002-0000-0ff1-ce00-000000000000",
        "status": {"errorCode": code, "failureReason": REASONS.get(code), "additionalDetails": details},
        "deviceDetail": {"deviceId": "", "displayName": None, "operatingSystem": os_name, "browser": browser,
                         "isCompliant": False if unmanaged else None, "isManaged": False if unmanaged else None, "trustType": None},
        "location": {"city": city, "state": state, "countryOrRegion": country,
                     "geoCoordinates": {"altitude": None, "latitude": lat + rng.uniform(-0.05, 0.05), "longitude": lon + rng.uniform(-0.05, 0.05)}},
        "appliedConditionalAccessPolicies": [],
    }


events = []
when = datetime(2024, 3, 1, 7, 0, tzinfo=timezone.utc)
homes = [PLACES[0]] + [rng.choice(PLACES[:4]) for _ in range(1, users)]
person = 0
n = 0
while len(events) < count:
    n += 1
    when += timedelta(seconds=rng.expovariate(1 / 55))
    if users > 1:
        person = rng.randrange(users)
    home = homes[person]
    roll = rng.random()
    if roll < 0.0015:  # a burst of failed passwords from an attacker address
        place = rng.choice(ATTACKERS)
        for i in range(rng.randint(3, 12)):
            events.append(sign_in(n * 100 + i, when + timedelta(seconds=40 * i), place, code=50126, client="Browser"))
        if rng.random() < 0.2:
            events.append(sign_in(n * 100 + 50, when + timedelta(minutes=9), place, code=0))
    elif roll < 0.0025:  # MFA prompt spam
        for i in range(rng.randint(2, 8)):
            events.append(sign_in(n * 100 + i, when + timedelta(seconds=70 * i), home, code=500121, details="MFA denied; user declined the authentication"))
    elif roll < 0.004:
        events.append(sign_in(n, when, home, code=53003))
    elif roll < 0.0045:
        events.append(sign_in(n, when, home, code=0, client=rng.choice(["IMAP4", "Exchange ActiveSync", "POP3"])))
    elif roll < 0.005:
        events.append(sign_in(n, when, home, code=0, risk=rng.choice(["medium", "high", "low", "hidden"])))
    elif roll < 0.006:
        home = homes[person] = rng.choice(PLACES)  # the person travels
        events.append(sign_in(n, when, home))
    elif roll < 0.05:
        events.append(sign_in(n, when, home, code=rng.choice([50126, 50140, 50074])))
    else:
        events.append(sign_in(n, when, home, device=rng.choice(DEVICES)))

events = events[:count]
events.sort(key=lambda e: e["createdDateTime"], reverse=True)  # Graph lists newest first
with open(output, "w") as f:
    json.dump({"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#auditLogs/signIns", "value": events}, f)
print(f"wrote {len(events)} sign-ins to {output} ({events[-1]['createdDateTime']} .. {events[0]['createdDateTime']})")
