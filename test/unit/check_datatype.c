/* Datatypes: bounds, sizes and flattening of every constructor (nested, negative strides,
 * explicit bounds, subarrays in both orders), packing and unpacking at arbitrary offsets
 * against an element-by-element reference, basic-element counts, handles and lifetimes. */
#include <check.h>
#include "vbt_check.h"
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vbt_datatype.h"

static void setup(void)
{
    vbt_datatype_init();
}

static void teardown(void)
{
    vbt_datatype_cleanup();
}

static vbt_dtype_t *T(MPI_Datatype dt)
{
    vbt_dtype_t *t = vbt_dtype_get(dt);
    ck_assert_ptr_nonnull(t);
    return t;
}

static void check_block(const vbt_dtype_t *t, size_t i, MPI_Aint off, size_t len)
{
    ck_assert_uint_lt(i, t->nblocks);
    ck_assert_int_eq(t->blocks[i].off, off);
    ck_assert_uint_eq(t->blocks[i].len, len);
}

static void check_bounds(const vbt_dtype_t *t, size_t size, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint true_lb, MPI_Aint true_extent)
{
    ck_assert_uint_eq(t->size, size);
    ck_assert_int_eq(t->lb, lb);
    ck_assert_int_eq(t->extent, extent);
    ck_assert_int_eq(t->ub, lb + extent);
    ck_assert_int_eq(t->true_lb, true_lb);
    ck_assert_int_eq(t->true_ub - t->true_lb, true_extent);
}

/* ---- the reference: a type map written out by hand, one basic element at a time ------------- */

typedef struct {
    MPI_Aint off[4096];
    size_t len[4096];
    size_t n;
    MPI_Aint extent;
} typemap_t;

static void tm_add(typemap_t *m, MPI_Aint off, size_t len)
{
    ck_assert_uint_lt(m->n, 4096);
    m->off[m->n] = off;
    m->len[m->n] = len;
    m->n++;
}

/* The packed bytes of count elements: each basic element of each element in order. */
static size_t ref_gather(const typemap_t *m, const unsigned char *buf, size_t count,
                         unsigned char *out)
{
    size_t k = 0;
    for (size_t e = 0; e < count; e++)
        for (size_t i = 0; i < m->n; i++)
            for (size_t b = 0; b < m->len[i]; b++)
                out[k++] = buf[(MPI_Aint)e * m->extent + m->off[i] + (MPI_Aint)b];
    return k;
}

static void ref_scatter(const typemap_t *m, unsigned char *buf, size_t count,
                        const unsigned char *in)
{
    size_t k = 0;
    for (size_t e = 0; e < count; e++)
        for (size_t i = 0; i < m->n; i++)
            for (size_t b = 0; b < m->len[i]; b++)
                buf[(MPI_Aint)e * m->extent + m->off[i] + (MPI_Aint)b] = in[k++];
}

static unsigned rng_state = 12345;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

/* Pack and unpack t against the reference, whole and in pieces at arbitrary offsets and
 * lengths. base is where element 0 lives inside a buffer of span bytes. */
