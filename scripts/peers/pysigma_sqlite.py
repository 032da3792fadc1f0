#!/usr/bin/env python3
"""SigmaHQ's Azure sign-in rules run by pySigma's SQLite backend over Graph sign-ins.

Usage: pysigma_sqlite.py EVENTS RULES [--matches OUT.jsonl]

EVENTS is a Graph page {"value": [...]}, a JSON array or JSON lines of signIn objects. Each
sign-in becomes one row of a `logs` table whose columns carry the Log Analytics (Sentinel)
names the SigmaHQ rules use, filled from the Graph v1.0 / beta paths that hold the same facts
(the mapping below is written from Microsoft's SigninLogs and signIn references, apart from the
agent's own field catalogue). Columns are TEXT COLLATE NOCASE and booleans 'true'/'false', as
Zircolite builds its table, which is what the backend expects. Objects and arrays are stored as
compact JSON with sorted keys. Each rule is converted with pySigma-backend-sqlite and run.

Prints "pysigma-sqlite: N events, R rules, M matches; load X s, convert Y s, query Z s" and,
with --matches, writes one {"rule": id, "event": id} line per selected sign-in.
"""
import json
import sqlite3
import sys
import time

# Sentinel / Log Analytics column (as SigmaHQ writes it) -> Graph signIn path. SQLite's column
# names are case-insensitive, so `Resultdescription` (one SigmaHQ rule's spelling) is this
# `ResultDescription` column.
COLUMNS = {
    "ResultType": "status.errorCode",
    "ResultDescription": "status.failureReason",
    "Status": "status",
    "AuthenticationRequirement": "authenticationRequirement",
    "ClientApp": "clientAppUsed",
    "Username": "userPrincipalName",
    "ResourceDisplayName": "resourceDisplayName",
    "RiskState": "riskState",
    "conditionalAccessStatus": "conditionalAccessStatus",
    "NetworkLocationDetails": "networkLocationDetails",
    "userAgent": "userAgent",
    "DeviceDetail.deviceId": "deviceDetail.deviceId",
    "DeviceDetail.isCompliant": "deviceDetail.isCompliant",
    "DeviceDetail.trusttype": "deviceDetail.trustType",
    # No Graph property holds these; their columns stay NULL.
    "ActivityDetails": None,
    "properties.message": None,
}


def read_events(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    stripped = text.lstrip("\ufeff \t\r\n")
    try:
        document = json.loads(stripped)
    except json.JSONDecodeError:
        return [json.loads(line) for line in stripped.splitlines() if line.strip()]
    if isinstance(document, dict):
        return document["value"] if "value" in document else [document]
    return document


def at(event, path):
    value = event
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def cell(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return str(value)


def load(events):
    db = sqlite3.connect(":memory:")
    names = ["id"] + list(COLUMNS)
    db.execute("CREATE TABLE logs (" + ", ".join(f'"{n}" TEXT COLLATE NOCASE' for n in names) + ")")
    rows = ([event.get("id")] + [cell(at(event, path)) if path else None for path in COLUMNS.values()] for event in events)
    db.executemany("INSERT INTO logs VALUES (" + ", ".join("?" * len(names)) + ")", rows)
    return db


def status_pipeline():
    """SigmaHQ writes `Status: 'Success'` as the Entra portal's Status column says it; the
    Status column here is Log Analytics' (the status object's JSON text, which `Status|contains`
    searches), so a plain 'Success' is the portal's success: ResultType 0."""
    from dataclasses import dataclass
    from sigma.processing.pipeline import ProcessingItem, ProcessingPipeline
    from sigma.processing.transformations.base import DetectionItemTransformation
    from sigma.rule import SigmaDetectionItem
    from sigma.types import SigmaNumber, SigmaString

    @dataclass
    class PortalSuccess(DetectionItemTransformation):
        def apply_detection_item(self, item):
            if (item.field or "").lower() != "status" or item.modifiers or not item.value:
                return None
            if not all(isinstance(v, SigmaString) and str(v).lower() == "success" for v in item.value):
                return None
            return SigmaDetectionItem("ResultType", [], [SigmaNumber(0)])

    return ProcessingPipeline(name="portal status", items=[ProcessingItem(identifier="portal-success", transformation=PortalSuccess())])


def convert(rules_path, backend_class=None):
    """(rule id, query) for each rule, by `backend_class` (default: pySigma's SQLite backend)
    with the portal-status step."""
    from sigma.collection import SigmaCollection
    if backend_class is None:
        from sigma.backends.sqlite import sqliteBackend as backend_class
    rules = SigmaCollection.load_ruleset([rules_path])
    backend = backend_class(processing_pipeline=status_pipeline())
    queries = []
    for rule in rules:
        for query in backend.convert_rule(rule):
            queries.append((str(rule.id), query))
    return queries


def select(db, queries):
    """(rule id, sign-in id) for every row each query selects: the backend selects * from logs,
    and the id column says which sign-in each row is."""
    found = []
    for rule_id, query in queries:
        for (event_id,) in db.execute(query.replace("SELECT * FROM", "SELECT id FROM", 1)).fetchall():
            found.append((rule_id, event_id))
    return found


def write_matches(path, found):
    """One {"rule": id, "event": id} line per selected sign-in."""
    with open(path, "w", encoding="utf-8") as out:
        for rule_id, event_id in found:
            out.write(json.dumps({"rule": rule_id, "event": event_id}) + "\n")


def run(argv, name, doc, load_page, backend=None):
    """A peer's command line: PAGE loaded by `load_page` (giving the database and its event
    count), RULES converted by the backend `backend()` gives (SQLite's when None; imported only
    once the page is loaded, so its import counts as converting), selected, each step timed."""
    if len(argv) < 3:
        print(doc, file=sys.stderr)
        return 2
    events_path, rules_path = argv[1], argv[2]
    matches_path = argv[argv.index("--matches") + 1] if "--matches" in argv else None
    started = time.perf_counter()
    db, events = load_page(events_path)
    loaded = time.perf_counter()
    queries = convert(rules_path, backend() if backend else None)
    converted = time.perf_counter()
    found = select(db, queries)
    queried = time.perf_counter()
    if matches_path:
        write_matches(matches_path, found)
    print(f"{name}: {events} events, {len(queries)} rules, {len(found)} matches; "
          f"load {loaded - started:.2f} s, convert {converted - loaded:.2f} s, query {queried - converted:.2f} s")
    return 0


def main(argv):
    def load_page(path):
        events = read_events(path)
        return load(events), len(events)
    return run(argv, "pysigma-sqlite", __doc__, load_page)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
