/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fabric_dl.h - libfabric's five exported functions that this provider
 * calls, renamed to the loader's (fabric_dl.c), which loads libfabric at
 * a job's join rather than with libthverbs.  Included before any
 * <rdma/...> header, so that the headers' inline functions (fi_allocinfo()
 * calls fi_dupinfo()) call the loader's too.
 */
#ifndef TH_OFI_FABRIC_DL_H
#define TH_OFI_FABRIC_DL_H

/*
 * A program that links libfabric itself and reads the provider's wire
 * format from ofi.h (the tests' forger) defines TH_OFI_FABRIC_LINKED and
 * keeps libfabric's own names.
 */
#ifndef TH_OFI_FABRIC_LINKED
#ifdef FABRIC_H
#error "fabric_dl.h goes before any <rdma/...> header"
#endif

#define fi_getinfo	th_fi_getinfo
#define fi_freeinfo	th_fi_freeinfo
#define fi_dupinfo	th_fi_dupinfo
#define fi_fabric	th_fi_fabric
#define fi_strerror	th_fi_strerror
#endif

/*
 * Load libfabric.so.1 (once per process); 0, or -ENOSYS with *@why (if
 * not NULL) saying why.  The renamed functions load it themselves; a job's
 * join calls this first to say why it cannot go on.
 */
int th_fi_load(const char **why);

#endif /* TH_OFI_FABRIC_DL_H */
