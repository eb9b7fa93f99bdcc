#!/usr/bin/env bash
# The user guide's pictures are what the repository makes of its test
# photos: docs/guide/make_images.sh run again into WORK gives every
# committed picture within one 8-bit code value (the CPU's vector code may
# round a sample the other way on another processor), and no other; every
# picture docs/user-guide.md shows exists and every committed one is shown;
# the README links the guide.
# Usage: check_guide.sh WORK BUILD_DIR SOURCE_DIR IMAGE_TEST_TOOL
set -euo pipefail
work=$1 build=$2 source=$3 tool=$4
rm -rf "$work"
mkdir -p "$work"
"$source/docs/guide/make_images.sh" "$build" "$work" > "$work/made.txt"
status=0
committed=$(cd "$source/docs/guide" && ls ./*.png | sed 's|^\./||' | sort)
made=$(cd "$work" && ls ./*.png | sed 's|^\./||' | sort)
if [ "$committed" != "$made" ]; then
  echo "FAIL: docs/guide holds [$(echo $committed)], make_images.sh makes [$(echo $made)]"
  status=1
fi
for picture in $made; do
  if [ -f "$source/docs/guide/$picture" ]; then
    "$tool" compare "$work/$picture" "$source/docs/guide/$picture" 0.00393 ||
      { echo "FAIL: docs/guide/$picture is not what make_images.sh makes: run it and commit"; status=1; }
  fi
done
shown=$(grep -o '!\[[^]]*\]([^)]*)' "$source/docs/user-guide.md" | sed 's/.*(\(.*\))/\1/' | sort -u)
for path in $shown; do
  [ -f "$source/docs/$path" ] || { echo "FAIL: the guide shows $path, which docs/ does not hold"; status=1; }
done
for picture in $committed; do
  echo "$shown" | grep -qx "guide/$picture" || { echo "FAIL: docs/guide/$picture is shown nowhere in the guide"; status=1; }
done
grep -q '(docs/user-guide.md)' "$source/README.md" || { echo "FAIL: the README does not link docs/user-guide.md"; status=1; }
[ "$status" -eq 0 ] && echo "the guide's $(echo "$made" | wc -w) pictures are the repository's"
exit "$status"
