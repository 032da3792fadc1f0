#!/usr/bin/env python3
"""Detection quality of the default pack: benign months and attack variants, replayed.

Generates one person's own sign-in habits over three months (each habit its own replay) and a
set of attacks laid over a normal month, runs `tophhie-watch replay` on each, and prints alerts
per month per rule for the habits and, for each attack, whether the rule meant for it fired.

Usage: detection-quality.py BINARY RULES WORKDIR
Deterministic: a fixed seed, so two runs print the same table.
"""
import json
import random
import subprocess
import sys
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone

START = datetime(2026, 3, 2, tzinfo=timezone.utc)  # a Monday
MONTH = timedelta(days=30)
USER = "7c1f0c4e-0000-4000-8000-000000000001"

PLACES = {
    "london": ("London", "GB", 51.507, -0.128, "81.2.69.{}"),
    "glasgow": ("Glasgow", "GB", 55.864, -4.252, "82.132.219.{}"),
    "manchester": ("Manchester", "GB", 53.481, -2.243, "82.132.220.{}"),
    "birmingham": ("Birmingham", "GB", 52.486, -1.890, "82.132.221.{}"),
    "amsterdam": ("Amsterdam", "NL", 52.370, 4.895, "185.107.56.{}"),
    "zurich-vpn": ("Zurich", "CH", 47.377, 8.540, "195.176.3.{}"),
    "frankfurt": ("Frankfurt", "DE", 50.110, 8.682, "46.165.200.{}"),
    "lagos": ("Lagos", "NG", 6.524, 3.379, "105.112.96.{}"),
    "sydney": ("Sydney", "AU", -33.868, 151.209, "1.128.0.{}"),
    "moscow": ("Moscow", "RU", 55.756, 37.617, "95.165.10.{}"),
}

