#!/usr/bin/env python3
"""Checks webhook bodies against each service's documented limits, written apart from the Swift presets.

Reads JSON lines {"preset": ..., "name": ..., "body": {...}} on stdin. The tables below come from
the services' own documentation (see ../shared/reference/notifiers.md for the sources):

  slack        Incoming Webhooks / Block Kit: text required, at most 50 blocks, section text at
               most 3000 characters; mention and link markup only as Slack writes it.
  discord      Execute Webhook: content 2000, at most 10 embeds; per embed title 256,
               description 4096, at most 25 fields, field name 256, value 1024, footer 2048,
               author 256, all of it together 6000; allowed_mentions.parse empty.
  pagerduty    Events API v2: routing_key of 32 characters, event_action trigger|acknowledge|
               resolve, dedup_key at most 255, summary at most 1024, source and severity
               (critical|error|warning|info) on a trigger, the whole event at most 512 KB.
  alertmanager Webhook format version 4: status firing|resolved, label names
               [a-zA-Z_][a-zA-Z0-9_]*, string label values, RFC 3339 startsAt/endsAt, a
               16-hex-digit fingerprint.
  generic      Standard Webhooks envelope: type of full-stop separated [a-zA-Z0-9_] words,
               an RFC 3339 timestamp, a data object.
  teams        The Adaptive Card schema is checked by validate_card.py; here the body must stay
               under the about 28 KB Teams takes.
  ntfy         Publishing as JSON (docs.ntfy.sh/publish): topic, title, message, priority 1-5,
               tags a list of strings; the message at most 4096 bytes (a longer one becomes an
               attachment); no markdown flag (plain text).
  gotify       POST /message: title, message (required), priority 0-10; no
               client::display markdown extra (plain text).
  telegram     Bot API sendMessage: chat_id, text of 1-4096 characters, no parse_mode (plain
               text), disable_notification a boolean.
  For the three phone presets, no text may hold a raw control, bidi or separator character, and
  no http(s) URL from the data may stay live (only the program's own mysignins link).

Discord and Slack count characters as JavaScript does (UTF-16 code units); PagerDuty's byte
limit is UTF-8. Prints one line per violation and a summary; exits 0 only when none was found.
`--self-test` first proves the checker rejects bodies that break each table.
"""
import argparse
import json
import re
import sys

RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
LABEL = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
RAW_CONTROL = re.compile("[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
CHAT_MARKUP = re.compile(r"<[!@#]|<at>|<https?:|(?<![\w])@(everyone|here|channel)\b", re.IGNORECASE)
# Slack expands mentions and links only in its angle-bracket syntax (a bare @channel stays text
# in an incoming webhook without link_names).
SLACK_MARKUP = re.compile(r"<[!@#]|<https?:|<mailto:", re.IGNORECASE)


def units(text):
    return len(text.encode("utf-16-le")) // 2


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)


def at_most(problems, what, text, limit, measure=units):
    if not isinstance(text, str):
        problems.append(f"{what} is not a string")
    elif measure(text) > limit:
        problems.append(f"{what} is {measure(text)} long, more than {limit}")


def check_slack(body, problems):
    if not isinstance(body.get("text"), str) or not body["text"]:
        problems.append("text (the notification fallback) is missing")
    blocks = body.get("blocks", [])
    if len(blocks) > 50:
        problems.append(f"{len(blocks)} blocks, more than 50")
    for index, block in enumerate(blocks):
        text = block.get("text")
        if block.get("type") == "section" and isinstance(text, dict):
            at_most(problems, f"blocks[{index}].text.text", text.get("text"), 3000)
    for text in strings(body):
        if SLACK_MARKUP.search(text):
            problems.append(f"mention or link markup reaches Slack: {text[:60]!r}")


