/* The pool of MPI_Message objects. See vbt_message.h. */
#include "vbt_message.h"

/* Messages held at once: 64 Ki (2 MiB of address space, mapped as they come). */
vbt_objpool_t vbt_message_pool =
    VBT_OBJPOOL_INITIALIZER(vbt_message_t, "matched message", 1u << 16, unexp);

void vbt_message_cleanup(void)
{
    vbt_objpool_destroy(&vbt_message_pool);
}
