#!/usr/bin/python3
"""Tests of build_dataset.py's debian/copyright matching (dep5_match).

    /usr/bin/python3 training/test_dep5.py

copyright-format 1.0, Files field: patterns match the whole path from the
root of the source tree; only * and ? are wildcards and both match a /;
\\*, \\? and \\\\ are literal; the last stanza that matches applies. The
tests on real copyright files need build_dataset.py's cache (torcs-data,
gcompris-qt-data unpacked) and are skipped, saying so, without it.
"""
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import build_dataset as bd  # noqa: E402


def stanzas(*files):
    """A copyright file's stanzas: one per Files value, licensed L0, L1, ..."""
    text = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
    for i, value in enumerate(files):
        text += "\nFiles: %s\nCopyright: someone\nLicense: L%d\n" % (value, i)
    return bd.dep5(text)


def licence(sts, path):
    st = bd.dep5_match(sts, path)
    return st["license"] if st else None


class Dep5Match(unittest.TestCase):
    def test_whole_path(self):
        sts = stanzas("*", "Makefile.in", "data/x.png")
        self.assertEqual(licence(sts, "Makefile.in"), "L1")
        self.assertEqual(licence(sts, "sub/Makefile.in"), "L0")  # not the end of a longer path
        self.assertEqual(licence(sts, "data/x.png"), "L2")
        self.assertEqual(licence(sts, "usr/share/data/x.png"), "L0")
        self.assertEqual(licence(sts, "data/x.png.orig"), "L0")
        self.assertIsNone(licence(stanzas("x.png"), "data/x.png"))  # a bare name is the top folder's file

    def test_star_crosses_slash(self):
        sts = stanzas("*", "*.in", "data/*", "*/Makefile")
        self.assertEqual(licence(sts, "a/b/c.in"), "L1")
        self.assertEqual(licence(sts, "data/a/b/c"), "L2")
        self.assertEqual(licence(sts, "data/.hidden"), "L2")  # and a leading dot
        self.assertEqual(licence(sts, "x/y/Makefile"), "L3")
        self.assertEqual(licence(sts, "Makefile"), "L0")  # */ needs a folder

    def test_question_mark_is_one_character(self):
        sts = stanzas("*", "a?b")
        self.assertEqual(licence(sts, "a/b"), "L1")
        self.assertEqual(licence(sts, "axb"), "L1")
        self.assertEqual(licence(sts, "ab"), "L0")
        self.assertEqual(licence(sts, "axxb"), "L0")

    def test_last_stanza_wins(self):
        self.assertEqual(licence(stanzas("*", "data/*", "data/special.png"), "data/special.png"), "L2")
        self.assertEqual(licence(stanzas("data/special.png", "data/*"), "data/special.png"), "L1")
        self.assertEqual(licence(stanzas("data/*", "*"), "data/special.png"), "L1")
        # several patterns in one stanza, on continuation lines
        sts = stanzas("*", "a/*\n       data/tracks/road/e-track-2/*\n       b/*")
        self.assertEqual(licence(sts, "data/tracks/road/e-track-2/rock1-e2.png"), "L1")

    def test_bracket_is_literal(self):
        sts = stanzas("*", "a[1].png", "[ab]*")
        self.assertEqual(licence(sts, "a[1].png"), "L1")
        self.assertEqual(licence(sts, "a1.png"), "L0")  # fnmatch would read [1] as a set
        self.assertEqual(licence(sts, "[ab]/c"), "L2")
        self.assertEqual(licence(sts, "a/c"), "L0")

    def test_escapes(self):
        sts = stanzas("*", r"a\*b", r"c\?d", "e\\\\f")
        self.assertEqual(licence(sts, "a*b"), "L1")
        self.assertEqual(licence(sts, "axb"), "L0")
        self.assertEqual(licence(sts, "c?d"), "L2")
        self.assertEqual(licence(sts, "cxd"), "L0")
        self.assertEqual(licence(sts, "e\\f"), "L3")
        with self.assertRaises(ValueError):
            bd.dep5_pattern(r"a\b")

    def test_directory_name_covers_nothing_below(self):
        # copyright-format 1.0 gives a pattern without wildcards one path;
        # packages write dir/* for a folder
        self.assertEqual(licence(stanzas("*", "data/tracks"), "data/tracks/x.png"), "L0")

    def test_no_stanza(self):
        self.assertIsNone(licence(stanzas("data/*"), "src/x.c"))


