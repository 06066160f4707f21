/* Datatypes: the predefined table, derived types flattened into blocks at construction, the
 * registry of live derived handles, and packing. See vbt_datatype.h. */
#include "vbt_datatype.h"

#include "vbt_attr.h"

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

vbt_dtype_t vbt_dtype_table[256];

/* ---- predefined types ------------------------------------------------------------------------ */

/* Pair types are structs: their extent includes the padding the C compiler puts in them. */
#define PAIR(_a, _b)                                                                               \
    struct {                                                                                       \
        _a v;                                                                                      \
        _b i;                                                                                      \
    }

static vbt_dtype_t *predef(MPI_Datatype dt, const char *name, size_t size, size_t align)
{
    vbt_dtype_t *t = &vbt_dtype_table[(uintptr_t)dt - 0x200];

    memset(t, 0, sizeof(*t));
    t->magic = VBT_DTYPE_MAGIC;
    t->predefined = 1;
    t->committed = 1;
    t->contig = 1;
    t->size = size;
    t->extent = t->ub = t->true_ub = (MPI_Aint)size;
    t->align = align;
    t->basic = dt;
    t->nbasic = 1;
    t->nelements = 1;
    t->nblocks = 1;
    t->blocks = t->inl_block;
    t->blocks[0] = (vbt_dtype_block_t){.off = 0, .len = size, .pos = 0};
    t->nruns = 1;
    t->runs = t->inl_run;
    t->runs[0] = (vbt_dtype_run_t){.size = size, .count = 1, .type = dt};
    strncpy(t->name, name, sizeof(t->name) - 1);
    return t;
}

/* A value of type1 (size1 bytes) at 0 and one of type2 (size2 bytes) at off2, in an element of
 * extent bytes. */
static void predef_pair(MPI_Datatype dt, const char *name, MPI_Datatype type1, size_t size1,
                        size_t off2, MPI_Datatype type2, size_t size2, size_t extent, size_t align)
{
    vbt_dtype_t *t = predef(dt, name, size1 + size2, align);

    t->extent = t->ub = (MPI_Aint)extent;
    t->true_ub = (MPI_Aint)(off2 + size2);
    t->nelements = 2;
    if (off2 == size1) {
        t->blocks[0].len = size1 + size2;
    } else {
        t->nblocks = 2;
        t->blocks[0].len = size1;
        t->blocks[1] = (vbt_dtype_block_t){.off = (MPI_Aint)off2, .len = size2, .pos = size1};
    }
    t->contig = t->nblocks == 1 && (MPI_Aint)t->size == t->extent;
    if (type1 == type2) {
        t->runs[0] = (vbt_dtype_run_t){.size = size1, .count = 2, .type = type1};
    } else {
        t->nruns = 2;
        t->runs[0] = (vbt_dtype_run_t){.size = size1, .count = 1, .type = type1};
        t->runs[1] = (vbt_dtype_run_t){.size = size2, .count = 1, .type = type2};
    }
}

#define BASIC(_dt, _ctype) predef(_dt, #_dt, sizeof(_ctype), _Alignof(_ctype))
#define PAIRT(_dt, _a, _ta, _b, _tb)                                                               \
    predef_pair(_dt, #_dt, _ta, sizeof(_a), offsetof(PAIR(_a, _b), i), _tb, sizeof(_b),            \
                sizeof(PAIR(_a, _b)), _Alignof(PAIR(_a, _b)))