static void check_pack(const vbt_dtype_t *t, const typemap_t *m, size_t count, size_t span,
                       MPI_Aint base)
{
    unsigned char *user = malloc(span), *packed = malloc(count * t->size + 1);
    unsigned char *ref = malloc(count * t->size + 1), *back = malloc(span);
    unsigned char *want = malloc(span);
    size_t total = count * t->size, n;

    ck_assert_int_eq(m->extent, t->extent);
    for (size_t i = 0; i < span; i++)
        user[i] = (unsigned char)(i * 7 + 3 + (i >> 8));
    ck_assert_uint_eq(ref_gather(m, user + base, count, ref), total);
    /* Whole. */
    n = vbt_dtype_pack(t, user + base, count, 0, packed, total + 100);
    ck_assert_uint_eq(n, total);
    ck_assert_mem_eq(packed, ref, total);
    /* Pieces: a run of random lengths, then random (offset, length) pairs. */
    memset(packed, 0, total);
    for (size_t off = 0; off < total; off += n) {
        n = vbt_dtype_pack(t, user + base, count, off, packed + off, 1 + rnd(37));
        ck_assert_uint_gt(n, 0);
    }
    ck_assert_mem_eq(packed, ref, total);
    for (int k = 0; k < 200 && total > 0; k++) {
        size_t off = rnd((unsigned)total), len = 1 + rnd((unsigned)(total - off));
        unsigned char piece[4096];
        if (len > sizeof(piece))
            len = sizeof(piece);
        ck_assert_uint_eq(vbt_dtype_pack(t, user + base, count, off, piece, len), len);
        ck_assert_mem_eq(piece, ref + off, len);
    }
    ck_assert_uint_eq(vbt_dtype_pack(t, user + base, count, total, packed, 10), 0);
    /* Unpack in pieces into a buffer of other bytes: exactly the type map's bytes change. */
    memset(back, 0xee, span);
    memset(want, 0xee, span);
    ref_scatter(m, want + base, count, ref);
    for (size_t off = 0; off < total; off += n)
        n = vbt_dtype_unpack(t, back + base, count, off, ref + off, 1 + rnd(53));
    ck_assert_mem_eq(back, want, span);
    free(user);
    free(packed);
    free(ref);
    free(back);
    free(want);
}

/* ---- predefined ------------------------------------------------------------------------------ */

START_TEST(test_predefined)
{
    static const MPI_Datatype all[] = {MPI_AINT,
                                       MPI_COUNT,
                                       MPI_OFFSET,
                                       MPI_PACKED,
                                       MPI_SHORT,
                                       MPI_INT,
                                       MPI_LONG,
                                       MPI_LONG_LONG_INT,
                                       MPI_UNSIGNED_SHORT,
                                       MPI_UNSIGNED,
                                       MPI_UNSIGNED_LONG,
                                       MPI_UNSIGNED_LONG_LONG,
                                       MPI_FLOAT,
                                       MPI_C_COMPLEX,
                                       MPI_CXX_FLOAT_COMPLEX,
                                       MPI_DOUBLE,
                                       MPI_C_DOUBLE_COMPLEX,
                                       MPI_CXX_DOUBLE_COMPLEX,
                                       MPI_LOGICAL,
                                       MPI_INTEGER,
                                       MPI_REAL,
                                       MPI_COMPLEX,
                                       MPI_DOUBLE_PRECISION,
                                       MPI_DOUBLE_COMPLEX,
                                       MPI_CHARACTER,
                                       MPI_LONG_DOUBLE,
                                       MPI_C_LONG_DOUBLE_COMPLEX,
                                       MPI_CXX_LONG_DOUBLE_COMPLEX,
                                       MPI_FLOAT_INT,
                                       MPI_DOUBLE_INT,
                                       MPI_LONG_INT,
                                       MPI_2INT,
                                       MPI_SHORT_INT,
                                       MPI_LONG_DOUBLE_INT,
                                       MPI_2REAL,
                                       MPI_2DOUBLE_PRECISION,
                                       MPI_2INTEGER,
                                       MPI_C_BOOL,
                                       MPI_CXX_BOOL,
                                       MPI_WCHAR,
                                       MPI_INT8_T,
                                       MPI_UINT8_T,
                                       MPI_CHAR,
                                       MPI_SIGNED_CHAR,
                                       MPI_UNSIGNED_CHAR,
                                       MPI_BYTE,
                                       MPI_INT16_T,
                                       MPI_UINT16_T,
                                       MPI_INT32_T,
                                       MPI_UINT32_T,
                                       MPI_INT64_T,
                                       MPI_UINT64_T};
    const vbt_dtype_t *t;

    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        t = T(all[i]);
        ck_assert(t->predefined && t->committed);
        ck_assert_uint_gt(t->size, 0);
        ck_assert_ptr_eq(vbt_dtype_handle(t), all[i]);
        ck_assert_str_ne(t->name, "");
    }
    ck_assert_ptr_null(vbt_dtype_get(MPI_DATATYPE_NULL));
    ck_assert_ptr_null(vbt_dtype_get((MPI_Datatype)0x206));
    ck_assert_ptr_null(vbt_dtype_get((MPI_Datatype)0x300));
    t = T(MPI_INT);
    check_bounds(t, sizeof(int), 0, sizeof(int), 0, sizeof(int));
    ck_assert(t->contig);
    ck_assert_str_eq(t->name, "MPI_INT");
    ck_assert_uint_eq(T(MPI_INT64_T)->size, 8);
    ck_assert_uint_eq(T(MPI_C_BOOL)->size, sizeof(_Bool));
    ck_assert_uint_eq(T(MPI_COUNT)->size, 8);
    /* A pair with padding: 12 bytes of data in 16, two blocks, two basic elements. */
    t = T(MPI_DOUBLE_INT);
    check_bounds(t, 12, 0, 16, 0, 12);
    ck_assert(!t->contig);
    ck_assert_uint_eq(t->nblocks, 1); /* double then int: adjacent */
    ck_assert_uint_eq(t->nelements, 2);
    t = T(MPI_SHORT_INT);
    ck_assert_uint_eq(t->nblocks, 2);
    check_block(t, 1, 4, 4);
    ck_assert_int_eq(vbt_dtype_elements(t, 6), 2);
    ck_assert_int_eq(vbt_dtype_elements(t, 2), 1);
    ck_assert_int_eq(vbt_dtype_elements(t, 3), MPI_UNDEFINED);
    ck_assert(T(MPI_2INT)->contig);
}
END_TEST

