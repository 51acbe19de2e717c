# install.mk - make install / uninstall / install-dkms, with the variables a
# distribution sets: PREFIX, DESTDIR, LIBDIR, INCLUDEDIR, BINDIR, MANDIR (and
# CFLAGS, CPPFLAGS, LDFLAGS, which every build rule already honours).
#
#   make install PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu DESTDIR=/tmp/t
#
# installs the library (libthverbs.so.$(VERSION), its SONAME link, the .so
# link and the static archive), libthmpi (when built: MPICH's headers and
# libfabric were here), the public headers under include/thverbs/,
# the kernel ABI headers under include/thverbs/uapi/linux/, libthverbs.pc, the
# tools (relinked without the build tree's RUNPATH) and the manual pages.
# The module goes through dkms: `make install-dkms` copies its source to
# /usr/src/th_nic-$(VERSION) (what the th-nic-dkms package ships).
PREFIX		?= /usr/local
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
BINDIR		?= $(PREFIX)/bin
MANDIR		?= $(PREFIX)/share/man
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
DKMSDIR		?= /usr/src/th_nic-$(VERSION)
INSTALL		?= install

PUBLIC_HEADERS	:= $(sort $(wildcard lib/libthverbs/include/thverbs/*.h))
UAPI_HEADERS	:= include/uapi/linux/th_nic.h include/uapi/linux/th_nic_netlink.h
MAN_PAGES	:= $(sort $(wildcard Documentation/man/man[1-9]/*.[1-9]))
# the module's source as dkms builds it: Kbuild, the driver, the uapi (found
# with find, not git: a release tarball has no .git)
DKMS_FILES	:= VERSION Kbuild $(sort $(shell cd $(TOP) && find driver include/uapi \
		     -name '*.[ch]' 2>/dev/null))

.PHONY: userspace install uninstall install-dkms uninstall-dkms
userspace: $(LIBTHVERBS_SO) $(LIBTHVERBS_A) $(TOOLS:%=$(BIN)/%)

$(B)/libthverbs.pc: lib/libthverbs/libthverbs.pc.in VERSION
	@mkdir -p $(dir $@)
	sed -e 's|@prefix@|$(PREFIX)|; s|@libdir@|$(LIBDIR)|' \
	    -e 's|@includedir@|$(INCLUDEDIR)|; s|@version@|$(VERSION)|' $< > $@

# The .pc depends on PREFIX and LIBDIR: always rewritten by install.
.PHONY: $(B)/libthverbs.pc

install: $(LIBTHVERBS_SO) $(LIBTHVERBS_A) $(TOOLS:%=$(B)/inst/bin/%) $(B)/libthverbs.pc \
		$(LIBTHMPI_INST)
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/thverbs/uapi/linux $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 0644 $(LIBTHVERBS_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBTHVERBS_SO)) $(DESTDIR)$(LIBDIR)/$(LIBTHVERBS_SONAME)
	ln -sf $(LIBTHVERBS_SONAME) $(DESTDIR)$(LIBDIR)/libthverbs.so
	$(INSTALL) -m 0644 $(LIBTHVERBS_A) $(DESTDIR)$(LIBDIR)/
	$(if $(LIBTHMPI_INST),$(INSTALL) -m 0644 $(LIBTHMPI_INST) $(DESTDIR)$(LIBDIR)/ && \
		ln -sf $(notdir $(LIBTHMPI_INST)) $(DESTDIR)$(LIBDIR)/$(LIBTHMPI_SONAME) && \
		ln -sf $(LIBTHMPI_SONAME) $(DESTDIR)$(LIBDIR)/libthmpi.so)
	$(INSTALL) -m 0644 $(B)/libthverbs.pc $(DESTDIR)$(PKGCONFIGDIR)/
	$(INSTALL) -m 0644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/thverbs/
	$(INSTALL) -m 0644 $(UAPI_HEADERS) $(DESTDIR)$(INCLUDEDIR)/thverbs/uapi/linux/
	$(INSTALL) -m 0755 $(TOOLS:%=$(B)/inst/bin/%) $(DESTDIR)$(BINDIR)/
	for p in $(MAN_PAGES); do \
		s=$$(basename $$(dirname $$p)); \
		$(INSTALL) -d $(DESTDIR)$(MANDIR)/$$s && \
		$(INSTALL) -m 0644 $$p $(DESTDIR)$(MANDIR)/$$s/ || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libthverbs.so* $(DESTDIR)$(LIBDIR)/libthverbs.a \
		$(DESTDIR)$(LIBDIR)/libthmpi.so* \
		$(DESTDIR)$(PKGCONFIGDIR)/libthverbs.pc \
		$(TOOLS:%=$(DESTDIR)$(BINDIR)/%)
	rm -rf $(DESTDIR)$(INCLUDEDIR)/thverbs
	for p in $(MAN_PAGES); do \
		rm -f $(DESTDIR)$(MANDIR)/$$(basename $$(dirname $$p))/$$(basename $$p); \
	done

install-dkms:
	$(INSTALL) -d $(DESTDIR)$(DKMSDIR)
	cd $(TOP) && for f in $(DKMS_FILES); do \
		$(INSTALL) -D -m 0644 $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; \
	done
	sed 's/#MODULE_VERSION#/$(VERSION)/' $(TOP)/dkms.conf > $(DESTDIR)$(DKMSDIR)/dkms.conf

uninstall-dkms:
	rm -rf $(DESTDIR)$(DKMSDIR)

# make install and uninstall into a staging tree, checked (make check).
.PHONY: installcheck
installcheck: userspace
	@mkdir -p $(LOGS)
	@$(TOP)/scripts/install-check.sh $(B)/installcheck | tee $(LOGS)/install.tap; \
		! grep -q '^not ok' $(LOGS)/install.tap