void vbt_datatype_init(void)
{
    /* Fixed-size types (bit 6 of the handle set) encode log2 of their size in bits 5:3. The
     * Fortran COMPLEXn are two REALs of n/2 bytes, aligned as one. */
    static const struct {
        unsigned handle;
        const char *name;
        int cplx;
    } fixed[] = {
        {0x240, "MPI_INT8_T", 0},      {0x241, "MPI_UINT8_T", 0},       {0x243, "MPI_CHAR", 0},
        {0x244, "MPI_SIGNED_CHAR", 0}, {0x245, "MPI_UNSIGNED_CHAR", 0}, {0x247, "MPI_BYTE", 0},
        {0x248, "MPI_INT16_T", 0},     {0x249, "MPI_UINT16_T", 0},      {0x250, "MPI_INT32_T", 0},
        {0x251, "MPI_UINT32_T", 0},    {0x258, "MPI_INT64_T", 0},       {0x259, "MPI_UINT64_T", 0},
        {0x2c0, "MPI_LOGICAL1", 0},    {0x2c1, "MPI_INTEGER1", 0},      {0x2c8, "MPI_LOGICAL2", 0},
        {0x2c9, "MPI_INTEGER2", 0},    {0x2ca, "MPI_REAL2", 0},         {0x2d0, "MPI_LOGICAL4", 0},
        {0x2d1, "MPI_INTEGER4", 0},    {0x2d2, "MPI_REAL4", 0},         {0x2d3, "MPI_COMPLEX4", 1},
        {0x2d8, "MPI_LOGICAL8", 0},    {0x2d9, "MPI_INTEGER8", 0},      {0x2da, "MPI_REAL8", 0},
        {0x2db, "MPI_COMPLEX8", 1},    {0x2e0, "MPI_LOGICAL16", 0},     {0x2e1, "MPI_INTEGER16", 0},
        {0x2e2, "MPI_REAL16", 0},      {0x2e3, "MPI_COMPLEX16", 1},     {0x2eb, "MPI_COMPLEX32", 1},
    };

    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        size_t bytes = (size_t)1 << ((fixed[i].handle >> 3) & 7);
        size_t align = fixed[i].cplx ? bytes / 2 : bytes;
        predef((MPI_Datatype)(uintptr_t)fixed[i].handle, fixed[i].name, bytes,
               align > 16 ? 16 : align);
    }

    BASIC(MPI_AINT, MPI_Aint);
    BASIC(MPI_COUNT, MPI_Count);
    BASIC(MPI_OFFSET, MPI_Offset);
    predef(MPI_PACKED, "MPI_PACKED", 1, 1);
    BASIC(MPI_SHORT, short);
    BASIC(MPI_INT, int);
    BASIC(MPI_LONG, long);
    BASIC(MPI_LONG_LONG_INT, long long);
    BASIC(MPI_UNSIGNED_SHORT, unsigned short);
    BASIC(MPI_UNSIGNED, unsigned);
    BASIC(MPI_UNSIGNED_LONG, unsigned long);
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    BASIC(MPI_FLOAT, float);
    BASIC(MPI_C_COMPLEX, float _Complex);
    BASIC(MPI_CXX_FLOAT_COMPLEX, float _Complex);
    BASIC(MPI_DOUBLE, double);
    BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex);
    BASIC(MPI_CXX_DOUBLE_COMPLEX, double _Complex);
    /* Fortran types as gfortran lays them out by default. */
    predef(MPI_LOGICAL, "MPI_LOGICAL", 4, 4);
    predef(MPI_INTEGER, "MPI_INTEGER", 4, 4);
    predef(MPI_REAL, "MPI_REAL", 4, 4);
    predef(MPI_COMPLEX, "MPI_COMPLEX", 8, 4);
    predef(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8);
    predef(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 8);
    predef(MPI_CHARACTER, "MPI_CHARACTER", 1, 1);
    BASIC(MPI_LONG_DOUBLE, long double);
    BASIC(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    BASIC(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex);
    PAIRT(MPI_FLOAT_INT, float, MPI_FLOAT, int, MPI_INT);
    PAIRT(MPI_DOUBLE_INT, double, MPI_DOUBLE, int, MPI_INT);
    PAIRT(MPI_LONG_INT, long, MPI_LONG, int, MPI_INT);
    PAIRT(MPI_2INT, int, MPI_INT, int, MPI_INT);
    PAIRT(MPI_SHORT_INT, short, MPI_SHORT, int, MPI_INT);
    PAIRT(MPI_LONG_DOUBLE_INT, long double, MPI_LONG_DOUBLE, int, MPI_INT);
    predef_pair(MPI_2REAL, "MPI_2REAL", MPI_REAL, 4, 4, MPI_REAL, 4, 8, 4);
    predef_pair(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, 8, 8,
                MPI_DOUBLE_PRECISION, 8, 16, 8);
    predef_pair(MPI_2INTEGER, "MPI_2INTEGER", MPI_INTEGER, 4, 4, MPI_INTEGER, 4, 8, 4);
    BASIC(MPI_C_BOOL, bool);
    BASIC(MPI_CXX_BOOL, bool);
    BASIC(MPI_WCHAR, wchar_t);
    /* long double carries padding (x86: 10 bytes of value in 16): its size stays sizeof, as
     * every MPI reports it, and it moves as those bytes. */
}