/* ---- constructors ---------------------------------------------------------------------------- */

START_TEST(test_contiguous)
{
    vbt_dtype_t *t, *u;

    ck_assert_int_eq(vbt_dtype_create_contiguous(5, T(MPI_INT), &t), VBT_OK);
    check_bounds(t, 20, 0, 20, 0, 20);
    ck_assert(t->contig && !t->committed && !t->predefined);
    ck_assert_uint_eq(t->nblocks, 1);
    ck_assert_ptr_eq(t->basic, MPI_INT);
    ck_assert_uint_eq(t->nbasic, 5);
    ck_assert_ptr_eq(vbt_dtype_get(vbt_dtype_handle(t)), t);
    /* Of a pair with padding: not contiguous, one block per element. */
    ck_assert_int_eq(vbt_dtype_create_contiguous(3, T(MPI_DOUBLE_INT), &u), VBT_OK);
    check_bounds(u, 36, 0, 48, 0, 44);
    ck_assert(!u->contig);
    ck_assert_uint_eq(u->nblocks, 3);
    check_block(u, 2, 32, 12);
    ck_assert_int_eq(vbt_dtype_elements(u, 36), 6);
    ck_assert_int_eq(vbt_dtype_elements(u, 20), 3);
    ck_assert_int_eq(vbt_dtype_elements(u, 22), MPI_UNDEFINED);
    vbt_dtype_handle_free(t);
    vbt_dtype_handle_free(u);
    /* Zero elements: no data, no extent. */
    ck_assert_int_eq(vbt_dtype_create_contiguous(0, T(MPI_INT), &t), VBT_OK);
    check_bounds(t, 0, 0, 0, 0, 0);
    ck_assert(t->contig);
    vbt_dtype_handle_free(t);
}
END_TEST

START_TEST(test_vector)
{
    vbt_dtype_t *t;
    typemap_t m = {.n = 0};

    /* 3 blocks of 2 ints, 4 ints apart. */
    ck_assert_int_eq(vbt_dtype_create_hvector(3, 2, 16, T(MPI_INT), &t), VBT_OK);
    check_bounds(t, 24, 0, 40, 0, 40);
    ck_assert(!t->contig);
    ck_assert_uint_eq(t->nblocks, 3);
    check_block(t, 0, 0, 8);
    check_block(t, 1, 16, 8);
    check_block(t, 2, 32, 8);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            tm_add(&m, 16 * i + 4 * j, 4);
    m.extent = 40;
    check_pack(t, &m, 7, 7 * 40 + 64, 0);
    vbt_dtype_handle_free(t);
    /* A stride equal to the block: contiguous after all. */
    ck_assert_int_eq(vbt_dtype_create_hvector(4, 2, 8, T(MPI_INT), &t), VBT_OK);
    ck_assert(t->contig);
    ck_assert_uint_eq(t->nblocks, 1);
    vbt_dtype_handle_free(t);
}
END_TEST

