"""The crop folder's conventions, shared by build_dataset.py (Debian's Python,
no PyTorch) and the training scripts: which photos are held out for
validation, and which crop set (build_dataset.py --set) a folder holds."""
import sys

HELD_OUT_EVERY = 10  # photos whose id (images.tsv, crops.tsv's source) is a multiple of this


def held_out(source_id):
    return source_id % HELD_OUT_EVERY == 0


def crop_files(crops):
    """(the crop files in name order, the set's name): PNGs are set v1, WebPs set v2."""
    png, webp = sorted(crops.glob("*.png")), sorted(crops.glob("*.webp"))
    if png and webp:
        sys.exit(f"{crops} holds both PNG and WebP crops: run training/build_dataset.py again")
    return (webp, "v2") if webp else (png, "v1")