MPI_Datatype vbt_dtype_handle(const vbt_dtype_t *t)
{
    if (t->predefined)
        return (MPI_Datatype)(uintptr_t)(0x200 + (t - vbt_dtype_table));
    return (MPI_Datatype)(uintptr_t)t;
}

/* ---- the registry of live derived handles ---------------------------------------------------- */

/* An open-addressing set of pointers (linear probing, deletion by backward shift): a handle is
 * dereferenced only once found here, so a freed or made-up one gets MPI_ERR_TYPE, not a crash. */
static struct {
    vbt_dtype_t **slot;
    size_t cap; /* a power of two, or 0 */
    size_t n;
} reg;

static size_t reg_hash(const void *p, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return (size_t)x & (cap - 1);
}

static int reg_insert(vbt_dtype_t *t);

static int reg_grow(void)
{
    size_t old_cap = reg.cap, cap = old_cap ? old_cap * 2 : 64;
    vbt_dtype_t **old = reg.slot;

    reg.slot = calloc(cap, sizeof(*reg.slot));
    if (reg.slot == NULL) {
        reg.slot = old;
        return -1;
    }
    reg.cap = cap;
    reg.n = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i] != NULL)
            reg_insert(old[i]);
    free(old);
    return 0;
}

static int reg_insert(vbt_dtype_t *t)
{
    size_t i;

    if ((reg.n + 1) * 2 > reg.cap && reg_grow() != 0)
        return -1;
    for (i = reg_hash(t, reg.cap); reg.slot[i] != NULL; i = (i + 1) & (reg.cap - 1))
        if (reg.slot[i] == t)
            return 0;
    reg.slot[i] = t;
    reg.n++;
    return 0;
}

static void reg_remove(const vbt_dtype_t *t)
{
    size_t i, j;

    if (reg.cap == 0)
        return;
    for (i = reg_hash(t, reg.cap); reg.slot[i] != t; i = (i + 1) & (reg.cap - 1))
        if (reg.slot[i] == NULL)
            return;
    reg.slot[i] = NULL;
    reg.n--;
    /* Move back every entry of the cluster that would no longer be found past the hole. */
    for (j = (i + 1) & (reg.cap - 1); reg.slot[j] != NULL; j = (j + 1) & (reg.cap - 1)) {
        size_t home = reg_hash(reg.slot[j], reg.cap);
        if (((j - home) & (reg.cap - 1)) >= ((j - i) & (reg.cap - 1))) {
            reg.slot[i] = reg.slot[j];
            reg.slot[j] = NULL;
            i = j;
        }
    }
}

vbt_dtype_t *vbt_dtype_lookup(MPI_Datatype dt)
{
    if (reg.cap == 0)
        return NULL;
    for (size_t i = reg_hash(dt, reg.cap); reg.slot[i] != NULL; i = (i + 1) & (reg.cap - 1))
        if ((void *)reg.slot[i] == (void *)dt)
            return reg.slot[i];
    return NULL;
}

/* ---- lifetime -------------------------------------------------------------------------------- */

static void dtype_destroy(vbt_dtype_t *t)
{
    vbt_attr_list_delete_quiet(&t->attrs);
    for (int i = 0; i < t->ntypes; i++)
        vbt_dtype_unref(t->types[i]);
    free(t->ints);
    free(t->aints);
    free(t->counts);
    free(t->types);
    if (t->blocks != t->inl_block)
        free(t->blocks);
    if (t->runs != t->inl_run)
        free(t->runs);
    t->magic = 0;
    free(t);
}

void vbt_dtype_unref(vbt_dtype_t *t)
{
    if (t->predefined)
        return;
    if (--t->refs == 0)
        dtype_destroy(t);
}

void vbt_dtype_handle_add(vbt_dtype_t *t)
{
    if (t->predefined)
        return;
    if (t->handles++ == 0)
        reg_insert(t); /* cannot fail: it was in the registry before, the table only grows */
    t->refs++;
}

void vbt_dtype_handle_free(vbt_dtype_t *t)
{
    if (t->predefined)
        return;
    if (--t->handles == 0)
        reg_remove(t);
    vbt_dtype_unref(t);
}