class SourcePaths(unittest.TestCase):
    def test_every_photo_has_a_source_path(self):
        paths = [(pkg, path) for pkg, ps in bd.SOURCES + bd.SOURCES_V3 for path in ps] + bd.SOURCES_V4
        for pkg, path in paths:
            if path.endswith(".rcc"):  # its members are named by /gcompris/...
                continue
            self.assertTrue(bd.source_path(pkg, path))

    def test_known_paths(self):
        self.assertEqual(bd.source_path("torcs-data", bd.ETRACK2 + "rock1-e2.png"),
                         "data/tracks/road/e-track-2/rock1-e2.png")
        self.assertEqual(bd.source_path("ufoai-textures", bd.UFOAI_PK3 + bd.RCC_SEP + "textures/tex_ctp1/hedge02.jpg"),
                         "base/textures/tex_ctp1/hedge02.jpg")
        self.assertEqual(bd.source_path("lomiri-wallpapers-16.04", "usr/share/backgrounds/Dragonfly_by_Bolly.jpg"),
                         "16.04/Dragonfly_by_Bolly.jpg")
        self.assertEqual(bd.source_path("gcompris-qt-data", "usr/share/gcompris-qt/rcc/erase.rcc" + bd.RCC_SEP
                                        + "/gcompris/src/activities/erase/resource/cat1.webp"),
                         "src/activities/erase/resource/cat1.webp")
        with self.assertRaises(SystemExit):
            bd.source_path("torcs-data", "usr/share/doc/torcs-data/copyright")


def real_copyright(pkg):
    path = bd.ROOT / pkg / "usr/share/doc" / pkg / "copyright"
    if not path.exists():
        raise unittest.SkipTest("%s is not unpacked in %s: run build_dataset.py --set v4 first" % (pkg, bd.ROOT))
    return bd.dep5(path.read_text(encoding="utf-8", errors="replace"))


class RealCopyrightFiles(unittest.TestCase):
    def test_torcs_e_track_2_is_free_art(self):
        sts = real_copyright("torcs-data")
        for name in ("rock1-e2.png", "rock-wall-e2.png", "gravel-e2.png", "grass-e2.png", "house24facade.png"):
            st = bd.dep5_match(sts, bd.source_path("torcs-data", bd.ETRACK2 + name))
            self.assertEqual(st["license"].splitlines()[0], "Free-Art-License", name)
        # the stanza's own neighbours and what it does not name
        self.assertEqual(licence(sts, "data/tracks/road/e-track-3/x.png").splitlines()[0], "Free-Art-License")
        self.assertEqual(licence(sts, "data/tracks/road/e-track-1/x.png").splitlines()[0], "GPL-2+")
        self.assertEqual(licence(sts, "debian/rules").splitlines()[0], "GPL-2+")
        self.assertEqual(licence(sts, "src/libs/tgfclient/fg_gm.cpp").splitlines()[0], "Expat")
        lic, _, holder = bd.licence_of("torcs-data", bd.ETRACK2 + "rock1-e2.png")
        self.assertEqual((lic, holder), ("Free-Art-License", "2013 Bernhard Wymann"))

    def test_gcompris_farm_animals(self):
        # the stanza naming src/activities/explore_farm_animals/resource/animals/*
        # (GPL-3), where matching the installed .rcc gave Files: * (GPL-3+)
        sts = real_copyright("gcompris-qt-data")
        self.assertEqual(licence(sts, "src/activities/explore_farm_animals/resource/animals/cat.webp"), "GPL-3")
        self.assertEqual(licence(sts, "usr/share/gcompris-qt/rcc/explore_farm_animals.rcc").splitlines()[0], "GPL-3+")


if __name__ == "__main__":
    unittest.main(verbosity=2)
