/* Virtual communication interfaces (VCIs): what a communicator's messages travel through. A
 * VCI is a set of transport instances with the point-to-point engine's state on them; the
 * object itself is private to the engine (vbt_p2p_int.h). Communicators and requests name
 * theirs with this declaration, and the request pool reaches the one part of it that lies
 * below the engine: its free list (vbt_vci_head_t). */
#ifndef VBT_VCI_H
#define VBT_VCI_H

typedef struct vbt_vci vbt_vci_t;

/* The most VCIs a process can have. */
#define VBT_VCI_MAX 64

#include <stdint.h>

/* The start of every VCI: the free list of requests its message path allocates from and
 * releases to (vbt_request.h), so that VCIs share no list. */
typedef struct vbt_vci_head {
    struct vbt_request *req_free;
} vbt_vci_head_t;

static inline vbt_vci_head_t *vbt_vci_head(vbt_vci_t *vci)
{
    return (vbt_vci_head_t *)(void *)vci; /* its first member */
}

/* The VCI of a communicator's context id: the same on every member, as every message of the
 * communicator must arrive through the VCI its receives are posted on. */
vbt_vci_t *vbt_vci_of_context(uint32_t context_id);

#endif
