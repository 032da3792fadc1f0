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

import duckdb

from pysigma_sqlite import COLUMNS, run


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
    def load_page(path):
        db = load(path)
        (events,) = db.execute("SELECT count(*) FROM logs").fetchone()
        return db, events

    def backend():
        from sigma_backend_duckdb import DuckDBBackend
        return DuckDBBackend
    return run(argv, "pysigma-duckdb", __doc__, load_page, backend)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
