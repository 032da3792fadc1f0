#!/usr/bin/env python3
"""Selects boolean, unanchored-search cases from rust-lang/regex's testdata/*.toml.

Usage: scripts/convert-rust-regex-suite.py PATH/TO/regex/testdata COMMIT > Tests/TophhieRegexTests/Data/rust-regex-suite.json

Each selected case records the pattern, haystack, options, whether Rust's test
searched anchored (the Swift test then wraps the pattern as \\A(?:...)), and the
expected outcome: "match", "no match", or "error" (the pattern must be refused).
Skipped cases are counted by reason on stderr, and in the output's "skipped" field.
"""
import json
import pathlib
import re
import sys
import tomllib
from collections import Counter

root = pathlib.Path(sys.argv[1])
commit = sys.argv[2]
skipped = Counter()
selected = []

# Constructs outside the engine's syntax, or read differently by Rust than by PCRE (Sigma's flavour).
UNSUPPORTED = [
    (re.compile(r"\\[pP]"), "Unicode property classes \\p{..}"),
    (re.compile(r"\\[<>]|\\b\{"), "Rust-only word-boundary syntax (\\< \\> \\b{..})"),
    (re.compile(r"\(\?[a-zA-Z-]*[xUuRo]"), "Rust-only or extended inline flags (x U u R)"),
    (re.compile(r"\\U|\\x\{[0-9A-Fa-f]{7,}"), "Rust-only escapes (\\U, long \\x{..})"),
    (re.compile(r"\[[^\]]*(\[(?!:)|&&|~~|--)"), "nested classes or class set operations (Rust-only)"),
    (re.compile(r"\{\s*\d*\s*,?\s*\d*\s*\}") , None),  # checked below for whitespace only
]
PERL_CLASS = re.compile(r"\\[dDwWsSbB]|\[\[:")
LINE_ANCHOR_END = re.compile(r"(?<!\\)\$|\\Z")


def unescape(value: str) -> bytes:
    # regex-test's `unescape = true`: \xNN is a byte, \n \t \\ etc. as in Rust.
    out = bytearray()
    index = 0
    while index < len(value):
        char = value[index]
        if char == "\\" and index + 1 < len(value):
            nxt = value[index + 1]
            if nxt == "x":
                out.append(int(value[index + 2:index + 4], 16))
                index += 4
                continue
            mapping = {"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\", "0": b"\0"}
            if nxt in mapping:
                out += mapping[nxt]
                index += 2
                continue
        out += char.encode("utf-8")
        index += 1
    return bytes(out)


def classify(test, relative):
    regex = test["regex"]
    if isinstance(regex, list):
        return "regex set (several patterns)", None
    if test.get("bounds") is not None:
        return "search restricted to a sub-range (bounds)", None
    if test.get("unicode", True) is False or test.get("utf8", True) is False:
        return "byte-oriented mode (unicode=false or utf8=false)", None
    if test.get("line-terminator") is not None:
        return "custom line terminator", None
    haystack = test["haystack"]
    if test.get("unescape"):
        try:
            haystack = unescape(haystack).decode("utf-8")
        except UnicodeDecodeError:
            return "haystack is not valid UTF-8", None
    if not test.get("compiles", True):
        return None, (regex, haystack, "error")
    if relative == "regex-lite.toml" and test.get("case-insensitive"):
        return "regex-lite's ASCII-only case folding (the regex crate itself folds Unicode, as this engine does)", None
    counts = [int(number) for pair in re.findall(r"\{(\d+)(?:,(\d*))?\}", regex) for number in pair if number]
    if any(count > 1000 for count in counts):
        # Refused here by design (RE2's limit of 1000), so the case asserts the refusal.
        return None, (regex, haystack, "error")
    for pattern, reason in UNSUPPORTED:
        if reason and pattern.search(regex):
            return reason, None
    if re.search(r"\{[^}]*\s[^}]*\}", regex) and re.search(r"\{\s*\d", regex):
        return "whitespace inside {m,n} (Rust-only)", None
    if re.search(r"(?<!\\)\{,", regex):
        return "{,n} (read differently by PCRE and Rust)", None
    if PERL_CLASS.search(regex) and any(ord(c) > 0x7F for c in haystack):
        return "\\w \\d \\s \\b are Unicode-aware in Rust, ASCII here", None
    if test.get("case-insensitive") and PERL_CLASS.search(regex):
        pass
    if haystack.endswith("\n") and LINE_ANCHOR_END.search(regex):
        return "$ before a final newline (PCRE/ICU match, Rust does not)", None
    if haystack.endswith("\n") and "^" in regex and re.search(r"\(\?[a-z]*m", regex):
        return "multiline ^ after a final newline (Rust matches, PCRE/ICU do not)", None
    expected = "match" if test["matches"] else "no match"
    return None, (regex, haystack, expected)


files = sorted(root.rglob("*.toml"))
for path in files:
    relative = path.relative_to(root).as_posix()
    with path.open("rb") as handle:
        document = tomllib.load(handle)
    for test in document.get("test", []):
        reason, case = classify(test, relative)
        if reason:
            skipped[reason] += 1
            continue
        regex, haystack, expected = case
        options = "i" if test.get("case-insensitive") else ""
        selected.append({
            "name": f"{relative}:{test['name']}",
            "pattern": regex,
            "haystack": haystack,
            "options": options,
            "anchored": bool(test.get("anchored", False)),
            "expected": expected,
        })

output = {
    "source": f"https://github.com/rust-lang/regex/tree/{commit}/testdata",
    "selected": len(selected),
    "skipped": dict(sorted(skipped.items(), key=lambda item: -item[1])),
    "cases": selected,
}
json.dump(output, sys.stdout, ensure_ascii=False, indent=1)
sys.stdout.write("\n")
print(f"selected {len(selected)}, skipped {sum(skipped.values())}", file=sys.stderr)
for reason, count in output["skipped"].items():
    print(f"  {count:4d}  {reason}", file=sys.stderr)