void vbt_datatype_cleanup(void)
{
    /* Whatever the application did not free: drop the handles; types held by others go with
     * them. Requests are gone by now. */
    while (reg.n > 0) {
        for (size_t i = 0; i < reg.cap; i++) {
            vbt_dtype_t *t = reg.slot[i];
            if (t != NULL) {
                t->handles = 1;
                vbt_dtype_handle_free(t);
                break;
            }
        }
    }
    free(reg.slot);
    memset(&reg, 0, sizeof(reg));
    for (size_t i = 0; i < sizeof(vbt_dtype_table) / sizeof(vbt_dtype_table[0]); i++) {
        vbt_attr_list_delete_quiet(&vbt_dtype_table[i].attrs);
        vbt_dtype_table[i].f90_list = NULL; /* freed with the registry above */
    }
}

/* ---- construction ---------------------------------------------------------------------------- */

/* A type under construction: pieces (count copies of a type at a displacement) are added in
 * type-map order, then finish() derives the bounds and the packed positions. */
typedef struct {
    vbt_dtype_t *t;
    size_t cap_blocks, cap_runs;
    int any_data;                /* some piece has data: the true bounds are known */
    int basic_set;               /* t->basic is the first data piece's */
    MPI_Aint plain_lb, plain_ub; /* bounds of pieces without explicit markers */
    MPI_Aint mark_lb, mark_ub;   /* bounds of pieces with them */
    int has_mark_lb, has_mark_ub, has_plain;
    int failed;
} builder_t;

static int builder_init(builder_t *b)
{
    memset(b, 0, sizeof(*b));
    b->t = calloc(1, sizeof(*b->t));
    if (b->t == NULL)
        return -1;
    b->t->blocks = b->t->inl_block;
    b->t->runs = b->t->inl_run;
    b->cap_blocks = b->cap_runs = 2;
    b->t->basic = MPI_DATATYPE_NULL;
    b->t->align = 1;
    return 0;
}

static void builder_abort(builder_t *b)
{
    if (b->t->blocks != b->t->inl_block)
        free(b->t->blocks);
    if (b->t->runs != b->t->inl_run)
        free(b->t->runs);
    free(b->t);
}

/* Double an array that may still be the object's inline storage: the new array, or NULL (the
 * old one is left as it was). */
static void *grow(void *arr, const void *inl, size_t *cap, size_t elem)
{
    size_t ncap = *cap * 2;
    void *n;

    if (arr == inl) {
        n = malloc(ncap * elem);
        if (n != NULL)
            memcpy(n, inl, *cap * elem);
    } else {
        n = realloc(arr, ncap * elem);
    }
    if (n != NULL)
        *cap = ncap;
    return n;
}

static void add_block(builder_t *b, MPI_Aint off, size_t len)
{
    vbt_dtype_t *t = b->t;

    if (len == 0)
        return;
    if (t->nblocks > 0) {
        vbt_dtype_block_t *last = &t->blocks[t->nblocks - 1];
        if (last->off + (MPI_Aint)last->len == off) {
            last->len += len;
            return;
        }
    }
    if (t->nblocks == b->cap_blocks) {
        vbt_dtype_block_t *n = grow(t->blocks, t->inl_block, &b->cap_blocks, sizeof(*n));
        if (n == NULL) {
            b->failed = 1;
            return;
        }
        t->blocks = n;
    }
    t->blocks[t->nblocks++] = (vbt_dtype_block_t){.off = off, .len = len};
}

static void add_run(builder_t *b, size_t size, size_t count, MPI_Datatype type)
{
    vbt_dtype_t *t = b->t;

    if (count == 0)
        return;
    if (t->nruns > 0 && t->runs[t->nruns - 1].type == type) {
        t->runs[t->nruns - 1].count += count;
        return;
    }
    if (t->nruns == b->cap_runs) {
        vbt_dtype_run_t *n = grow(t->runs, t->inl_run, &b->cap_runs, sizeof(*n));
        if (n == NULL) {
            b->failed = 1;
            return;
        }
        t->runs = n;
    }
    t->runs[t->nruns++] = (vbt_dtype_run_t){.size = size, .count = count, .type = type};
}

