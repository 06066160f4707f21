/* The categories: "verbatim" holds the others, each of which holds the variables of one part
 * of the library (the cvars' categories are chosen in vbt_mpit_cvar.c, the pvars' in
 * vbt_mpit_pvar.c). They never change while the library runs: MPI_T_category_changed's
 * number stays the same. */
#include "vbt_mpit.h"

const vbt_mpit_category_t vbt_mpit_categories[VBT_MPIT_NCATS] = {
    [VBT_MPIT_CAT_ROOT] = {"verbatim", "everything Verbatim exposes, by part"},
    [VBT_MPIT_CAT_P2P] = {"p2p", "point-to-point engine: matching queues, messages to oneself"},
    [VBT_MPIT_CAT_IB] = {"transport-ib", "InfiniBand / RoCE verbs transport: messages, "
                                         "protocols, device and eager/rendezvous knobs"},
    [VBT_MPIT_CAT_SHM] = {"transport-shm", "shared-memory transport between ranks of a node"},
    [VBT_MPIT_CAT_RCACHE] = {"rcache", "registration cache of pinned memory (InfiniBand)"},
    [VBT_MPIT_CAT_PROGRESS] = {"progress", "how waiting ranks poll, yield and sleep"},
    [VBT_MPIT_CAT_COLL] = {"collectives", "collective algorithms (VBT_COLL_*)"},
    [VBT_MPIT_CAT_ONESIDED] = {"onesided", "one-sided communication (windows, NIC atomics)"},
    [VBT_MPIT_CAT_RUNTIME] = {"runtime", "logging and the choice of transports"},
    [VBT_MPIT_CAT_TESTS] = {"tests", "knobs of the build and test scripts (constant here)"},
};
