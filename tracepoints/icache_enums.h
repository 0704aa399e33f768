/*
 * icache_enums.h - C enums made from the lists in icache_names.h.
 *
 * The simulator uses these constants everywhere; the tracepoint provider
 * uses them as the values of its LTTng enums, so a trace records the same
 * numbers and labels them with the same names.
 */
#ifndef ICACHE_ENUMS_H
#define ICACHE_ENUMS_H

#include "tracepoints/icache_names.h"

/* A list's constants are its names with a prefix: LC_i_lock, SITE_iput... */
#define ICACHE_LC_(n) LC_##n,
#define ICACHE_SITE_(n) SITE_##n,
#define ICACHE_LIST_(n) LIST_##n,
#define ICACHE_LACT_(n) LACT_##n,
#define ICACHE_OP_(n) OP_##n,
#define ICACHE_VIOL_(n) VIOL_##n,
#define ICACHE_SRC_(n) SRC_##n,

enum lock_class { ICACHE_LOCK_CLASSES(ICACHE_LC_) NR_LOCK_CLASSES };
enum site { ICACHE_SITES(ICACHE_SITE_) NR_SITES };
enum inode_list_id { ICACHE_LISTS(ICACHE_LIST_) NR_INODE_LISTS };
enum list_action { ICACHE_LIST_ACTIONS(ICACHE_LACT_) NR_LIST_ACTIONS };
enum op_kind { ICACHE_OPS(ICACHE_OP_) NR_OPS };
enum violation_kind { ICACHE_VIOLATIONS(ICACHE_VIOL_) NR_VIOLATIONS };
enum src_file { ICACHE_SRC_FILES(ICACHE_SRC_) NR_SRC_FILES };

#define X(bit, name) name = 1u << (bit),
enum inode_state_flag { ICACHE_STATE_FLAGS(X) };
#undef X

#define I_DIRTY_INODE (I_DIRTY_SYNC | I_DIRTY_DATASYNC)
#define I_DIRTY (I_DIRTY_INODE | I_DIRTY_PAGES)
/* With lazytime's timestamps (include/linux/fs.h): what keeps an inode
 * off the LRU. */
#define I_DIRTY_ALL (I_DIRTY | I_DIRTY_TIME)

#endif /* ICACHE_ENUMS_H */
