#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""check-refs.py - the signs of the tree stay true: every reference the
documentation and the comments make to a page or a file of the tree
resolves, every page is in a toctree, and every source file's first line
names that file.  Prints each one that does not hold as "FILE:LINE:
TARGET" (FILE relative to ROOT) and exits 1; exits 0 when all hold, 2 when
ROOT is not a directory.

Usage: scripts/check-refs.py [ROOT]      (ROOT defaults to the tree this
                                         script is in)

What is read, and what counts as a reference:

  Documentation/*.rst
    :doc:`name` and :doc:`text <name>`  -> Documentation/name.rst
    a toctree's entries                 -> Documentation/ENTRY.rst
    and every page but index.rst must be some toctree's entry
    .. include::, .. literalinclude::,
    .. image::, .. figure:: PATH        -> PATH from the page's directory
    .. kernel-doc:: PATH                -> PATH from ROOT (the kernel's
                                           convention: srctree-relative)
    ``LITERAL`` that looks like a path of the tree: it starts with one
    of the tree's top-level directories (driver/, lib/, selftests/ ...)
    and holds no placeholder (*, <, $, {, NAME in capitals, ...);
    a trailing "/" asks for a directory, a ":LINE" or ":func()" after
    the name is dropped                 -> that path from ROOT
    ``DIR/NAME.c`` (.h, .sh, .py, .mk, .rst) from a directory of the
    tree, not a system header          -> the tail of a path of the tree
  Documentation/*.rst, README.md, Documentation/man/man*/*.[1-9], the
  comments of the .c and .h files under lib/ driver/ tools/ selftests/
  include/, and the # comments of every .sh, .py, .mk, Makefile and Kbuild
    any name ending in .md or .rst      -> that path from ROOT when it
                                           has a directory, else a file of
                                           that name anywhere in the tree
    README.md's `LITERAL` paths         -> as ``LITERAL`` above
A literal path also resolves when it names a path of the tree from one of
its directories (a table of lib/libthverbs/'s files may say
``include/thverbs/sched.h``).

The signs: every .c, .h, .sh, .py and .mk file, Makefile and Kbuild opens
with a line "NAME - what it holds" (after the SPDX line and a shebang); NAME
must be the file's own name, or its path's tail (thverbs/verbs.h).  A file
whose sign names another file is reported as FILE:LINE: NAME, one without
a sign as FILE:1: (no "NAME - " line at the top).  The files are git's when
ROOT is a git work tree (so that build products are not read), else every
file under ROOT.

Names that the project's tools write (GENERATED below) are outputs, not
references, and a few paths name other trees (OUTSIDE).  build/ and .git/
are never read.
"""
import os
import re
import subprocess
import sys

# Files the tools write, named in the documentation as what a run leaves
# behind: tools/thbench/ofi-hop.sh and tools/thbench/mpi/*.sh write
# results.md; docs.mk writes uapi-reference.rst into build/docs; the build
# writes the shared libraries (lib/libthverbs.so.1 of an install or a VM
# payload).
GENERATED = {"results.md", "uapi-reference.rst"}
GENERATED_RE = re.compile(r"\.so(\.[0-9]+)*$")
# Paths of other trees that look like ours: a kernel tree's kselftest
# directory and kernel-doc, and where make install puts the ABI headers.
OUTSIDE = ("tools/testing/selftests", "scripts/kernel-doc",
	   "include/thverbs/uapi/")

# The top-level directories whose paths a literal may name.
TREE_DIRS = ("Documentation", "driver", "lib", "tools", "selftests",
	     "scripts", "include", "fuzz", "examples", "debian", "udev",
	     "LICENSES")
SKIP_DIRS = {"build", ".git"}

NAME_RE = re.compile(r"(?<![\w./$-])((?:\.\./)*[\w./-]*[\w-]\.(?:md|rst))\b")
DOC_RE = re.compile(r":doc:`([^`]+)`")
LITERAL_RST_RE = re.compile(r"``([^`]+)``")
LITERAL_MD_RE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
DIRECTIVE_RE = re.compile(
	r"^\s*\.\.\s+(include|literalinclude|image|figure|kernel-doc)::\s*(\S+)")
PATH_RE = re.compile(r"^(?:%s)(?:/[\w.+-]+)*/?$" % "|".join(TREE_DIRS))
# A path from a directory of the tree (``coll/plan.c``,
# ``thverbs/verbs.h``) names a source file: it must be the tail of one.
# The system's headers (``linux/types.h``) are not the tree's.
REL_PATH_RE = re.compile(r"^[\w.+-]+(?:/[\w.+-]+)+\.(?:c|h|sh|py|mk|rst)$")
SYSTEM_DIRS = ("linux/", "sys/", "asm/", "asm-generic/", "rdma/",
	       "trace/", "net/", "netinet/", "arpa/")
# A capitalised word inside a path is a placeholder (NAME, DIR, N), not a
# name of the tree; the tree's own capitalised names are listed.
PLACEHOLDER_RE = re.compile(r"(?:^|/)[A-Z][A-Z0-9_]*(?:/|$|\.)")
TREE_CAPS = {"Documentation", "LICENSES"}


SIGN_RE = re.compile(r'^\s*(?:/\*+|//|#|\*|""")?\s*([\w./+-]+) - ')
SIGN_EXTS = (".c", ".h", ".sh", ".py", ".mk")
SIGN_NAMES = ("Makefile", "Kbuild")
SIGN_LINES = 8		# the sign is within the first lines