START_TEST(test_negative_stride)
{
    vbt_dtype_t *t, *c;
    typemap_t m = {.n = 0};

    /* 3 doubles going backwards: at 0, -16, -32. */
    ck_assert_int_eq(vbt_dtype_create_hvector(3, 1, -16, T(MPI_DOUBLE), &t), VBT_OK);
    check_bounds(t, 24, -32, 40, -32, 40);
    check_block(t, 0, 0, 8);
    check_block(t, 2, -32, 8);
    for (int i = 0; i < 3; i++)
        tm_add(&m, -16 * i, 8);
    m.extent = 40;
    check_pack(t, &m, 5, 32 + 5 * 40, 32); /* element e's data: [32 + 40e - 32, 32 + 40e + 8) */
    /* A contiguous of it: elements 40 bytes apart, each starting 32 before its address. */
    ck_assert_int_eq(vbt_dtype_create_contiguous(2, t, &c), VBT_OK);
    check_bounds(c, 48, -32, 80, -32, 80);
    ck_assert_uint_eq(c->nblocks, 6);
    check_block(c, 3, 40, 8);
    vbt_dtype_handle_free(t);
    vbt_dtype_handle_free(c);
}
END_TEST

START_TEST(test_indexed)
{
    static const MPI_Count bl[] = {2, 0, 1, 3};
    static const MPI_Aint disp[] = {40, 8, 0, 12};
    vbt_dtype_t *t, *b;
    typemap_t m = {.n = 0};

    /* Type-map order, not address order; an empty block contributes nothing, not even to lb. */
    ck_assert_int_eq(vbt_dtype_create_hindexed(4, bl, 0, disp, T(MPI_INT), &t), VBT_OK);
    check_bounds(t, 24, 0, 48, 0, 48);
    ck_assert_uint_eq(t->nblocks, 3);
    check_block(t, 0, 40, 8);
    check_block(t, 1, 0, 4);
    check_block(t, 2, 12, 12);
    tm_add(&m, 40, 8);
    tm_add(&m, 0, 4);
    tm_add(&m, 12, 12);
    m.extent = 48;
    check_pack(t, &m, 5, 5 * 48, 0);
    vbt_dtype_handle_free(t);
    m.n = 0;
    /* Block variant with merging of truly adjacent blocks only. */
    ck_assert_int_eq(
        vbt_dtype_create_hindexed(3, NULL, 2, (const MPI_Aint[]){8, 16, 0}, T(MPI_INT), &b),
        VBT_OK);
    check_bounds(b, 24, 0, 24, 0, 24);
    ck_assert_uint_eq(b->nblocks, 2);
    check_block(b, 0, 8, 16);
    check_block(b, 1, 0, 8);
    ck_assert(!b->contig);
    tm_add(&m, 8, 8);
    tm_add(&m, 16, 8);
    tm_add(&m, 0, 8);
    m.extent = 24;
    check_pack(b, &m, 9, 9 * 24, 0);
    vbt_dtype_handle_free(b);
}
END_TEST