static MPI_Aint amin(MPI_Aint a, MPI_Aint b)
{
    return a < b ? a : b;
}

static MPI_Aint amax(MPI_Aint a, MPI_Aint b)
{
    return a > b ? a : b;
}

/* count copies of c, the i-th at disp + i * extent(c). */
static void add(builder_t *b, const vbt_dtype_t *c, MPI_Aint disp, size_t count)
{
    vbt_dtype_t *t = b->t;
    MPI_Aint span, lo, hi;

    if (count == 0 || b->failed)
        return;
    span = (MPI_Aint)(count - 1) * c->extent;
    lo = amin(0, span);
    hi = amax(0, span);
    /* Bounds: a copy of a type with explicit markers brings markers along. */
    if (c->sticky_lb) {
        b->mark_lb = b->has_mark_lb ? amin(b->mark_lb, disp + c->lb + lo) : disp + c->lb + lo;
        b->has_mark_lb = 1;
    }
    if (c->sticky_ub) {
        b->mark_ub = b->has_mark_ub ? amax(b->mark_ub, disp + c->ub + hi) : disp + c->ub + hi;
        b->has_mark_ub = 1;
    }
    if (c->nelements > 0 && (!c->sticky_lb || !c->sticky_ub)) {
        b->plain_lb = b->has_plain ? amin(b->plain_lb, disp + c->lb + lo) : disp + c->lb + lo;
        b->plain_ub = b->has_plain ? amax(b->plain_ub, disp + c->ub + hi) : disp + c->ub + hi;
        b->has_plain = 1;
    }
    if (c->align > t->align)
        t->align = c->align;
    if (c->size > 0) {
        t->true_lb =
            b->any_data ? amin(t->true_lb, disp + c->true_lb + lo) : disp + c->true_lb + lo;
        t->true_ub =
            b->any_data ? amax(t->true_ub, disp + c->true_ub + hi) : disp + c->true_ub + hi;
        b->any_data = 1;
        if (!b->basic_set) {
            t->basic = c->basic;
            b->basic_set = 1;
        } else if (t->basic != c->basic) {
            t->basic = MPI_DATATYPE_NULL;
        }
    }
    t->size += count * c->size;
    t->nbasic += count * c->nbasic;
    t->nelements += count * c->nelements;
    /* The data: copies that abut make one block, the common case of contiguous data. */
    if (c->nblocks == 1 && (MPI_Aint)c->blocks[0].len == c->extent) {
        add_block(b, disp + c->blocks[0].off, count * c->blocks[0].len);
    } else {
        for (size_t i = 0; i < count && !b->failed; i++)
            for (size_t j = 0; j < c->nblocks; j++)
                add_block(b, disp + (MPI_Aint)i * c->extent + c->blocks[j].off, c->blocks[j].len);
    }
    if (c->nruns == 1) {
        add_run(b, c->runs[0].size, count * c->runs[0].count, c->runs[0].type);
    } else {
        for (size_t i = 0; i < count && !b->failed; i++)
            for (size_t j = 0; j < c->nruns; j++)
                add_run(b, c->runs[j].size, c->runs[j].count, c->runs[j].type);
    }
}

/* Packed positions, contiguity, one handle; pad_struct: round the extent up to the alignment
 * of the basic types, as a C compiler pads a struct (MPI's epsilon, done as other MPIs do). */
static vbt_status_t finish(builder_t *b, int pad_struct, vbt_dtype_t **t_p)
{
    vbt_dtype_t *t = b->t;
    size_t pos = 0;

    if (b->failed) {
        builder_abort(b);
        return VBT_ERR_NO_MEMORY;
    }
    t->sticky_lb = (uint8_t)b->has_mark_lb;
    t->sticky_ub = (uint8_t)b->has_mark_ub;
    t->lb = b->has_mark_lb ? b->mark_lb : b->has_plain ? b->plain_lb : 0;
    t->ub = b->has_mark_ub ? b->mark_ub : b->has_plain ? b->plain_ub : 0;
    if (pad_struct && !b->has_mark_lb && !b->has_mark_ub && t->align > 1) {
        MPI_Aint ext = t->ub - t->lb, a = (MPI_Aint)t->align;
        if (ext % a != 0)
            t->ub += a - ext % a;
    }
    t->extent = t->ub - t->lb;
    if (!b->any_data)
        t->true_lb = t->true_ub = 0;
    for (size_t i = 0; i < t->nblocks; i++) {
        t->blocks[i].pos = pos;
        pos += t->blocks[i].len;
    }
    t->contig = t->size == 0 || (t->nblocks == 1 && (MPI_Aint)t->size == t->extent);
    t->magic = VBT_DTYPE_MAGIC;
    t->combiner = MPI_COMBINER_NAMED;
    t->refs = 0;
    if (reg_insert(t) != 0) {
        builder_abort(b);
        return VBT_ERR_NO_MEMORY;
    }
    t->handles = 1;
    t->refs = 1;
    *t_p = t;
    return VBT_OK;
}