class Tree:
	"""The files and directories under ROOT, outside SKIP_DIRS."""

	def __init__(self, root):
		self.root = root
		self.names = set()
		self.paths = []		# every file and directory, from ROOT
		for d, subdirs, files in os.walk(root):
			subdirs[:] = [s for s in subdirs if s not in SKIP_DIRS]
			self.names.update(files)
			rel = os.path.relpath(d, root)
			for f in files + subdirs:
				self.paths.append(f if rel == "." else rel + "/" + f)

	def tail_of(self, rel):
		"""Whether REL names a path of the tree from some directory of
		it (a table of lib/libthverbs/'s files says include/thverbs/)."""
		rel = rel.rstrip("/")
		return any(p == rel or p.endswith("/" + rel) for p in self.paths)

	def exists(self, rel, want_dir=False):
		p = os.path.normpath(os.path.join(self.root, rel))
		return os.path.isdir(p) if want_dir else os.path.exists(p)


def literal_path(text):
	"""The tree path a literal names, or None when it names none."""
	t = text.strip()
	# path:LINE, path:function(), "path (what)": the path is the first part
	t = re.split(r"[:\s]", t, maxsplit=1)[0]
	if not PATH_RE.match(t) and not (REL_PATH_RE.match(t) and
					 not t.startswith(SYSTEM_DIRS)):
		return None
	parts = [p for p in t.split("/") if p]
	for p in parts:
		if p in TREE_CAPS:
			continue
		if PLACEHOLDER_RE.search("/" + p + "/"):
			return None
	if "..." in t:
		return None
	return t