def check_discord(body, problems):
    if "content" in body:
        at_most(problems, "content", body["content"], 2000)
    embeds = body.get("embeds", [])
    if not embeds and not body.get("content"):
        problems.append("neither content nor embeds")
    if len(embeds) > 10:
        problems.append(f"{len(embeds)} embeds, more than 10")
    for index, embed in enumerate(embeds):
        total = 0
        for key, limit in (("title", 256), ("description", 4096)):
            if key in embed:
                at_most(problems, f"embeds[{index}].{key}", embed[key], limit)
                total += units(embed[key])
        fields = embed.get("fields", [])
        if len(fields) > 25:
            problems.append(f"embeds[{index}] has {len(fields)} fields, more than 25")
        for number, field in enumerate(fields):
            at_most(problems, f"embeds[{index}].fields[{number}].name", field.get("name"), 256)
            at_most(problems, f"embeds[{index}].fields[{number}].value", field.get("value"), 1024)
            total += units(field.get("name", "")) + units(field.get("value", ""))
        for key, limit in (("footer", 2048), ("author", 256)):
            part = embed.get(key)
            if isinstance(part, dict):
                name = part.get("text" if key == "footer" else "name", "")
                at_most(problems, f"embeds[{index}].{key}", name, limit)
                total += units(name)
        if total > 6000:
            problems.append(f"embeds[{index}] holds {total} characters, more than 6000")
    if body.get("allowed_mentions", {}).get("parse") != []:
        problems.append("allowed_mentions.parse is not empty: sign-in text could ping")


def check_pagerduty(body, problems):
    if not isinstance(body.get("routing_key"), str) or len(body["routing_key"]) != 32:
        problems.append("routing_key is not 32 characters")
    action = body.get("event_action")
    if action not in ("trigger", "acknowledge", "resolve"):
        problems.append(f"event_action {action!r}")
    if "dedup_key" in body:
        at_most(problems, "dedup_key", body["dedup_key"], 255, len)
    elif action != "trigger":
        problems.append(f"{action} without dedup_key")
    if action == "trigger":
        payload = body.get("payload", {})
        at_most(problems, "payload.summary", payload.get("summary"), 1024, len)
        if not payload.get("source"):
            problems.append("payload.source is missing")
        if payload.get("severity") not in ("critical", "error", "warning", "info"):
            problems.append(f"payload.severity {payload.get('severity')!r}")
        if "timestamp" in payload and not RFC3339.match(payload["timestamp"]):
            problems.append("payload.timestamp is not ISO 8601")
    size = len(json.dumps(body, ensure_ascii=False).encode("utf-8"))
    if size > 512 * 1024:
        problems.append(f"the event is {size} bytes, more than 512 KB")
    for text in strings(body):
        if RAW_CONTROL.search(text) or CHAT_MARKUP.search(text):
            problems.append(f"raw control or chat markup: {text[:60]!r}")


def check_alertmanager(body, problems):
    if body.get("version") != "4":
        problems.append("version is not \"4\"")
    if body.get("status") not in ("firing", "resolved"):
        problems.append(f"status {body.get('status')!r}")
    if not isinstance(body.get("groupKey"), str):
        problems.append("groupKey is not a string")
    alerts = body.get("alerts")
    if not isinstance(alerts, list) or not alerts:
        problems.append("no alerts")
        alerts = []
    for key in ("groupLabels", "commonLabels"):
        for name, value in body.get(key, {}).items():
            if not LABEL.match(name) or not isinstance(value, str):
                problems.append(f"{key} has a bad label {name!r}")
    for index, alert in enumerate(alerts):
        if alert.get("status") not in ("firing", "resolved"):
            problems.append(f"alerts[{index}].status {alert.get('status')!r}")
        for name, value in alert.get("labels", {}).items():
            if not LABEL.match(name):
                problems.append(f"alerts[{index}] label name {name!r} is not [a-zA-Z_][a-zA-Z0-9_]*")
            if not isinstance(value, str):
                problems.append(f"alerts[{index}] label {name} is not a string")
        for key in ("startsAt", "endsAt"):
            if not RFC3339.match(str(alert.get(key, ""))):
                problems.append(f"alerts[{index}].{key} is not RFC 3339")
        if not re.fullmatch(r"[0-9a-f]{16}", str(alert.get("fingerprint", ""))):
            problems.append(f"alerts[{index}].fingerprint is not 16 hex digits")
    for text in strings(body):
        if RAW_CONTROL.search(text) or CHAT_MARKUP.search(text):
            problems.append(f"raw control or chat markup: {text[:60]!r}")


