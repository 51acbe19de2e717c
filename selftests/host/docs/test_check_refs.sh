#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_check_refs.sh - scripts/check-refs.py on a tiny tree made here: for
# each kind of reference it knows (:doc:, a toctree entry, include,
# literalinclude, kernel-doc, a literal file and directory path from the
# top and from a directory, a .md or .rst name in a page, README.md, a man
# page, a C comment of either kind and a shell comment) one that resolves
# and one that does not; a page in a toctree and one in none; a source
# file whose first line names it, one whose first line names another file,
# one with no such line.  The dead ones, and only they, must be printed as
# FILE:LINE: TARGET, with exit status 1; the same tree with the dead ones
# removed must pass with exit status 0 and print nothing.  TAP on stdout.
#
# The project's own tree is make refcheck's (Documentation/docs.mk).
#
# usage: test_check_refs.sh [CHECK_REFS]   (default: scripts/check-refs.py
#                                          of this tree)
set -u
check=${1:-$(dirname "$0")/../../../scripts/check-refs.py}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 rc=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n $1"; rc=1; }
# bounded: the checker reads a handful of files
run() { timeout 60 python3 "$check" "$@"; }

t=$work/tree
mkdir -p "$t"/Documentation/man/man3 "$t"/lib/coll "$t"/include/uapi \
	"$t"/scripts "$t"/driver
echo '/* abi.h - the uapi */' > "$t"/include/uapi/abi.h
echo '/* tree.c - trees */' > "$t"/lib/coll/tree.c
printf '// SPDX-License-Identifier: MIT\n/*\n * graph.c - graphs\n */\n' > "$t"/lib/coll/plan.c
printf '/* plans, with no name */\n' > "$t"/lib/coll/plan.h
echo 'snippet' > "$t"/Documentation/snippet.txt
echo '# notes' > "$t"/lib/NOTES.md
printf 'Other\n=====\n' > "$t"/Documentation/other.rst
printf 'Orphan\n======\n' > "$t"/Documentation/orphan.rst

cat > "$t"/Documentation/index.rst <<'RST'
Index
=====

See :doc:`other` and :doc:`the other one <other>`.
Dead: :doc:`missing-page`.

.. toctree::
   :maxdepth: 1

   other
   gone

.. include:: snippet.txt
.. include:: nosuch.txt
.. literalinclude:: snippet.txt
.. literalinclude:: nosnippet.c
.. kernel-doc:: include/uapi/abi.h
.. kernel-doc:: include/uapi/noabi.h

``lib/coll/tree.c`` and ``lib/coll/`` and ``lib/coll/tree.c:12``;
``lib/coll/graph.c`` and ``lib/nodir/``; ``coll/tree.c`` from lib/.
``coll/gone.c`` is not, ``linux/types.h`` is the system's.
Placeholders are no paths: ``lib/NAME.c``, ``driver/*.c``, ``lib/...``.
The notes are in NOTES.md, not in GONE.md; results.md is an output.
RST
cat > "$t"/README.md <<'MD'
# readme
`lib/coll/tree.c`, `Documentation/other.rst` and `Documentation/none.rst`;
the notes: lib/NOTES.md and DESIGN.md.
MD
cat > "$t"/Documentation/man/man3/th_x.3 <<'MAN'
.TH TH_X 3
See Documentation/other.rst and Documentation/lost.rst.
MAN
cat > "$t"/lib/coll/coll.c <<'C'
/* coll.c - collectives (see NOTES.md and
 * COLLECTIVES.md) */
int x; // the index: Documentation/index.rst, not Documentation/old.rst
const char *s = "GONE.md is in a string, not a comment";
C
# (a "#" of this file's own before the names would make them references
# of this tree)
h='#'
printf '%s tool.sh - see Documentation/other.rst and Documentation/tracing.rst\necho results.md\n' \
	"$h" > "$t"/scripts/tool.sh

expected="Documentation/index.rst:5: missing-page
Documentation/index.rst:11: gone
Documentation/index.rst:14: nosuch.txt
Documentation/index.rst:16: nosnippet.c
Documentation/index.rst:18: include/uapi/noabi.h
Documentation/index.rst:21: lib/coll/graph.c
Documentation/index.rst:21: lib/nodir/
Documentation/index.rst:22: coll/gone.c
Documentation/index.rst:24: GONE.md
Documentation/orphan.rst:1: (in no toctree)
README.md:2: Documentation/none.rst
README.md:3: DESIGN.md
Documentation/man/man3/th_x.3:2: Documentation/lost.rst
lib/coll/coll.c:2: COLLECTIVES.md
lib/coll/coll.c:3: Documentation/old.rst
scripts/tool.sh:1: Documentation/tracing.rst
lib/coll/plan.c:3: graph.c
lib/coll/plan.h:1: (no \"NAME - \" line at the top)"

out=$(run "$t" 2>&1); st=$?
if [ "$st" = 1 ]; then ok "a tree with dead references: exit status 1"
else not_ok "a tree with dead references: exit status $st, not 1"; fi
if [ "$out" = "$expected" ]; then
	ok "every dead reference printed as FILE:LINE: TARGET, and nothing else"
else
	not_ok "the dead references printed"
	diff <(echo "$expected") <(echo "$out") | sed 's/^/#   /'
fi

# the same tree with every dead reference removed passes
sed -i -e '/^Dead:/d' -e '/^   gone$/d' -e '/nosuch\|nosnippet\|noabi/d' \
	-e 's/``lib\/coll\/graph.c`` and ``lib\/nodir\/``; //' \
	-e 's/``coll\/gone.c`` is not, //' \
	-e 's/, not in GONE.md//' "$t"/Documentation/index.rst
sed -i -e 's/ and `Documentation\/none.rst`//' -e 's/ and DESIGN.md//' "$t"/README.md
rm "$t"/Documentation/orphan.rst
sed -i 's/ and Documentation\/lost.rst//' "$t"/Documentation/man/man3/th_x.3
sed -i -e 's/ and$/)/' -e 's/^ \* COLLECTIVES.md) \*\// *\//' \
	-e 's/, not Documentation\/old.rst//' "$t"/lib/coll/coll.c
sed -i 's/ and Documentation\/tracing.rst//' "$t"/scripts/tool.sh
sed -i 's/graph\.c/plan.c/' "$t"/lib/coll/plan.c
echo '/* plan.h - plans */' > "$t"/lib/coll/plan.h
out=$(run "$t" 2>&1); st=$?
if [ "$st" = 0 ] && [ -z "$out" ]; then
	ok "the tree without them: exit status 0, nothing printed"
else
	not_ok "the tree without them: exit status $st"
	echo "$out" | sed 's/^/#   /'
fi

# a root that is not a directory is refused, not taken for a clean tree
out=$(run "$work/nosuch" 2>&1); st=$?
if [ "$st" = 2 ]; then ok "a missing root: exit status 2"
else not_ok "a missing root: exit status $st, not 2"; fi

echo "1..$n"
exit $rc
