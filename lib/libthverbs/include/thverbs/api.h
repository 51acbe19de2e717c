/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs/api.h - what every public header of libthverbs opens and closes
 * its declarations with: C linkage for C++ programs and, while the library
 * itself is built (THVERBS_BUILD), default visibility.  The library is
 * compiled with -fvisibility=hidden, so what the public headers declare is
 * exactly what it exports; its version script then names each function.
 */
#ifndef THVERBS_API_H
#define THVERBS_API_H

#ifdef THVERBS_BUILD
#define TH_VISIBILITY_PUSH	_Pragma("GCC visibility push(default)")
#define TH_VISIBILITY_POP	_Pragma("GCC visibility pop")
#else
#define TH_VISIBILITY_PUSH
#define TH_VISIBILITY_POP
#endif

#ifdef __cplusplus
#define TH_API_BEGIN	extern "C" { TH_VISIBILITY_PUSH
#define TH_API_END	TH_VISIBILITY_POP }
#else
#define TH_API_BEGIN	TH_VISIBILITY_PUSH
#define TH_API_END	TH_VISIBILITY_POP
#endif

#endif /* THVERBS_API_H */