START_TEST(test_struct)
{
    struct s1 {
        int a;
        double b;
        char c[3];
    };
    const MPI_Count bl[] = {1, 1, 3};
    const MPI_Aint disp[] = {offsetof(struct s1, a), offsetof(struct s1, b),
                             offsetof(struct s1, c)};
    vbt_dtype_t *const types[] = {T(MPI_INT), T(MPI_DOUBLE), T(MPI_CHAR)};
    vbt_dtype_t *t;
    typemap_t m = {.n = 0};

    ck_assert_int_eq(vbt_dtype_create_struct(3, bl, disp, types, &t), VBT_OK);
    /* The extent is padded to the struct's alignment, as the C compiler pads it. */
    check_bounds(t, 15, 0, sizeof(struct s1), 0, offsetof(struct s1, c) + 3);
    ck_assert_uint_eq(t->nblocks, 2);
    ck_assert_ptr_eq(t->basic, MPI_DATATYPE_NULL);
    ck_assert_uint_eq(t->nelements, 5);
    /* Partial elements: int, double, then chars one by one. */
    ck_assert_int_eq(vbt_dtype_elements(t, 4), 1);
    ck_assert_int_eq(vbt_dtype_elements(t, 8), MPI_UNDEFINED);
    ck_assert_int_eq(vbt_dtype_elements(t, 13), 3);
    ck_assert_int_eq(vbt_dtype_elements(t, 15 + 12), 7);
    tm_add(&m, offsetof(struct s1, a), 4);
    tm_add(&m, offsetof(struct s1, b), 8);
    tm_add(&m, offsetof(struct s1, c), 3);
    m.extent = sizeof(struct s1);
    check_pack(t, &m, 11, 11 * sizeof(struct s1), 0);
    vbt_dtype_handle_free(t);
}
END_TEST

START_TEST(test_resized)
{
    vbt_dtype_t *two, *r, *c, *d;
    typemap_t m = {.n = 0};

    ck_assert_int_eq(vbt_dtype_create_contiguous(2, T(MPI_INT), &two), VBT_OK);
    ck_assert_int_eq(vbt_dtype_create_resized(two, -4, 16, &r), VBT_OK);
    check_bounds(r, 8, -4, 16, 0, 8);
    ck_assert(r->sticky_lb && r->sticky_ub);
    ck_assert(!r->contig);
    ck_assert_int_eq(vbt_dtype_create_contiguous(3, r, &c), VBT_OK);
    check_bounds(c, 24, -4, 48, 0, 40);
    ck_assert_uint_eq(c->nblocks, 3);
    check_block(c, 1, 16, 8);
    tm_add(&m, 0, 8);
    tm_add(&m, 16, 8);
    tm_add(&m, 32, 8);
    m.extent = 48;
    check_pack(c, &m, 4, 4 * 48 + 8, 4);
    /* Resized to exactly its size: contiguous again. Markers stick through a struct. */
    ck_assert_int_eq(vbt_dtype_create_resized(two, 0, 8, &d), VBT_OK);
    ck_assert(d->contig);
    vbt_dtype_handle_free(d);
    {
        const MPI_Count bl[] = {1, 1};
        const MPI_Aint disp[] = {0, 100};
        vbt_dtype_t *const types[] = {r, T(MPI_CHAR)};
        ck_assert_int_eq(vbt_dtype_create_struct(2, bl, disp, types, &d), VBT_OK);
        /* lb from r's marker (-4), ub from its marker too (12): the char at 100 lies beyond. */
        check_bounds(d, 9, -4, 16, 0, 101);
        vbt_dtype_handle_free(d);
    }
    vbt_dtype_handle_free(two);
    vbt_dtype_handle_free(r);
    vbt_dtype_handle_free(c);
}
END_TEST