vbt_status_t vbt_dtype_create_contiguous(size_t count, const vbt_dtype_t *old, vbt_dtype_t **t_p)
{
    builder_t b;

    if (builder_init(&b) != 0)
        return VBT_ERR_NO_MEMORY;
    add(&b, old, 0, count);
    return finish(&b, 0, t_p);
}

vbt_status_t vbt_dtype_create_hvector(size_t count, size_t blocklen, MPI_Aint stride,
                                      const vbt_dtype_t *old, vbt_dtype_t **t_p)
{
    builder_t b;

    if (builder_init(&b) != 0)
        return VBT_ERR_NO_MEMORY;
    for (size_t i = 0; i < count; i++)
        add(&b, old, (MPI_Aint)i * stride, blocklen);
    return finish(&b, 0, t_p);
}

vbt_status_t vbt_dtype_create_hindexed(size_t count, const MPI_Count *blocklens, size_t blocklen,
                                       const MPI_Aint *disps, const vbt_dtype_t *old,
                                       vbt_dtype_t **t_p)
{
    builder_t b;

    if (builder_init(&b) != 0)
        return VBT_ERR_NO_MEMORY;
    for (size_t i = 0; i < count; i++)
        add(&b, old, disps[i], blocklens != NULL ? (size_t)blocklens[i] : blocklen);
    return finish(&b, 0, t_p);
}

vbt_status_t vbt_dtype_create_struct(size_t count, const MPI_Count *blocklens,
                                     const MPI_Aint *disps, vbt_dtype_t *const *types,
                                     vbt_dtype_t **t_p)
{
    builder_t b;

    if (builder_init(&b) != 0)
        return VBT_ERR_NO_MEMORY;
    for (size_t i = 0; i < count; i++)
        add(&b, types[i], disps[i], (size_t)blocklens[i]);
    return finish(&b, 1, t_p);
}

vbt_status_t vbt_dtype_create_resized(const vbt_dtype_t *old, MPI_Aint lb, MPI_Aint extent,
                                      vbt_dtype_t **t_p)
{
    builder_t b;

    if (builder_init(&b) != 0)
        return VBT_ERR_NO_MEMORY;
    add(&b, old, 0, 1);
    b.has_mark_lb = b.has_mark_ub = 1;
    b.mark_lb = lb;
    b.mark_ub = lb + extent;
    return finish(&b, 0, t_p);
}

vbt_status_t vbt_dtype_create_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                                       const MPI_Count *starts, int order, const vbt_dtype_t *old,
                                       vbt_dtype_t **t_p)
{
    /* Dimensions slowest first; the fastest one is a run of subsizes elements. */
    MPI_Aint stride[ndims], full = old->extent;
    MPI_Count idx[ndims];
    int dim[ndims];
    builder_t b;
    int nonempty = 1;

    for (int k = 0; k < ndims; k++) {
        dim[k] = order == MPI_ORDER_C ? k : ndims - 1 - k;
        idx[k] = 0;
        nonempty &= subsizes[k] > 0;
    }
    for (int k = ndims - 1; k >= 0; k--) {
        stride[k] = full;
        full *= sizes[dim[k]];
    }
    if (builder_init(&b) != 0)
        return VBT_ERR_NO_MEMORY;
    while (nonempty && !b.failed) {
        MPI_Aint disp = 0;
        int k;
        for (k = 0; k < ndims; k++)
            disp += (MPI_Aint)(starts[dim[k]] + (k == ndims - 1 ? 0 : idx[k])) * stride[k];
        add(&b, old, disp, (size_t)subsizes[dim[ndims - 1]]);
        /* The next row: an odometer over every dimension but the fastest. */
        for (k = ndims - 2; k >= 0; k--) {
            if (++idx[k] < subsizes[dim[k]])
                break;
            idx[k] = 0;
        }
        if (k < 0)
            break;
    }
    /* The type spans the whole array, from its start (MPI: resized to lb 0, the full extent). */
    b.has_mark_lb = b.has_mark_ub = 1;
    b.mark_lb = 0;
    b.mark_ub = full;
    return finish(&b, 0, t_p);
}

