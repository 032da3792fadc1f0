#!/usr/bin/env python3
"""Reads a DOM that Chromium dumped and prints what the report checks count, one per line:
places (rows of the places table), circles, alerts, trips, whether the first alert comes before
the map (`first-alert-before-map yes`), the account line's text, then every element name and
every attribute that is not one the report itself writes. Usage: report_dom.py DOM-FILE"""
import sys
from html.parser import HTMLParser

ELEMENTS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "section", "div", "figure",
            "figcaption", "svg", "path", "g", "line", "circle", "rect", "span", "table", "caption", "thead", "tbody", "tr",
            "th", "td", "article", "code", "footer", "ol", "li"}
ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "class", "id", "viewbox", "role", "aria-labelledby", "d", "data-alert",
              "x1", "y1", "x2", "y2", "cx", "cy", "r", "x", "y", "width", "height", "preserveaspectratio"}


class Count(HTMLParser):
    def __init__(self):
        super().__init__()
        self.counts = {"places": 0, "circles": 0, "alerts": 0, "trips": 0}
        self.strange = []
        self.in_places = False
        self.tags = 0
        self.first_alert = None
        self.first_map = None
        self.in_account = False
        self.account = ""

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class") or ""
        self.tags += 1
        if tag == "article" and classes.startswith("alert") and self.first_alert is None:
            self.first_alert = self.tags
        if tag == "svg" and classes == "map" and self.first_map is None:
            self.first_map = self.tags
        if tag == "p" and dict(attrs).get("id") == "account":
            self.in_account = True
        if tag not in ELEMENTS:
            self.strange.append("element " + tag)
        for name, value in attrs:
            if name not in ATTRIBUTES:
                self.strange.append("attribute %s on %s" % (name, tag))
            if value and any(word in value.lower() for word in ("javascript:", "http:", "https:", "url(")) and name != "content":
                self.strange.append("URL in %s on %s" % (name, tag))
        if tag == "table":
            self.in_places = classes == "places-table"
        if tag == "tr" and self.in_places:
            self.counts["places"] += 1
        if tag == "circle" and classes.startswith("place"):
            self.counts["circles"] += 1
        if tag == "article" and classes.startswith("alert"):
            self.counts["alerts"] += 1
        if tag == "line" and classes == "trip":
            self.counts["trips"] += 1

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_places = False
        if tag == "p":
            self.in_account = False

    def handle_data(self, data):
        if self.in_account:
            self.account += data


parser = Count()
parser.feed(open(sys.argv[1], encoding="utf-8").read())
parser.counts["places"] -= 1  # the header row
for key, value in parser.counts.items():
    print(key, value)
before = parser.first_alert is not None and parser.first_map is not None and parser.first_alert < parser.first_map
print("first-alert-before-map", "yes" if before else "no")
print("account", " ".join(parser.account.split()))
for item in sorted(set(parser.strange)):
    print("strange", item)
