#!/usr/bin/env python3
"""Checks that docs/quality.md's tables say where their figures come from,
and that the figures of a table drawn from committed CSVs are in them.

Each table is preceded (on the lines just above it, blank lines allowed) by
a marker comment, one of:

    <!-- figures: docs/quality.csv docs/quality_camera.csv -->
    <!-- figures: not from a CSV: REASON -->
    <!-- figures: docs/x.csv; not from a CSV: column "noisy": REASON -->

The last form checks every column but those named (quoted header cells).
For a table with CSVs, every figure with a decimal point in its rows (the
header row aside) must equal a number of those CSVs rounded to as many
decimals as the table prints (a sign, "+" or "−", is ignored), in the
CSV rows of the image the table's row names first, where it names one;
integers
(sigma, levels, counts) are keys, not measurements, and are not checked.
A table marked "not from a CSV" must give its reason. Exits 1 and names
every table without a marker and every figure not found.

    tests/docs/check_figures.py [docs/quality.md]      (ctest: docs.quality_figures)
"""
import csv
import decimal
import os
import re
import sys

MARKER = re.compile(r"<!--\s*figures:\s*(.*?)\s*-->")
FIGURE = re.compile(r"(?<![\w.])[+\-−]?(\d+\.\d+)(?![\w.])")


def csv_numbers(paths, root):
    """Every numeric cell of the CSVs, as the strings it rounds to at 1-4
    decimals, by the row's first cell (the image) and all together."""
    by_image = {}
    for path in paths:
        with open(os.path.join(root, path), newline="") as f:
            for row in csv.reader(f):
                if not row:
                    continue
                found = by_image.setdefault(row[0].split(" ")[0], set())
                for cell in row:
                    try:
                        value = abs(decimal.Decimal(cell.strip()))
                    except decimal.InvalidOperation:
                        continue
                    if not value.is_finite():
                        continue
                    for decimals in range(1, 5):  # halves up by hand, or as printf rounds the binary value
                        found.add(str(value.quantize(decimal.Decimal(1).scaleb(-decimals), decimal.ROUND_HALF_UP)))
                        found.add(f"{float(value):.{decimals}f}")
    return by_image


def numbers_for(by_image, row_text):
    """A row that names an image of the CSVs in its first cell is checked
    against that image's rows only; another row against every row."""
    first = row_text.strip("|").split("|")[0].strip().split(" ")[0]
    if first in by_image:
        return by_image[first]
    return set().union(*by_image.values())


def tables(lines):
    """(first line number, marker text or None, data rows as (line number, text))."""
    i = 0
    while i < len(lines):
        if not lines[i].startswith("|"):
            i += 1
            continue
        start = i
        while i < len(lines) and lines[i].startswith("|"):
            i += 1
        marker = None
        j = start - 1
        while j >= 0 and lines[j].strip() == "":
            j -= 1
        if j >= 0:
            m = MARKER.search(lines[j])
            if m:
                marker = m.group(1)
        header = [c.strip() for c in lines[start].strip().strip("|").split("|")]
        rows = [(n + 1, lines[n]) for n in range(start + 2, i)]  # after the header and its |---| line
        yield start + 1, marker, header, rows


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    doc = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "docs", "quality.md")
    root = os.path.dirname(os.path.dirname(os.path.abspath(doc)))
    with open(doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    problems = []
    checked = tables_seen = 0
    for line, marker, header, rows in tables(lines):
        tables_seen += 1
        if marker is None:
            problems.append(f"{doc}:{line}: table without a figures marker (<!-- figures: CSV... --> or "
                            f"<!-- figures: not from a CSV: REASON -->)")
            continue
        if marker.startswith("not from a CSV"):
            if not marker[len("not from a CSV"):].strip(" :"):
                problems.append(f"{doc}:{line}: 'not from a CSV' without a reason")
            continue
        excluded = set()
        if ";" in marker:
            marker, why = (part.strip() for part in marker.split(";", 1))
            excluded = set(re.findall(r'"([^"]+)"', why))
            if not why.startswith("not from a CSV") or not excluded or not why.split(":", 2)[-1].strip():
                problems.append(f"{doc}:{line}: after ';' expected: not from a CSV: column \"NAME\": REASON")
                continue
            unknown = excluded - set(header)
            if unknown:
                problems.append(f"{doc}:{line}: no column {', '.join(sorted(unknown))} in the table")
                continue
        paths = marker.split()
        missing = [p for p in paths if not os.path.isfile(os.path.join(root, p))]
        if missing:
            problems.append(f"{doc}:{line}: no such CSV: {' '.join(missing)}")
            continue
        by_image = csv_numbers(paths, root)
        for row_line, text in rows:
            numbers = numbers_for(by_image, text)
            cells = text.strip().strip("|").split("|")
            for column, cell in zip(header, cells):
                if column in excluded:
                    continue
                for m in FIGURE.finditer(cell):
                    checked += 1
                    if m.group(1) not in numbers:
                        problems.append(f"{doc}:{row_line}: {m.group(0)} (column \"{column}\") is in no row of "
                                        f"{' '.join(paths)}")
    for p in problems:
        print(p)
    print(f"{tables_seen} tables, {checked} figures checked against CSVs, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