vbt_status_t vbt_dtype_create_grid(int ndims, const MPI_Count *sizes, const MPI_Count *nidx,
                                   const MPI_Count *const *idx, int order, const vbt_dtype_t *old,
                                   vbt_dtype_t **t_p)
{
    /* Dimensions slowest first, as in create_subarray; pos[k] walks the index list of the
     * k-th slowest dimension, and the fastest one goes by runs of consecutive indices. */
    MPI_Aint stride[ndims], full = old->extent;
    MPI_Count pos[ndims];
    int dim[ndims];
    builder_t b;
    int nonempty = 1;

    for (int k = 0; k < ndims; k++) {
        dim[k] = order == MPI_ORDER_C ? k : ndims - 1 - k;
        pos[k] = 0;
        nonempty &= nidx[k] > 0;
    }
    for (int k = ndims - 1; k >= 0; k--) {
        stride[k] = full;
        full *= sizes[dim[k]];
    }
    if (builder_init(&b) != 0)
        return VBT_ERR_NO_MEMORY;
    while (nonempty && !b.failed) {
        const MPI_Count *fast = idx[dim[ndims - 1]];
        MPI_Count nfast = nidx[dim[ndims - 1]];
        MPI_Aint disp = 0;
        int k;

        for (k = 0; k < ndims - 1; k++)
            disp += (MPI_Aint)idx[dim[k]][pos[k]] * stride[k];
        for (MPI_Count i = 0; i < nfast;) {
            MPI_Count j = i + 1;
            while (j < nfast && fast[j] == fast[j - 1] + 1)
                j++;
            add(&b, old, disp + (MPI_Aint)fast[i] * stride[ndims - 1], (size_t)(j - i));
            i = j;
        }
        for (k = ndims - 2; k >= 0; k--) {
            if (++pos[k] < nidx[dim[k]])
                break;
            pos[k] = 0;
        }
        if (k < 0)
            break;
    }
    b.has_mark_lb = b.has_mark_ub = 1;
    b.mark_lb = 0;
    b.mark_ub = full;
    return finish(&b, 0, t_p);
}

vbt_status_t vbt_dtype_dup(const vbt_dtype_t *old, vbt_dtype_t **t_p)
{
    builder_t b;
    vbt_status_t status;

    if (builder_init(&b) != 0)
        return VBT_ERR_NO_MEMORY;
    add(&b, old, 0, 1);
    /* The same bounds exactly, markers or not. */
    b.has_mark_lb = old->sticky_lb;
    b.has_mark_ub = old->sticky_ub;
    b.mark_lb = old->lb;
    b.mark_ub = old->ub;
    status = finish(&b, 0, t_p);
    if (status == VBT_OK) {
        (*t_p)->lb = old->lb;
        (*t_p)->ub = old->ub;
        (*t_p)->extent = old->extent;
        (*t_p)->align = old->align;
        (*t_p)->contig = old->contig;
        (*t_p)->committed = old->committed;
    }
    return status;
}