class Checker:
	def __init__(self, root):
		self.tree = Tree(root)
		self.root = root
		self.dead = []
		self.pages = set()	# the pages read
		self.in_toc = set()	# the pages a toctree lists

	def report(self, rel, lineno, target):
		d = "%s:%d: %s" % (rel, lineno, target)
		if d not in self.dead:	# a literal path is also a name
			self.dead.append(d)

	def name_ref(self, rel, lineno, name):
		"""A .md or .rst name: a path when it has a directory, else a
		file of that name anywhere in the tree."""
		base = os.path.basename(name)
		if base in GENERATED:
			return
		if "/" in name:
			if name.split("/")[0] not in TREE_DIRS and not name.startswith(".."):
				# a path outside the tree's layout (build/..., $(B)/...)
				return
			if self.tree.exists(name):
				return
			here = os.path.dirname(rel)
			if self.tree.exists(os.path.join(here, name)):
				return
		elif base in self.tree.names:
			return
		self.report(rel, lineno, name)

	def path_ref(self, rel, lineno, path):
		base = os.path.basename(path.rstrip("/"))
		if base in GENERATED or GENERATED_RE.search(base):
			return
		if path.startswith(OUTSIDE):
			return
		if self.tree.exists(path, want_dir=path.endswith("/")):
			return
		if self.tree.tail_of(path):
			return
		self.report(rel, lineno, path)

	def names_in(self, rel, lineno, text):
		for m in NAME_RE.finditer(text):
			self.name_ref(rel, lineno, m.group(1))

	def read(self, rel):
		with open(os.path.join(self.root, rel), encoding="utf-8",
			  errors="replace") as f:
			return f.read().split("\n")

	def rst(self, rel):
		here = os.path.dirname(rel)
		toc = False
		self.pages.add(rel)
		for n, line in enumerate(self.read(rel), 1):
			if toc:
				if line.strip() == "" or line.lstrip().startswith(":"):
					continue
				if line[:1] in (" ", "\t"):
					entry = line.strip()
					page = os.path.normpath(os.path.join(here, entry + ".rst"))
					self.in_toc.add(page)
					if not self.tree.exists(page):
						self.report(rel, n, entry)
					continue
				toc = False
			if re.match(r"^\.\.\s+toctree::", line):
				toc = True
				continue
			m = DIRECTIVE_RE.match(line)
			if m:
				kind, target = m.groups()
				base = self.root if kind == "kernel-doc" else os.path.join(self.root, here)
				if not os.path.exists(os.path.join(base, target)):
					self.report(rel, n, target)
				continue
			for m in DOC_RE.finditer(line):
				target = m.group(1)
				lt = re.search(r"<([^<>]+)>\s*$", target)
				if lt:
					target = lt.group(1)
				target = target.strip()
				if target.startswith("/"):
					page = os.path.join("Documentation", target[1:] + ".rst")
				else:
					page = os.path.join(here, target + ".rst")
				if not self.tree.exists(page):
					self.report(rel, n, target)
			for m in LITERAL_RST_RE.finditer(line):
				p = literal_path(m.group(1))
				if p:
					self.path_ref(rel, n, p)
			self.names_in(rel, n, DOC_RE.sub("", line))

	def markdown(self, rel):
		fence = False
		for n, line in enumerate(self.read(rel), 1):
			if line.lstrip().startswith("```"):
				fence = not fence
			if not fence:
				for m in LITERAL_MD_RE.finditer(line):
					p = literal_path(m.group(1))
					if p:
						self.path_ref(rel, n, p)
			self.names_in(rel, n, line)

	def plain(self, rel):
		for n, line in enumerate(self.read(rel), 1):
			self.names_in(rel, n, line)

	def hash_comments(self, rel):
		"""The names in a shell, Python or make file's # comments."""
		for n, line in enumerate(self.read(rel), 1):
			i = line.find("#")
			if i >= 0:
				self.names_in(rel, n, line[i + 1:])

	def c_comments(self, rel):
		"""The names in a C file's comments (/* */ and //)."""
		incom = False
		for n, line in enumerate(self.read(rel), 1):
			text = []
			rest = line
			while rest:
				if incom:
					i = rest.find("*/")
					if i < 0:
						text.append(rest)
						break
					text.append(rest[:i])
					rest = rest[i + 2:]
					incom = False
				else:
					i = rest.find("/*")
					j = rest.find("//")
					if j >= 0 and (i < 0 or j < i):
						text.append(rest[j + 2:])
						break
					if i < 0:
						break
					rest = rest[i + 2:]
					incom = True
			if text:
				self.names_in(rel, n, " ".join(text))

	def signs(self):
		"""Each source file's first line names the file itself."""
		try:
			out = subprocess.run(["git", "-C", self.root, "ls-files", "-z"],
					     capture_output=True, text=True, check=True,
					     timeout=60).stdout
			top = subprocess.run(["git", "-C", self.root, "rev-parse",
					      "--show-toplevel"], capture_output=True,
					     text=True, check=True, timeout=60).stdout.strip()
			if os.path.realpath(top) != os.path.realpath(self.root):
				raise ValueError("not the top of the work tree")
			files = [f for f in out.split("\0") if f]
		except (OSError, ValueError, subprocess.SubprocessError):
			# not git's: leave out what a module build writes
			# into the source tree (th_nic.mod.c, .*.cmd)
			files = [p for p in self.tree.paths
				 if os.path.isfile(os.path.join(self.root, p))
				 and not p.endswith(".mod.c")
				 and not os.path.basename(p).startswith(".")]
		for rel in sorted(files):
			base = os.path.basename(rel)
			if not (base.endswith(SIGN_EXTS) or base in SIGN_NAMES):
				continue
			if not os.path.isfile(os.path.join(self.root, rel)):
				continue	# deleted, not yet committed
			name = None
			for n, line in enumerate(self.read(rel)[:SIGN_LINES], 1):
				m = SIGN_RE.match(line)
				if m:
					name = m.group(1)
					break
			if name is None:
				self.report(rel, 1, '(no "NAME - " line at the top)')
			elif name != base and not rel.endswith("/" + name):
				self.report(rel, n, name)

	def run(self):
		def files(top, exts):
			out = []
			for d, subdirs, fs in os.walk(os.path.join(self.root, top)):
				subdirs[:] = sorted(s for s in subdirs if s not in SKIP_DIRS)
				for f in sorted(fs):
					if f.endswith(exts):
						out.append(os.path.relpath(os.path.join(d, f), self.root))
			return out

		docs = os.path.join(self.root, "Documentation")
		if os.path.isdir(docs):
			for f in sorted(os.listdir(docs)):
				if f.endswith(".rst"):
					self.rst(os.path.join("Documentation", f))
			# every page is reachable from the index
			for page in sorted(self.pages - self.in_toc):
				if page != os.path.join("Documentation", "index.rst"):
					self.report(page, 1, "(in no toctree)")
		if os.path.exists(os.path.join(self.root, "README.md")):
			self.markdown("README.md")
		for f in files(os.path.join("Documentation", "man"),
			       tuple(".%d" % i for i in range(1, 10))):
			self.plain(f)
		for top in ("lib", "driver", "tools", "selftests", "include"):
			for f in files(top, (".c", ".h")):
				self.c_comments(f)
		for f in files(".", (".sh", ".py", ".mk", "Makefile", "Kbuild")):
			self.hash_comments(f)
		self.signs()
		return self.dead


def main():
	root = sys.argv[1] if len(sys.argv) > 1 else \
		os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
	root = os.path.abspath(root)
	if not os.path.isdir(root):
		print("check-refs: %s: not a directory" % root, file=sys.stderr)
		return 2
	dead = Checker(root).run()
	for d in dead:
		print(d)
	return 1 if dead else 0


if __name__ == "__main__":
	sys.exit(main())
