"""Validates an Adaptive Card (JSON on stdin) against the published 1.5.0 schema.

Usage: validate_card.py SCHEMA < card.json
Prints "valid", or each violation with its JSON path; exits 0 when valid, 1 when not.
"""
import json
import sys

import jsonschema

with open(sys.argv[1], encoding="utf-8") as f:
    schema = json.load(f)
card = json.load(sys.stdin)
validator = jsonschema.Draft6Validator(schema)
errors = sorted(validator.iter_errors(card), key=lambda e: list(e.absolute_path))
for error in errors:
    print("/".join(str(p) for p in error.absolute_path) + ": " + error.message[:300])
if not errors:
    print("valid")
sys.exit(1 if errors else 0)