START_TEST(test_subarray)
{
    const MPI_Count sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 1};
    vbt_dtype_t *t;
    typemap_t m = {.n = 0};

    /* C order: 2 rows of 3 ints of a 4x5 array, from (1,1). */
    ck_assert_int_eq(
        vbt_dtype_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, T(MPI_INT), &t), VBT_OK);
    check_bounds(t, 24, 0, 80, 24, 32);
    ck_assert_uint_eq(t->nblocks, 2);
    check_block(t, 0, 24, 12);
    check_block(t, 1, 44, 12);
    for (int i = 1; i < 3; i++)
        for (int j = 1; j < 4; j++)
            tm_add(&m, (i * 5 + j) * 4, 4);
    m.extent = 80;
    check_pack(t, &m, 3, 3 * 80, 0);
    vbt_dtype_handle_free(t);
    /* Fortran order: the first index is the fastest; 3 columns of 2. */
    m.n = 0;
    ck_assert_int_eq(
        vbt_dtype_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, T(MPI_INT), &t),
        VBT_OK);
    check_bounds(t, 24, 0, 80, 20, 40);
    ck_assert_uint_eq(t->nblocks, 3);
    check_block(t, 0, 20, 8);
    check_block(t, 2, 52, 8);
    for (int j = 1; j < 4; j++)
        for (int i = 1; i < 3; i++)
            tm_add(&m, (i + j * 4) * 4, 4);
    m.extent = 80;
    check_pack(t, &m, 2, 2 * 80, 0);
    vbt_dtype_handle_free(t);
    /* Three dimensions, C order, of doubles. */
    {
        const MPI_Count s3[] = {3, 4, 5}, sub3[] = {2, 2, 3}, st3[] = {1, 2, 0};
        m.n = 0;
        ck_assert_int_eq(
            vbt_dtype_create_subarray(3, s3, sub3, st3, MPI_ORDER_C, T(MPI_DOUBLE), &t), VBT_OK);
        for (int i = 1; i < 3; i++)
            for (int j = 2; j < 4; j++)
                for (int k = 0; k < 3; k++)
                    tm_add(&m, ((i * 4 + j) * 5 + k) * 8, 8);
        m.extent = 3 * 4 * 5 * 8;
        ck_assert_uint_eq(t->size, 12 * 8);
        check_pack(t, &m, 2, 2 * 480, 0);
        vbt_dtype_handle_free(t);
    }
}
END_TEST

START_TEST(test_nested)
{
    /* A vector of structs {int; short} (resized to 8), 2 of every 3, of which 4 blocks. */
    const MPI_Count bl[] = {1, 1};
    const MPI_Aint disp[] = {0, 4};
    vbt_dtype_t *const types[] = {T(MPI_INT), T(MPI_SHORT)};
    vbt_dtype_t *s, *v, *d;
    typemap_t m = {.n = 0};

    ck_assert_int_eq(vbt_dtype_create_struct(2, bl, disp, types, &s), VBT_OK);
    check_bounds(s, 6, 0, 8, 0, 6);
    ck_assert_uint_eq(s->nblocks, 1);
    ck_assert_int_eq(vbt_dtype_create_hvector(4, 2, 3 * 8, s, &v), VBT_OK);
    check_bounds(v, 48, 0, 3 * 24 + 16, 0, 3 * 24 + 14);
    ck_assert_uint_eq(v->nblocks, 8);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) {
            tm_add(&m, 24 * i + 8 * j, 4);
            tm_add(&m, 24 * i + 8 * j + 4, 2);
        }
    m.extent = v->extent;
    check_pack(v, &m, 3, 3 * 88, 0);
    ck_assert_int_eq(vbt_dtype_elements(v, 48 + 10), 8 * 2 + 3);
    /* A dup: the same everything. */
    ck_assert_int_eq(vbt_dtype_dup(v, &d), VBT_OK);
    check_bounds(d, v->size, v->lb, v->extent, v->true_lb, v->true_ub - v->true_lb);
    ck_assert_uint_eq(d->nblocks, v->nblocks);
    check_pack(d, &m, 3, 3 * 88, 0);
    vbt_dtype_handle_free(s);
    vbt_dtype_handle_free(v);
    vbt_dtype_handle_free(d);
}
END_TEST

START_TEST(test_large_offsets)
{
    /* Many elements: resuming deep inside costs a search, and lands on the right byte. */
    vbt_dtype_t *t;
    typemap_t m = {.n = 0};
    size_t count = 20000;

    ck_assert_int_eq(vbt_dtype_create_hvector(3, 1, 12, T(MPI_INT), &t), VBT_OK);
    tm_add(&m, 0, 4);
    tm_add(&m, 12, 4);
    tm_add(&m, 24, 4);
    m.extent = 28;
    check_pack(t, &m, count, count * 28, 0);
    vbt_dtype_handle_free(t);
}
END_TEST

