#!/usr/bin/env python3
"""Writes a Graph page's sign-ins as a Log Analytics / Sentinel `SigninLogs` export: JSON rows
(the portal's JSON download, an array of rows with capitalised columns and `TimeGenerated`),
the same rows with their dynamic columns as JSON text (`textjson`, as Microsoft's documented
rows and the query API write them: Tests/Contracts/exports/log-analytics-signinlogs.json), or
the portal's CSV (dynamic columns as JSON text). For benchmarking the export readers against the
same sign-ins as the page (the alerts must agree).

Usage: graph-to-log-analytics.py PAGE OUTPUT json|textjson|jsonl|csv
"""
import csv
import json
import sys

RENAMED = {"id": "Id", "ipAddress": "IPAddress", "location": "LocationDetails",
           "appliedConditionalAccessPolicies": "ConditionalAccessPolicies", "resourceId": "ResourceIdentity",
           "processingTimeInMilliseconds": "ProcessingTimeInMs", "riskEventTypes_v2": "RiskEventTypes_V2"}


def row(signin):
    out = {"TimeGenerated": signin.get("createdDateTime"), "Type": "SigninLogs",
           "TenantId": "8f2d6c1e-6b55-4a8e-9f0a-3b1c2d4e5f60", "OperationName": "Sign-in activity"}
    for name, value in signin.items():
        out[RENAMED.get(name, name[:1].upper() + name[1:])] = value
    status = signin.get("status") or {}
    out["ResultType"] = str(status.get("errorCode", ""))
    out["ResultDescription"] = status.get("failureReason")
    return out


page = json.load(open(sys.argv[1], encoding="utf-8"))
rows = [row(s) for s in page["value"]]
kind = sys.argv[3]
with open(sys.argv[2], "w", encoding="utf-8", newline="") as f:
    if kind == "json":
        f.write("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n")
    elif kind == "textjson":
        text = [{c: json.dumps(v) if isinstance(v, (dict, list)) else v for c, v in r.items()} for r in rows]
        f.write("[\n" + ",\n".join(json.dumps(r) for r in text) + "\n]\n")
    elif kind == "jsonl":
        f.write("".join(json.dumps(r) + "\n" for r in rows))
    else:
        columns = sorted({c for r in rows for c in r})
        writer = csv.writer(f)
        writer.writerow([c + " [UTC]" if c == "TimeGenerated" else c for c in columns])
        for r in rows:
            writer.writerow(["" if r.get(c) is None else json.dumps(r[c]) if isinstance(r.get(c), (dict, list)) else
                             ("true" if r[c] is True else "false" if r[c] is False else str(r[c])) for c in columns])
