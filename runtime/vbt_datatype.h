/* Datatypes: the runtime object behind MPI_Datatype, predefined and derived.
 *
 * A predefined handle keeps its ABI value (0x201..0x2ff) and indexes a table; a derived handle is
 * a pointer to a heap object, valid while it is in the registry of live handles (so a stale or
 * random handle is refused, never dereferenced). Every type is kept flattened: the list of
 * contiguous (offset, length) blocks one element covers, in the order the type map gives them
 * (that is the packed order), adjacent blocks merged. Packing is then a loop of memcpy, and a
 * byte offset into the packed form is found by a binary search over the blocks, so a transfer
 * can resume anywhere without a cursor. */
#ifndef VBT_DATATYPE_H
#define VBT_DATATYPE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "vbt_compiler.h"
#include "vbt_status.h"

#define VBT_DTYPE_MAGIC 0x56424454u /* "VBDT" */

/* One contiguous piece of an element: bytes [off, off + len) from the element's address, which
 * are bytes [pos, pos + len) of the element's packed form. */
typedef struct {
    MPI_Aint off;
    size_t len;
    size_t pos;
} vbt_dtype_block_t;

/* A run of count basic elements of the predefined type (size bytes each), in packed order
 * (MPI_Get_elements counts them, MPI_Pack_external converts them). */
typedef struct {
    size_t size;
    size_t count;
    MPI_Datatype type;
} vbt_dtype_run_t;

struct vbt_attr;
typedef struct vbt_dtype vbt_dtype_t;
struct vbt_dtype {
    uint32_t magic;
    uint8_t predefined;
    uint8_t committed;
    uint8_t contig;    /* count elements are count * size bytes at buf + true_lb */
    uint8_t sticky_lb; /* lb / ub were set explicitly (MPI_Type_create_resized) */
    uint8_t sticky_ub;
    uint8_t f90;     /* from MPI_Type_create_f90_*: predefined for the application, not freed */
    size_t size;     /* bytes of data in one element (MPI_Type_size) */
    MPI_Aint extent; /* ub - lb: how far apart consecutive elements are */
    MPI_Aint lb, ub;
    MPI_Aint true_lb, true_ub; /* where the data really is */
    size_t align;              /* largest alignment of a basic type in it (struct padding) */
    /* For the reductions: the one predefined type every byte of data belongs to, and how many
     * of it one element holds; MPI_DATATYPE_NULL when the types are mixed. */
    MPI_Datatype basic;
    size_t nbasic;
    size_t nelements; /* basic elements of one element as MPI_Get_elements counts them */
    size_t nblocks;
    vbt_dtype_block_t *blocks;
    size_t nruns;
    vbt_dtype_run_t *runs;
    vbt_dtype_block_t inl_block[2]; /* blocks and runs of small types, without malloc */
    vbt_dtype_run_t inl_run[2];
    /* Derived types only. */
    int refs;    /* the handles below, pending requests, types whose contents name it */
    int handles; /* user handles: the creator's, and each returned by MPI_Type_get_contents */
    int combiner;
    /* ncounts > 0: built by a large-count (_c) constructor, whose counts are MPI_Count (the
     * int MPI_Type_get_envelope/get_contents refuse such a type, MPI-4.1 Sec. 5.1.13). */
    int nints, naints, ncounts, ntypes;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    vbt_dtype_t **types;
    char name[MPI_MAX_OBJECT_NAME];
    /* MPI_Type_set_attr (predefined types too); the delete callbacks run at MPI_Type_free of
     * the last handle (runtime/api/type_attr.c), what is left at MPI_Finalize goes quietly. */
    struct vbt_attr *attrs;
    /* A predefined Fortran type: the MPI_Type_create_f90_* types made from it, chained through
     * f90_next (runtime/api/type_f90.c). */
    vbt_dtype_t *f90_list, *f90_next;
};

/* Compatibility name for the first users of this header (size and extent). */
typedef vbt_dtype_t vbt_dtype_info_t;

/* Indexed by the ABI handle value minus 0x200; a magic of 0 marks a handle that names no type. */
extern vbt_dtype_t vbt_dtype_table[256];

void vbt_datatype_init(void);
/* Free the derived types still alive (MPI_Finalize). */
void vbt_datatype_cleanup(void);

/* The derived type behind a handle above 4095, or NULL when it is no live handle. */
vbt_dtype_t *vbt_dtype_lookup(MPI_Datatype dt);

/* The type behind a handle, or NULL when it names no valid type (MPI_DATATYPE_NULL, a freed or
 * unknown handle, an optional Fortran type this platform lacks). Not necessarily committed. */
static inline vbt_dtype_t *vbt_dtype_get(MPI_Datatype dt)
{
    uintptr_t h = (uintptr_t)dt;

    if (likely(h - 0x201 <= 0x2ff - 0x201)) {
        vbt_dtype_t *t = &vbt_dtype_table[h - 0x200];
        return t->magic == VBT_DTYPE_MAGIC ? t : NULL;
    }
    if (h <= 4095)
        return NULL;
    return vbt_dtype_lookup(dt);
}

/* The committed type behind a handle, or NULL (no valid type, or not committed): what a
 * communication call takes. A predefined slot is committed only if it holds a type (their
 * initialisation sets magic and committed together, the other slots stay zero), so there one
 * test does for both. */