vbt_status_t vbt_dtype_set_contents(vbt_dtype_t *t, int combiner, int nints, const int *ints,
                                    int naints, const MPI_Aint *aints, int ncounts,
                                    const MPI_Count *counts, int ntypes, vbt_dtype_t *const *types)
{
    t->ints = nints > 0 ? malloc((size_t)nints * sizeof(*ints)) : NULL;
    t->aints = naints > 0 ? malloc((size_t)naints * sizeof(*aints)) : NULL;
    t->counts = ncounts > 0 ? malloc((size_t)ncounts * sizeof(*counts)) : NULL;
    t->types = ntypes > 0 ? malloc((size_t)ntypes * sizeof(*types)) : NULL;
    if ((nints > 0 && t->ints == NULL) || (naints > 0 && t->aints == NULL) ||
        (ncounts > 0 && t->counts == NULL) || (ntypes > 0 && t->types == NULL)) {
        free(t->ints);
        free(t->aints);
        free(t->counts);
        free(t->types);
        t->ints = NULL;
        t->aints = NULL;
        t->counts = NULL;
        t->types = NULL;
        return VBT_ERR_NO_MEMORY;
    }
    t->combiner = combiner;
    t->nints = nints;
    t->naints = naints;
    t->ncounts = ncounts;
    t->ntypes = ntypes;
    if (nints > 0)
        memcpy(t->ints, ints, (size_t)nints * sizeof(*ints));
    if (naints > 0)
        memcpy(t->aints, aints, (size_t)naints * sizeof(*aints));
    if (ncounts > 0)
        memcpy(t->counts, counts, (size_t)ncounts * sizeof(*counts));
    for (int i = 0; i < ntypes; i++) {
        t->types[i] = types[i];
        vbt_dtype_ref(types[i]);
    }
    return VBT_OK;
}

/* ---- packing --------------------------------------------------------------------------------- */

/* The block holding packed byte pos of an element (pos < size). */
static size_t find_block(const vbt_dtype_t *t, size_t pos)
{
    size_t lo = 0, hi = t->nblocks - 1;

    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (t->blocks[mid].pos <= pos)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The walk shared by pack and unpack: to_user copies from the packed side into the elements. */
static size_t copy_packed(const vbt_dtype_t *t, char *buf, size_t count, size_t offset,
                          char *packed, size_t len, int to_user)
{
    size_t total = count * t->size, done = 0, elem, in, blk;

    if (offset >= total || len == 0)
        return 0;
    if (len > total - offset)
        len = total - offset;
    if (t->contig) {
        char *user = buf + t->true_lb + offset;
        memcpy(to_user ? user : packed, to_user ? packed : user, len);
        return len;
    }
    elem = offset / t->size;
    in = offset % t->size;
    blk = find_block(t, in);
    while (done < len) {
        const vbt_dtype_block_t *bl = &t->blocks[blk];
        size_t skip = in - bl->pos, n = bl->len - skip;
        char *user = buf + (MPI_Aint)elem * t->extent + bl->off + (MPI_Aint)skip;
        if (n > len - done)
            n = len - done;
        if (to_user)
            memcpy(user, packed + done, n);
        else
            memcpy(packed + done, user, n);
        done += n;
        in += n;
        if (in == bl->pos + bl->len && ++blk == t->nblocks) {
            blk = 0;
            in = 0;
            elem++;
        }
    }
    return len;
}

size_t vbt_dtype_pack(const vbt_dtype_t *t, const void *buf, size_t count, size_t offset, void *out,
                      size_t len)
{
    return copy_packed(t, (char *)(uintptr_t)buf, count, offset, out, len, 0);
}

size_t vbt_dtype_unpack(const vbt_dtype_t *t, void *buf, size_t count, size_t offset,
                        const void *in, size_t len)
{
    return copy_packed(t, buf, count, offset, (char *)(uintptr_t)in, len, 1);
}

size_t vbt_dtype_elements_bytes(const vbt_dtype_t *t, size_t elements)
{
    size_t bytes, rest;

    if (t->nelements == 0)
        return 0;
    bytes = elements / t->nelements * t->size;
    rest = elements % t->nelements;
    for (size_t i = 0; i < t->nruns && rest > 0; i++) {
        size_t k = rest < t->runs[i].count ? rest : t->runs[i].count;
        bytes += k * t->runs[i].size;
        rest -= k;
    }
    return bytes;
}

MPI_Count vbt_dtype_elements(const vbt_dtype_t *t, size_t bytes)
{
    size_t rest, n;

    if (t->size == 0)
        return 0;
    n = bytes / t->size * t->nelements;
    rest = bytes % t->size;
    for (size_t i = 0; i < t->nruns && rest > 0; i++) {
        const vbt_dtype_run_t *r = &t->runs[i];
        size_t k = rest / r->size;
        if (k >= r->count) {
            n += r->count;
            rest -= r->count * r->size;
        } else {
            n += k;
            rest -= k * r->size;
            break;
        }
    }
    return rest == 0 ? (MPI_Count)n : MPI_UNDEFINED;
}
