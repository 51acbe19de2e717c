/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* thctl.h - subcommands of thctl, one or a few per cmd_*.c file. */
#ifndef THCTL_H
#define THCTL_H

/*
 * Exit status of every command: 0 success, 1 the operation failed,
 * 2 usage error (bad arguments or a malformed input file).
 */
enum thctl_exit {
	THCTL_EXIT_OK		= 0,
	THCTL_EXIT_FAIL		= 1,
	THCTL_EXIT_USAGE	= 2,
};

#include <stdbool.h>
#include <stdio.h>

struct tj;
struct th_device;

/* stats.c: --stats and -j of post and demo */
struct thctl_capture {
	FILE *mem, *saved;
	char *buf;
	size_t len;
};

void thctl_stats_print(struct th_device **devs, const bool *used,
		       unsigned int n);
void thctl_stats_json(struct tj *j, struct th_device **devs, const bool *used,
		      unsigned int n);
int thctl_capture_begin(struct thctl_capture *c);
void thctl_capture_end(struct thctl_capture *c, struct tj *j);

int thctl_demo_main(int argc, char **argv);
int thctl_place_main(int argc, char **argv);
int thctl_sched_main(int argc, char **argv);
/* cmd_sim.c: the LogGP(S) simulator of GOAL schedules */
int thctl_sim_main(int argc, char **argv);
int thctl_tree_main(int argc, char **argv);
/* cmd_devices.c */
int thctl_devices_main(int argc, char **argv);
int thctl_info_main(int argc, char **argv);
/* cmd_nl.c: th_nic.ko over generic netlink */
int thctl_stat_main(int argc, char **argv);
int thctl_vports_main(int argc, char **argv);
int thctl_counters_main(int argc, char **argv);
int thctl_fault_main(int argc, char **argv);
int thctl_monitor_main(int argc, char **argv);
/* cmd_post.c */
int thctl_post_main(int argc, char **argv);
/* cmd_verify.c */
int thctl_verify_main(int argc, char **argv);
struct chainfile;
struct th_nic_query;
int thctl_verify_loaded(const char *path, const struct chainfile *cf,
			const struct th_nic_query *q);

#endif /* THCTL_H */
