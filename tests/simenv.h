/*
 * simenv.h - a small inode cache for tests that call the operations
 * directly: one scheme, a few simulated CPUs, the calling thread as cpu0.
 */
#ifndef SIMENV_H
#define SIMENV_H

#include <stdlib.h>
#include <string.h>

#include "sim/core/scheme.h"
#include "sim/core/violation.h"
#include "sim/engine/run.h"

#define ENV_CPUS 4

static struct sim_cpu env_cpus[ENV_CPUS];
static struct sim_cpu *env_cpu_ptrs[ENV_CPUS];
static const struct scheme *env_scheme;

/* With nodes NUMA nodes: cpu0, cpu1 on node 0, cpu2, cpu3 on node 1 (2). */
static inline void env_start_nodes(const struct scheme *s, int nsbs, int nodes)
{
	memset(env_cpus, 0, sizeof(env_cpus));
	for (int i = 0; i < ENV_CPUS; i++) {
		static const char *const names[] = { "cpu0", "cpu1", "cpu2", "cpu3" };
		env_cpus[i].id = i;
		env_cpus[i].name = names[i];
		env_cpus[i].rng = 12345 + (uint64_t)i;
		atomic_init(&env_cpus[i].waiting_for, NULL);
		env_cpu_ptrs[i] = &env_cpus[i];
	}
	struct icache_config cfg = { .nsbs = nsbs, .hash_bits = 6, .nodes = nodes };
	env_scheme = s;
	icache_init(s, &cfg, env_cpu_ptrs, ENV_CPUS);
	lockdep_reset(s->order, s->norder);
	violations_reset();
	violations_set_quiet(true);
	this_cpu = &env_cpus[0];
}

static inline void env_start(const struct scheme *s, int nsbs)
{
	env_start_nodes(s, nsbs, 1);
}

static inline void env_stop(void)
{
	this_cpu = NULL;
	icache_destroy();
}

/* iget_locked plus unlock_new_inode if it was new. */
static inline struct inode *env_iget(struct super_block *sb, uint64_t ino)
{
	struct inode *inode = env_scheme->iget_locked(sb, ino);
	if (inode_state(inode) & I_NEW)
		env_scheme->unlock_new_inode(inode);
	return inode;
}

#endif
