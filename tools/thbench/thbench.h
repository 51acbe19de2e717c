/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* thbench.h - subcommands of thbench, one per bench_*.c file. */
#ifndef THBENCH_H
#define THBENCH_H

/* Each returns the process exit status: 0 ok, 1 failure, 2 usage error. */
int thbench_allreduce_main(int argc, char **argv);
int thbench_allreduce_mp_main(int argc, char **argv);
int thbench_alu_main(int argc, char **argv);
int thbench_faults_main(int argc, char **argv);
int thbench_overlap_main(int argc, char **argv);
int thbench_place_main(int argc, char **argv);
int thbench_placegen_main(int argc, char **argv);
int thbench_post_main(int argc, char **argv);
int thbench_sched_main(int argc, char **argv);
int thbench_threads_main(int argc, char **argv);

#endif /* THBENCH_H */
