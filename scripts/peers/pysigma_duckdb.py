#!/usr/bin/env python3
"""SigmaHQ's Azure sign-in rules run by pySigma's DuckDB backend over a Graph page.

Usage: pysigma_duckdb.py PAGE RULES [--matches OUT.jsonl]

PAGE is a Graph page {"value": [...]}. DuckDB reads it with `read_json` and builds a `logs`
table with the Log Analytics (Sentinel) columns SigmaHQ's rules name, from the Graph paths
that hold the same facts: the mapping and the portal-status step are pysigma_sqlite.py's,
so both peers see the same table. Each rule is converted by pySigma-backend-duckdb 0.1.4
(pySigma 1.5.1: it cannot share a venv with the SQLite backend, which needs pySigma 2) and run.
The backend ignores a correlation's timespan; SigmaHQ's 18 Azure sign-in rules have none.

Prints "pysigma-duckdb: N events, R rules, M matches; load X s, convert Y s, query Z s" and,
with --matches, writes one {"rule": id, "event": id} line per selected sign-in.
"""
import os
import sys
import time

import duckdb

from pysigma_sqlite import COLUMNS, convert, select, write_matches


def load(path):
    db = duckdb.connect(":memory:")
    # A member of the status object or the record itself: text as the SQLite peer stores it
    # ('true'/'false', numbers as written, objects and arrays as JSON text).
    selects = ["e->>'$.id' AS id"]
    for column, graph_path in COLUMNS.items():
        if graph_path is None:
            selects.append(f'NULL::VARCHAR AS "{column}"')
            continue
        json_path = "$." + graph_path
        selects.append(f"""CASE WHEN json_type(e, '{json_path}') IN ('OBJECT', 'ARRAY') THEN (e->'{json_path}')::VARCHAR
                               ELSE e->>'{json_path}' END AS "{column}\"""")
    size = os.path.getsize(path) + 1
    db.execute(f"""CREATE TABLE logs AS SELECT {", ".join(selects)}
                   FROM (SELECT unnest(value) AS e
                         FROM read_json(?, columns={{'value': 'JSON[]'}}, format='auto', maximum_object_size={size}))""", [path])
    return db


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    events_path, rules_path = argv[1], argv[2]
    matches_path = argv[argv.index("--matches") + 1] if "--matches" in argv else None
    started = time.perf_counter()
    db = load(events_path)
    (events,) = db.execute("SELECT count(*) FROM logs").fetchone()
    loaded = time.perf_counter()
    from sigma_backend_duckdb import DuckDBBackend
    queries = convert(rules_path, DuckDBBackend)
    converted = time.perf_counter()
    found = select(db, queries)
    queried = time.perf_counter()
    if matches_path:
        write_matches(matches_path, found)
    print(f"pysigma-duckdb: {events} events, {len(queries)} rules, {len(found)} matches; "
          f"load {loaded - started:.2f} s, convert {converted - loaded:.2f} s, query {queried - converted:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