def check_generic(body, problems):
    if not re.fullmatch(r"[a-zA-Z0-9_]+(\.[a-zA-Z0-9_]+)*", str(body.get("type", ""))):
        problems.append(f"type {body.get('type')!r} is not full-stop separated [a-zA-Z0-9_] words")
    if not RFC3339.match(str(body.get("timestamp", ""))):
        problems.append("timestamp is not RFC 3339")
    if not isinstance(body.get("data"), dict):
        problems.append("data is not an object")
    for text in strings(body):
        if RAW_CONTROL.search(text) or CHAT_MARKUP.search(text):
            problems.append(f"raw control or chat markup: {text[:60]!r}")


def check_teams(body, problems):
    size = len(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > 28_000:
        problems.append(f"the card is {size} bytes, more than about 28 KB")


LIVE_URL = re.compile(r"(?i)\b(https?|ftp)://(?!mysignins\.microsoft\.com\b)")


def phone_text(problems, what, text):
    if not isinstance(text, str):
        problems.append(f"{what} is not a string")
        return
    if RAW_CONTROL.search(text.replace("\n", "")):
        problems.append(f"{what} holds a raw control, bidi or separator character")
    if LIVE_URL.search(text):
        problems.append(f"{what} holds a live URL: {LIVE_URL.search(text).group(0)}")


def check_ntfy(body, problems):
    for key in body:
        if key not in ("topic", "title", "message", "priority", "tags"):
            problems.append(f"unexpected key {key}")
    if not re.match(r"^[-_A-Za-z0-9]{1,64}$", str(body.get("topic", ""))):
        problems.append("topic is not a valid ntfy topic")
    at_most(problems, "message", body.get("message"), 4096, lambda t: len(t.encode("utf-8")))
    if body.get("priority") not in (1, 2, 3, 4, 5):
        problems.append(f"priority {body.get('priority')} is not 1-5")
    if not isinstance(body.get("tags"), list) or not all(isinstance(t, str) for t in body["tags"]):
        problems.append("tags is not a list of strings")
    for key in ("title", "message"):
        phone_text(problems, key, body.get(key))


def check_gotify(body, problems):
    for key in body:
        if key not in ("title", "message", "priority", "extras"):
            problems.append(f"unexpected key {key}")
    if not body.get("message"):
        problems.append("message is required")
    if body.get("priority") not in range(0, 11):
        problems.append(f"priority {body.get('priority')} is not 0-10")
    if "markdown" in json.dumps(body.get("extras", {})):
        problems.append("markdown display asked for")
    for key in ("title", "message"):
        phone_text(problems, key, body.get(key))


def check_telegram(body, problems):
    if "parse_mode" in body:
        problems.append("parse_mode set: the text is not plain")
    if "chat_id" not in body:
        problems.append("chat_id is required")
    text = body.get("text")
    if not isinstance(text, str) or not text.strip():
        problems.append("text is empty")
    else:
        at_most(problems, "text", text, 4096)
    if not isinstance(body.get("disable_notification"), bool):
        problems.append("disable_notification is not a boolean")
    phone_text(problems, "text", text)


CHECKS = {"ntfy": check_ntfy, "gotify": check_gotify, "telegram": check_telegram, "slack": check_slack, "discord": check_discord, "pagerduty": check_pagerduty,
          "alertmanager": check_alertmanager, "generic": check_generic, "teams": check_teams}


def problems_of(preset, body):
    problems = []
    CHECKS[preset](body, problems)
    return problems


def self_test():
    bad = [
        ("slack", {"blocks": []}),
        ("slack", {"text": "x", "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "é" * 3001}}]}),
        ("slack", {"text": "<!channel> hi"}),
        ("discord", {"embeds": [{"description": "\U0001F600" * 2049}], "allowed_mentions": {"parse": []}}),
        ("discord", {"embeds": [{"title": "t", "fields": [{"name": "n", "value": "v" * 1000}] * 7}], "allowed_mentions": {"parse": []}}),
        ("discord", {"content": "x"}),
        ("pagerduty", {"routing_key": "R" * 32, "event_action": "trigger", "payload": {"summary": "s" * 1025, "source": "h", "severity": "info"}}),
        ("pagerduty", {"routing_key": "R" * 32, "event_action": "resolve"}),
        ("pagerduty", {"routing_key": "R" * 32, "event_action": "trigger", "payload": {"summary": "a\u202eb", "source": "h", "severity": "info"}}),
        ("alertmanager", {"version": "4", "status": "firing", "groupKey": "{}", "alerts": [{"status": "firing", "labels": {"1st": "x"}, "startsAt": "2026-01-01T00:00:00Z", "endsAt": "0001-01-01T00:00:00Z", "fingerprint": "0123456789abcdef"}]}),
        ("alertmanager", {"version": "4", "status": "firing", "groupKey": "{}", "alerts": [{"status": "firing", "labels": {}, "startsAt": "yesterday", "endsAt": "0001-01-01T00:00:00Z", "fingerprint": "x"}]}),
        ("generic", {"type": "alert fired", "timestamp": "2026-01-01T00:00:00Z", "data": {}}),
        ("teams", {"attachments": [{"content": {"body": [{"text": "x" * 30_000}]}}]}),
        ("ntfy", {"topic": "t", "title": "x", "message": "é" * 2049, "priority": 5, "tags": []}),
        ("ntfy", {"topic": "t", "title": "x", "message": "see https://evil.example", "priority": 5, "tags": []}),
        ("ntfy", {"topic": "t", "title": "x", "message": "m", "priority": 6, "tags": []}),
        ("gotify", {"title": "x", "message": "a\u202eb", "priority": 8}),
        ("gotify", {"title": "x", "message": "m", "priority": 11}),
        ("telegram", {"chat_id": "1", "text": "x", "parse_mode": "HTML", "disable_notification": False}),
        ("telegram", {"chat_id": "1", "text": "\U0001F600" * 2049, "disable_notification": False}),
        ("telegram", {"chat_id": "1", "text": " ", "disable_notification": False}),
    ]
    failures = [f"accepted a bad {preset} body {json.dumps(body)[:80]}" for preset, body in bad if not problems_of(preset, body)]
    good = ("alertmanager", {"version": "4", "status": "resolved", "groupKey": "{}:{alertname=\"a\"}", "alerts": [{"status": "resolved", "labels": {"alertname": "a"}, "startsAt": "2026-01-01T00:00:00Z", "endsAt": "2026-01-01T01:00:00.000Z", "fingerprint": "0123456789abcdef"}]})
    if problems_of(*good):
        failures.append(f"rejected a good body: {problems_of(*good)}")
    for line in failures:
        print("self-test: " + line)
    print(f"self-test: {len(bad)} bodies breaking a table, 1 within them, {'ok' if not failures else 'FAILED'}")
    return not failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--self-test", action="store_true")
    if parser.parse_args().self_test:
        return 0 if self_test() else 1
    checked = failed = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        item = json.loads(line)
        checked += 1
        problems = problems_of(item["preset"], item["body"])
        if problems:
            failed += 1
            for problem in problems:
                print(f"{item['preset']}/{item.get('name', '?')}: {problem}")
    print(f"{checked} bodies, {failed} over a limit")
    return 0 if failed == 0 and checked > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