/* ---- handles, contents and lifetimes --------------------------------------------------------- */

START_TEST(test_handles)
{
    vbt_dtype_t *t, *u;
    MPI_Datatype h;
    int x;

    ck_assert_int_eq(vbt_dtype_create_contiguous(4, T(MPI_INT), &t), VBT_OK);
    h = vbt_dtype_handle(t);
    ck_assert_uint_gt((uintptr_t)h, 4095);
    /* Random handles: never dereferenced. */
    ck_assert_ptr_null(vbt_dtype_get((MPI_Datatype)(uintptr_t)0x12345678));
    ck_assert_ptr_null(vbt_dtype_get((MPI_Datatype)(void *)&x));
    ck_assert_ptr_null(vbt_dtype_get((MPI_Datatype)((char *)t + 8)));
    /* Built from t: holds it through its contents after t's handle is gone. */
    ck_assert_int_eq(vbt_dtype_create_contiguous(2, t, &u), VBT_OK);
    ck_assert_int_eq(vbt_dtype_set_contents(u, MPI_COMBINER_CONTIGUOUS, 1, (const int[]){2}, 0,
                                            NULL, 0, NULL, 1, &t),
                     VBT_OK);
    ck_assert_int_eq(t->refs, 2);
    vbt_dtype_handle_free(t);
    ck_assert_ptr_null(vbt_dtype_get(h));
    ck_assert_int_eq(t->refs, 1); /* alive for u */
    ck_assert_uint_eq(t->size, 16);
    /* MPI_Type_get_contents hands it out again: a valid handle once more. */
    vbt_dtype_handle_add(u->types[0]);
    ck_assert_ptr_eq(vbt_dtype_get(h), t);
    vbt_dtype_handle_free(t);
    ck_assert_ptr_null(vbt_dtype_get(h));
    /* A pending operation's reference outlives the handle. */
    vbt_dtype_ref(u);
    h = vbt_dtype_handle(u);
    vbt_dtype_handle_free(u);
    ck_assert_ptr_null(vbt_dtype_get(h));
    ck_assert_uint_eq(u->size, 32);
    ck_assert_int_eq(u->ints[0], 2);
    vbt_dtype_unref(u); /* frees u, then t */
    /* Many types: the registry grows and finds each; freeing every other keeps the rest. */
    {
        vbt_dtype_t *many[1000];
        MPI_Datatype hs[1000];
        for (int i = 0; i < 1000; i++) {
            ck_assert_int_eq(vbt_dtype_create_contiguous((size_t)i, T(MPI_BYTE), &many[i]), VBT_OK);
            hs[i] = vbt_dtype_handle(many[i]);
        }
        for (int i = 0; i < 1000; i += 2)
            vbt_dtype_handle_free(many[i]);
        for (int i = 0; i < 1000; i++)
            ck_assert_ptr_eq(vbt_dtype_get(hs[i]), i % 2 ? many[i] : NULL);
        for (int i = 1; i < 1000; i += 2)
            vbt_dtype_handle_free(many[i]);
    }
    /* Predefined types ignore references. */
    vbt_dtype_ref(T(MPI_INT));
    vbt_dtype_unref(T(MPI_INT));
    ck_assert_int_eq(T(MPI_INT)->refs, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("datatype");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_predefined);
    tcase_add_test(tc, test_contiguous);
    tcase_add_test(tc, test_vector);
    tcase_add_test(tc, test_negative_stride);
    tcase_add_test(tc, test_indexed);
    tcase_add_test(tc, test_struct);
    tcase_add_test(tc, test_resized);
    tcase_add_test(tc, test_subarray);
    tcase_add_test(tc, test_nested);
    tcase_add_test(tc, test_large_offsets);
    tcase_add_test(tc, test_handles);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
