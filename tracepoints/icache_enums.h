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

#define X(n) LC_##n,
enum lock_class { ICACHE_LOCK_CLASSES(X) NR_LOCK_CLASSES };
#undef X

#define X(n) SITE_##n,
enum site { ICACHE_SITES(X) NR_SITES };
#undef X

#define X(n) LIST_##n,
enum inode_list_id { ICACHE_LISTS(X) NR_INODE_LISTS };
#undef X

#define X(n) LACT_##n,
enum list_action { ICACHE_LIST_ACTIONS(X) NR_LIST_ACTIONS };
#undef X

#define X(n) OP_##n,
enum op_kind { ICACHE_OPS(X) NR_OPS };
#undef X

#define X(n) VIOL_##n,
enum violation_kind { ICACHE_VIOLATIONS(X) NR_VIOLATIONS };
#undef X

#define X(n) SRC_##n,
enum src_file { ICACHE_SRC_FILES(X) NR_SRC_FILES };
#undef X

#define X(bit, name) name = 1u << (bit),
enum inode_state_flag { ICACHE_STATE_FLAGS(X) };
#undef X

#define I_DIRTY_INODE (I_DIRTY_SYNC | I_DIRTY_DATASYNC)
#define I_DIRTY (I_DIRTY_INODE | I_DIRTY_PAGES)
/* With lazytime's timestamps (include/linux/fs.h): what keeps an inode
 * off the LRU. */
#define I_DIRTY_ALL (I_DIRTY | I_DIRTY_TIME)

#endif /* ICACHE_ENUMS_H */