static inline vbt_dtype_t *vbt_dtype_get_committed(MPI_Datatype dt)
{
    uintptr_t h = (uintptr_t)dt;
    vbt_dtype_t *t;

    if (likely(h - 0x201 <= 0x2ff - 0x201)) {
        t = &vbt_dtype_table[h - 0x200];
        return t->committed ? t : NULL;
    }
    t = vbt_dtype_get(dt);
    return t != NULL && t->committed ? t : NULL;
}

/* The handle of a type (its ABI value, or its address for a derived one). */
MPI_Datatype vbt_dtype_handle(const vbt_dtype_t *t);

/* Count elements at buf are one block of count * size bytes at buf + true_lb. */
static inline int vbt_dtype_is_contig(const vbt_dtype_t *t)
{
    return t->contig;
}

/* Keep a type alive while an operation uses it (MPI_Type_free may come meanwhile), and let it
 * go. Nothing for predefined types. */
static inline void vbt_dtype_ref(vbt_dtype_t *t)
{
    if (!t->predefined)
        t->refs++;
}
void vbt_dtype_unref(vbt_dtype_t *t);

/* Copy bytes [offset, offset + len) of the packed form of count elements at buf into out (pack)
 * or from in into the elements (unpack). Clipped at count * size; returns the bytes copied. Any
 * offset costs one binary search, so pieces of a pipelined transfer need no state. */
size_t vbt_dtype_pack(const vbt_dtype_t *t, const void *buf, size_t count, size_t offset, void *out,
                      size_t len);
size_t vbt_dtype_unpack(const vbt_dtype_t *t, void *buf, size_t count, size_t offset,
                        const void *in, size_t len);

/* Basic elements in bytes of packed data (whole elements and a partial one, as
 * MPI_Get_elements counts them), or MPI_UNDEFINED when bytes ends inside a basic element. */
MPI_Count vbt_dtype_elements(const vbt_dtype_t *t, size_t bytes);
/* The other way round: the packed bytes of the first elements basic elements of count of t's
 * elements (MPI_Status_set_elements). */
size_t vbt_dtype_elements_bytes(const vbt_dtype_t *t, size_t elements);

/* Constructors: a new uncommitted derived type with one handle, or VBT_ERR_NO_MEMORY. Counts
 * (64-bit, for the _c constructors and the int ones alike) and displacements are as MPI gives them,
 * displacements in bytes (the API scales vector and indexed by the old type's extent). The type's
 * contents (get_contents) are set by the API with vbt_dtype_set_contents. */
vbt_status_t vbt_dtype_create_contiguous(size_t count, const vbt_dtype_t *old, vbt_dtype_t **t_p);
vbt_status_t vbt_dtype_create_hvector(size_t count, size_t blocklen, MPI_Aint stride,
                                      const vbt_dtype_t *old, vbt_dtype_t **t_p);
/* blocklens NULL: every block is blocklen long (the _block variants). */
vbt_status_t vbt_dtype_create_hindexed(size_t count, const MPI_Count *blocklens, size_t blocklen,
                                       const MPI_Aint *disps, const vbt_dtype_t *old,
                                       vbt_dtype_t **t_p);
vbt_status_t vbt_dtype_create_struct(size_t count, const MPI_Count *blocklens,
                                     const MPI_Aint *disps, vbt_dtype_t *const *types,
                                     vbt_dtype_t **t_p);
vbt_status_t vbt_dtype_create_resized(const vbt_dtype_t *old, MPI_Aint lb, MPI_Aint extent,
                                      vbt_dtype_t **t_p);
/* order: MPI_ORDER_C or MPI_ORDER_FORTRAN; arguments already checked. */
vbt_status_t vbt_dtype_create_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                                       const MPI_Count *starts, int order, const vbt_dtype_t *old,
                                       vbt_dtype_t **t_p);
/* The elements of an array of sizes[d] elements of old per dimension d (order: MPI_ORDER_C
 * or MPI_ORDER_FORTRAN) whose index in dimension d is one of the nidx[d] increasing idx[d][]:
 * in array order, lb 0, extent the whole array (MPI_Type_create_darray). */
vbt_status_t vbt_dtype_create_grid(int ndims, const MPI_Count *sizes, const MPI_Count *nidx,
                                   const MPI_Count *const *idx, int order, const vbt_dtype_t *old,
                                   vbt_dtype_t **t_p);
vbt_status_t vbt_dtype_dup(const vbt_dtype_t *old, vbt_dtype_t **t_p);

/* Record what built t (MPI_Type_get_envelope/get_contents); takes a reference on each derived
 * type in types. */
vbt_status_t vbt_dtype_set_contents(vbt_dtype_t *t, int combiner, int nints, const int *ints,
                                    int naints, const MPI_Aint *aints, int ncounts,
                                    const MPI_Count *counts, int ntypes, vbt_dtype_t *const *types);

/* A user handle to t more (MPI_Type_get_contents returning a derived type) or less
 * (MPI_Type_free); the type lives on while a request or another type uses it. */
void vbt_dtype_handle_add(vbt_dtype_t *t);
void vbt_dtype_handle_free(vbt_dtype_t *t);

#endif
