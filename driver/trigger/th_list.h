/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_list.h - a minimal intrusive doubly linked list for the engine; the
 * kernel's list.h is not available to the userspace build of the same code.
 */
#ifndef TH_LIST_H
#define TH_LIST_H

#include "th_compat.h"

struct th_list {
	struct th_list *next;
	struct th_list *prev;
};

#define th_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline void th_list_init(struct th_list *head)
{
	head->next = head;
	head->prev = head;
}

static inline bool th_list_empty(const struct th_list *head)
{
	return head->next == head;
}

static inline void th_list_insert_after(struct th_list *pos, struct th_list *node)
{
	node->prev = pos;
	node->next = pos->next;
	pos->next->prev = node;
	pos->next = node;
}

static inline void th_list_add_tail(struct th_list *head, struct th_list *node)
{
	th_list_insert_after(head->prev, node);
}

static inline void th_list_del(struct th_list *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	node->next = node;
	node->prev = node;
}

/* Move every node of @from to the tail of @to, keeping their order. */
static inline void th_list_splice_tail(struct th_list *to, struct th_list *from)
{
	if (th_list_empty(from))
		return;
	from->next->prev = to->prev;
	to->prev->next = from->next;
	from->prev->next = to;
	to->prev = from->prev;
	th_list_init(from);
}

#endif /* TH_LIST_H */
