/* Datatypes. Until derived datatypes exist, every datatype is predefined and a buffer of count
 * elements is count * extent contiguous bytes. */
#ifndef VBT_DATATYPE_H
#define VBT_DATATYPE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t size;     /* bytes of data (MPI_Type_size) */
    uint32_t extent;   /* bytes one element spans in a buffer, padding included */
    uint8_t nelements; /* basic elements per element: 2 for the pair types */
} vbt_dtype_info_t;

/* Indexed by the ABI handle value minus 0x200; size 0 marks a handle that names no type. */
extern vbt_dtype_info_t vbt_dtype_table[256];

void vbt_datatype_init(void);

/* The info for a datatype handle, or NULL when it is not a valid (supported) datatype. */
static inline const vbt_dtype_info_t *vbt_dtype_get(MPI_Datatype dt)
{
    uintptr_t h = (uintptr_t)dt;
    if (h <= 0x200 || h > 0x2ff || vbt_dtype_table[h - 0x200].size == 0)
        return NULL;
    return &vbt_dtype_table[h - 0x200];
}

#endif