LAPTOP = ("Windows 10", "Edge {}.0.2210.{}")
NEW_LAPTOP = ("MacOs", "Safari 17.{}")
PHONE = ("Ios 17.{}", "Mobile Safari")
ANDROID = ("Android {}", "Chrome Mobile {}.0.6367")


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class Month:
    """Builds sign-in events and when Graph makes each visible."""

    def __init__(self, seed):
        self.random = random.Random(seed)
        self.events = []  # (visible time, event)
        self.serial = 0

    def add(self, t, place, device, code=0, app="Office 365", client="Browser", prefix="s", latency=None, ip_host=None, extra=None, event_id=None, interactive=True):
        city, country, lat, lon, ip = PLACES[place]
        self.serial += 1
        event = {
            "id": event_id or f"{prefix}-{self.serial:06d}",
            "createdDateTime": stamp(t),
            "userId": USER,
            "userPrincipalName": "ada@contoso.com",
            "appDisplayName": app,
            "clientAppUsed": client,
            "ipAddress": ip.format(ip_host if ip_host is not None else 10 + self.random.randrange(3)),
            "status": {"errorCode": code},
            "location": {"city": city, "countryOrRegion": country, "geoCoordinates": {"latitude": lat, "longitude": lon}},
            "deviceDetail": {"operatingSystem": device[0], "browser": device[1]},
            "riskLevelAggregated": "none",
            "riskLevelDuringSignIn": "none",
            "riskState": "none",
            # Graph beta's stream, as both streams' records carry it.
            "isInteractive": interactive,
            "signInEventTypes": ["interactiveUser" if interactive else "nonInteractiveUser"],
        }
        if extra:
            event.update(extra)
        visible = t + timedelta(seconds=latency if latency is not None else self.random.randrange(60, 600))
        self.events.append((visible, event))
        return event

    def scenario(self, days):
        """Hourly polls, each with what became visible since the last one, as `replay` reads."""
        polls = []
        by_hour = defaultdict(list)
        for visible, event in self.events:
            by_hour[int((visible - START).total_seconds() // 3600) + 1].append(event)
        for hour in range(days * 24 + 1):
            events = by_hour.get(hour, [])
            if events or hour % 24 == 0:
                polls.append({"at": stamp(START + timedelta(hours=hour)), "events": events})
        return {"polls": polls}


def laptop_version(day):
    return (LAPTOP[0], LAPTOP[1].format(120 + day // 30, day % 7))


def phone_version(day):
    return (PHONE[0].format(2 + day // 30), PHONE[1])


def workday_laptop(m, day, place="london", count=6):
    """A working day at home: a handful of sign-ins between 08:00 and 18:00."""
    base = START + timedelta(days=day)
    for i in range(count):
        m.add(base + timedelta(hours=8 + i * 1.6, minutes=m.random.randrange(30)), place, laptop_version(day))


def normal_user(m, days=90, holiday=(40, 54), own_phone_from=1, vpn=False, carrier=False, new_laptop_day=None, android=False):
    """Laptop at home on weekdays, own phone from day 2, updates, a typo now and then, a quiet fortnight."""
    for day in range(days):
        if holiday[0] <= day < holiday[1]:
            continue
        base = START + timedelta(days=day)
        weekday = (day % 7) < 5
        if weekday:
            workday_laptop(m, day)
            if new_laptop_day is not None and day >= new_laptop_day:
                m.add(base + timedelta(hours=9, minutes=5), "london", (NEW_LAPTOP[0], NEW_LAPTOP[1].format(4)))
        if day >= own_phone_from:
            for hour in (7.5, 12.5, 21):
                device = (ANDROID[0].format(14 if day < 45 else 15), ANDROID[1].format(124 + day // 30)) if android else phone_version(day)
                place = "london"
                if carrier and hour == 12.5:
                    # The carrier's egress is geolocated to whichever city its gateway is in.
                    place = ("glasgow", "manchester", "birmingham", "london")[day % 4]
                m.add(base + timedelta(hours=hour, minutes=m.random.randrange(20)), place, device)
        if vpn and weekday and day % 2 == 0:
            # Work VPN, minutes after a home sign-in: an exit 780 km away.
            m.add(base + timedelta(hours=10, minutes=35), "london", laptop_version(day))
            m.add(base + timedelta(hours=10, minutes=40), "zurich-vpn", laptop_version(day), ip_host=7)
        if day % 9 == 3 and weekday:
            t = base + timedelta(hours=14, minutes=3)
            m.add(t, "london", laptop_version(day), code=50126)
            m.add(t + timedelta(seconds=40), "london", laptop_version(day))


def weekly_user(m, days=90):
    for day in range(0, days, 7):
        base = START + timedelta(days=day + 5)
        m.add(base + timedelta(hours=10), "london", laptop_version(day))
        m.add(base + timedelta(hours=10, minutes=20), "london", phone_version(day))


def imap_client(m, days=90):
    normal_user(m, days)
    for day in range(days):
        for hour in range(0, 24, 2):
            m.add(START + timedelta(days=day, hours=hour, minutes=7), "london", ("", ""), app="Office 365 Exchange Online", client="IMAP4", ip_host=10)


def token_refreshes(m, day, place="london", hours=range(7, 24)):
    """The phone's mail app and the laptop's chat app renewing their tokens every hour."""
    base = START + timedelta(days=day)
    for hour in hours:
        m.add(base + timedelta(hours=hour, minutes=m.random.randrange(5)), place, phone_version(day), app="Outlook Mobile",
              client="Mobile Apps and Desktop clients", interactive=False, extra={"incomingTokenType": "refreshToken"})
        m.add(base + timedelta(hours=hour, minutes=30 + m.random.randrange(5)), place, laptop_version(day), app="Microsoft Teams",
              client="Mobile Apps and Desktop clients", interactive=False, extra={"incomingTokenType": "refreshToken"})


def refreshing_user(m, days=90, vpn=False, trip=None):
    """normal_user, with hourly token refreshes from wherever the person's own sign-ins are."""
    normal_user(m, days, vpn=vpn)
    for day in range(days):
        if trip and trip[0] <= day < trip[1]:
            # The laptop travels: its first sign-in there, then the apps refresh from there.
            base = START + timedelta(days=day)
            m.add(base + timedelta(hours=6, minutes=50), "sydney", laptop_version(day))
            token_refreshes(m, day, "sydney")
        elif vpn and (day % 7) < 5 and day % 2 == 0:
            # The work VPN on alternate weekdays: the apps refresh through its exit after the
            # laptop's own sign-in there (10:40).
            token_refreshes(m, day, "london", hours=range(7, 11))
            token_refreshes(m, day, "zurich-vpn", hours=range(11, 24))
        else:
            token_refreshes(m, day)


def unanswered_prompts(m, days=90):
    """A normal user who lets an MFA prompt time out twice a month, then signs in a minute later."""
    normal_user(m, days=days)
    for day in range(5, days, 15):
        t = START + timedelta(days=day, hours=11, minutes=17)
        m.add(t, "london", laptop_version(day), code=500121,
              extra={"status": {"errorCode": 500121, "additionalDetails": "MFA denied; user did not respond to mobile app notification"}})
        m.add(t + timedelta(minutes=1), "london", laptop_version(day))


def adfs_unknown_location(m, days=90):
    """A normal user whose federated (AD FS) sign-ins Entra places nowhere: latitude 0, longitude 0,
    no country, half an hour after a sign-in at home, every weekday."""
    normal_user(m, days=days)
    for day in range(days):
        if (day % 7) >= 5 or 40 <= day < 54:
            continue
        event = m.add(START + timedelta(days=day, hours=9, minutes=40), "london", laptop_version(day), app="AD FS relying party")
        event["location"] = {"city": "", "state": "", "countryOrRegion": "", "geoCoordinates": {"latitude": 0, "longitude": 0}}


BENIGN = {
    "own phone from day 2, updates, typos, holiday": lambda m: normal_user(m),
    "Android 14 to 15 mid-way": lambda m: normal_user(m, android=True),
    "carrier IPs across the country (commute)": lambda m: normal_user(m, carrier=True),
    "regular VPN exit (Zurich, 780 km)": lambda m: normal_user(m, vpn=True),
    "weekly user": lambda m: weekly_user(m),
    "regular IMAP client": lambda m: imap_client(m),
    "new laptop on day 50": lambda m: normal_user(m, new_laptop_day=50),
    "phone and laptop apps refreshing tokens hourly": lambda m: refreshing_user(m),
    "the same, through a work VPN (Zurich exit)": lambda m: refreshing_user(m, vpn=True),
    "the same, a week in Sydney with the laptop": lambda m: refreshing_user(m, trip=(20, 27)),
    "MFA prompts left to time out twice a month": lambda m: unanswered_prompts(m),
    "AD FS sign-ins with Entra's unknown location": lambda m: adfs_unknown_location(m),
}


def attack_at():
    return START + timedelta(days=62, hours=3)  # a Wednesday night in month 3


def fast_burst(m):
    t = attack_at()
    for i in range(30):
        m.add(t + timedelta(seconds=10 * i), "moscow", ("Linux", "Firefox 126.0"), code=50126, prefix="atk")


def slow_spray(m):
    t = attack_at()
    for i in range(24):
        m.add(t + timedelta(seconds=150 * i), "moscow", ("Linux", "Firefox 126.0"), code=50126, prefix="atk", ip_host=i)


def guessed_password(m):
    t = attack_at()
    for i in range(4):
        m.add(t + timedelta(minutes=i), "lagos", ("Linux", "Firefox 126.0"), code=50126, prefix="atk", ip_host=9)
    m.add(t + timedelta(minutes=5), "lagos", ("Linux", "Firefox 126.0"), prefix="atk", ip_host=9)


def first_factor(m):
    m.add(attack_at(), "lagos", ("Linux", "Firefox 126.0"), code=50074, prefix="atk", ip_host=9)


def mfa_fatigue(m):
    t = attack_at()
    for i in range(8):
        m.add(t + timedelta(minutes=i), "lagos", ("Linux", "Firefox 126.0"), code=500121, prefix="atk", ip_host=9)


def far_travel(m):
    t = attack_at() + timedelta(hours=7)  # 10:00, between the user's own sign-ins
    m.add(t, "sydney", ("Linux", "Firefox 126.0"), prefix="atk", ip_host=9)


def hop_travel(m):
    t = attack_at()  # 03:00: the user's own sign-ins are hours away on either side
    m.add(t - timedelta(minutes=1), "london", laptop_version(62))
    m.add(t + timedelta(minutes=5), "amsterdam", laptop_version(62), ip_host=99)
    m.add(t + timedelta(minutes=11), "frankfurt", ("Linux", "Firefox 126.0"), prefix="atk", ip_host=9)


def risk_raised_later(m):
    t = attack_at()
    event = m.add(t, "london", laptop_version(62), prefix="atk", latency=120)
    updated = dict(event, riskLevelAggregated="high", riskState="atRisk")
    m.events.append((t + timedelta(hours=5), updated))


def out_of_order_burst(m):
    t = attack_at()
    for i in range(12):
        # The later half is published first, the earlier half two hours after.
        latency = 120 if i >= 6 else 7200
        m.add(t + timedelta(seconds=20 * i), "moscow", ("Linux", "Firefox 126.0"), code=50126, prefix="atk", latency=latency)


def new_country_success(m):
    m.add(attack_at(), "lagos", ("Windows 10", "Chrome 125.0.0"), prefix="atk", ip_host=9)


def late_legacy(m):
    # An IMAP sign-in Graph publishes three days after it happened.
    m.add(attack_at(), "moscow", ("", ""), app="Office 365 Exchange Online", client="IMAP4", prefix="atk", ip_host=9, latency=3 * 86400)


def token_theft(m):
    """A phishing proxy relays a sign-in (its address in Amsterdam) and keeps the refresh token,
    then uses it every hour from Moscow."""
    t = attack_at()
    m.add(t, "amsterdam", ("Linux", "Firefox 126.0"), prefix="atk", ip_host=9)
    for hour in range(1, 12):
        m.add(t + timedelta(hours=hour), "moscow", ("Linux", "Firefox 126.0"), app="Outlook Mobile", prefix="atk", ip_host=9,
              interactive=False, extra={"incomingTokenType": "refreshToken"})


def device_code_phishing(m):
    """The person enters a code at microsoft.com/devicelogin; a script in Lagos redeems it."""
    t = START + timedelta(days=62, hours=11)
    m.add(t, "london", laptop_version(62), app="Microsoft Azure CLI", prefix="atk", extra={"authenticationProtocol": "deviceCode"})
    m.add(t + timedelta(seconds=20), "lagos", ("Linux", ""), app="Microsoft Azure CLI", prefix="atk", ip_host=9, interactive=False,
          extra={"originalTransferMethod": "deviceCodeFlow"})


ATTACKS = [
    ("30 failures in 5 minutes", fast_burst, "failure-burst"),
    ("slow spray: 24 failures in an hour", slow_spray, "sustained-failure"),
    ("guessed password: 4 failures then success", guessed_password, "success-after-failures"),
    ("right password from Lagos, stopped by MFA", first_factor, "first-factor-new-place"),
    ("MFA fatigue: 8 denials in 8 minutes", mfa_fatigue, "mfa-fatigue"),
    ("success from Sydney at 10:00", far_travel, "impossible-travel"),
    ("London, Amsterdam, Frankfurt in 12 minutes", hop_travel, "impossible-travel"),
    ("risk raised 5 hours later", risk_raised_later, "risky-sign-in"),
    ("burst, later half published first", out_of_order_burst, "failure-burst"),
    ("success from a new country", new_country_success, "new-country"),
    ("IMAP from Moscow published 3 days late", late_legacy, "legacy-auth"),
    ("token theft: proxy sign-in, refreshes from Moscow", token_theft, "token-from-new-place"),
    ("device-code phishing redeemed from Lagos", device_code_phishing, "device-code-sign-in"),
]


def replay(binary, rules, path):
    result = subprocess.run([binary, "replay", path, "--rules", rules, "--format", "json"], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()], result.stderr


def month_of(alert):
    t = datetime.strptime(alert["lastEventTime"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return min(2, int((t - START) / MONTH))


def main():
    binary, rules, work = sys.argv[1:4]
    print("Benign habits, 3 months each: alerts per month (month 1 / 2 / 3) by rule")
    print(f"{'habit':46} {'alerts m1/m2/m3':>16}  rules")
    for seed, (name, build) in enumerate(BENIGN.items()):
        m = Month(seed)
        build(m)
        path = f"{work}/benign-{seed}.json"
        with open(path, "w") as f:
            json.dump(m.scenario(90), f)
        alerts, _ = replay(binary, rules, path)
        per_month = [0, 0, 0]
        by_rule = Counter()
        for alert in alerts:
            per_month[month_of(alert)] += 1
            by_rule[(alert["rule"]["id"], month_of(alert) + 1)] += 1
        detail = ", ".join(f"{rule} m{month}×{n}" for (rule, month), n in sorted(by_rule.items())) or "none"
        print(f"{name:46} {'/'.join(map(str, per_month)):>16}  {detail}")
    print()
    print("Attacks over a normal 3-month background (in month 3): detected by the rule meant for it")
    print(f"{'attack':46} {'rule':24} {'detected':>8} {'alerts':>6}  other rules on the attack")
    for seed, (name, build, rule) in enumerate(ATTACKS):
        m = Month(100 + seed)
        normal_user(m)
        build(m)
        path = f"{work}/attack-{seed}.json"
        with open(path, "w") as f:
            json.dump(m.scenario(90), f)
        alerts, stderr = replay(binary, rules, path)
        on_attack = [a for a in alerts if any(e.startswith("atk-") for e in a["events"])]
        meant = [a for a in on_attack if a["rule"]["id"] == rule]
        others = sorted({a["rule"]["id"] for a in on_attack} - {rule})
        late = " (told: published late)" if "published after" in stderr else ""
        print(f"{name:46} {rule:24} {'yes' if meant else 'NO':>8} {len(meant):>6}  {', '.join(others) or '-'}{late}")


if __name__ == "__main__":
    main()
