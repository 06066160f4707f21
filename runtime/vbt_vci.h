/* Virtual communication interfaces (VCIs): what a communicator's messages travel through. A
 * VCI is a set of transport instances with the point-to-point engine's state on them; the
 * object itself is private to the engine (vbt_p2p_int.h). Communicators and requests name
 * theirs with this declaration. */
#ifndef VBT_VCI_H
#define VBT_VCI_H

typedef struct vbt_vci vbt_vci_t;

/* The most VCIs a process can have. */
#define VBT_VCI_MAX 64

#include <stdint.h>

/* The VCI of a communicator's context id: the same on every member, as every message of the
 * communicator must arrive through the VCI its receives are posted on. */
vbt_vci_t *vbt_vci_of_context(uint32_t context_id);

#endif
