/* Intercommunicators (vbt_comm_inter.c): creation, and the calls that make new communicators of
 * one. Each is collective over both groups and returns VBT_OK with *comm_p NULL for a process
 * that gets MPI_COMM_NULL. The API layer checks the arguments and copies what MPI_Comm_dup
 * keeps (attributes, hints). */
#ifndef VBT_COMM_INTER_H
#define VBT_COMM_INTER_H

#include "vbt_comm.h"

/* Tags of the leaders' messages on the bridge's collective context: MPI_Intercomm_create's tag
 * (its low 23 bits), or VBT_INTER_TAG_OWN for the calls on an existing intercommunicator (its
 * own collective context is the bridge). Between the schedules' and the agreements' tags
 * (collectives/vbt_sched.h has the layout). */
#define VBT_INTER_TAG_BASE 0x7e000000
#define VBT_INTER_TAG_MASK 0x007fffff
#define VBT_INTER_TAG_OWN  (VBT_INTER_TAG_BASE + 0x00800000)

/* MPI_Intercomm_create: collective over local (an intracommunicator) and, through the leaders,
 * the group on the other side; bridge and remote_leader count at local_leader only. bridge NULL
 * at the leader: its arguments were refused, and every member of local returns
 * VBT_ERR_INVALID_PARAM (rather than wait for the leader). Also the
 * core of MPI_Intercomm_create_from_groups: any intracommunicator of the local group and any
 * communicator joining the two leaders will do. */
vbt_status_t vbt_comm_intercomm_create(vbt_comm_t *local, int local_leader, vbt_comm_t *bridge,
                                       int remote_leader, int tag, vbt_comm_t **comm_p);
/* MPI_Comm_dup, MPI_Comm_split, MPI_Comm_create (group: a subgroup of the local group, the
 * same at every member of it) on an intercommunicator. */
vbt_status_t vbt_comm_inter_dup(vbt_comm_t *inter, vbt_comm_t **comm_p);
vbt_status_t vbt_comm_inter_split(vbt_comm_t *inter, int color, int key, vbt_comm_t **comm_p);
vbt_status_t vbt_comm_inter_create(vbt_comm_t *inter, vbt_group_t *group, vbt_comm_t **comm_p);
/* MPI_Comm_idup's end on an intercommunicator: its duplicate on slot, its hidden local one on
 * lslot, which every member of both groups agreed on and this process reserved. */
vbt_status_t vbt_comm_inter_dup_on_slots(vbt_comm_t *inter, uint32_t slot, uint32_t lslot,
                                         vbt_comm_t **comm_p);
/* MPI_Intercomm_merge: the intracommunicator of both groups, the low one first. */
vbt_status_t vbt_comm_inter_merge(vbt_comm_t *inter, int high, vbt_comm_t **comm_p);

#endif
