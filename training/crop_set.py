"""The crop folder's conventions, shared by build_dataset.py (Debian's Python,
no PyTorch) and the training scripts: which photos are held out for
validation, and which crop set (build_dataset.py --set) a folder holds."""
import sys

HELD_OUT_EVERY = 10  # photos whose id (images.tsv, crops.tsv's source) is a multiple of this
SET_FORMAT = {"v1": "png", "v2": "webp", "v3": "webp", "v4": "webp"}  # each set's crop files
SET_FILE = "set.txt"  # beside crops/: the set's name, written by build_dataset.py


def held_out(source_id):
    return source_id % HELD_OUT_EVERY == 0


def crop_files(crops):
    """(the crop files in name order, the set's name). v2 and v3 are both
    WebP, so the name is read from SET_FILE; a folder without one was built
    before v3 existed: PNGs are set v1, WebPs set v2."""
    png, webp = sorted(crops.glob("*.png")), sorted(crops.glob("*.webp"))
    if png and webp:
        sys.exit(f"{crops} holds both PNG and WebP crops: run training/build_dataset.py again")
    files, fmt = (webp, "webp") if webp else (png, "png")
    marker = crops.parent / SET_FILE
    name = marker.read_text().strip() if marker.exists() else {"png": "v1", "webp": "v2"}[fmt]
    if files and SET_FORMAT.get(name) != fmt:
        sys.exit(f"{marker} says set {name!r}, but {crops} holds {fmt} crops: "
                 "run training/build_dataset.py again")
    return files, name
