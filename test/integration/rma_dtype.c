/* Derived datatypes through one-sided communication, on the origin side, the target side or
 * both, over the create, allocate, dynamic and shared window flavors under fence, PSCW, an
 * exclusive lock and lock_all + flush: vectors against contiguous data both ways, indexed types
 * with uneven blocks and different layouts of one type signature, an hvector of a struct of one
 * basic type, resized types (extent bigger than the data, several of them), a 2-D block of a
 * 3-D subarray, a type with a negative lower bound, from 1 element to 1 MiB (odd sizes) and
 * 4 MiB in a vector of 3-int blocks; MPI_Rput/MPI_Rget, 100 outstanding; MPI_Accumulate,
 * MPI_Get_accumulate, MPI_Raccumulate and MPI_Rget_accumulate (SUM on doubles, MAX on ints,
 * REPLACE on long longs, BXOR on ints, NO_OP fetching) with origin, target and result in three
 * different layouts; and the errors: an accumulate on a struct mixing int and double, a target
 * datatype reaching out of the window. Every element is checked where the type map puts it,
 * and every byte around and between the blocks must keep what it had. The datatypes are freed
 * right after the call that uses them, before the synchronization that completes it (MPI-4.1
 * 5.1.9: the implementation keeps them alive). Every process accesses its right neighbour.
 * Usage: rma_dtype TEST... (or "all"), any number of ranks. */
#define MPITEST_NAME "rma_dtype"
#include "mpitest.h"
#include "rma_common.h"

#include <inttypes.h>

#define GUARD 64

/* RMA_DTYPE_QUICK=1 (the verbs list, where a TCG VM runs everything 20 times slower): every
 * layout pair, flavor, mode and call still, but the puts and gets at their small sizes and up
 * to 4098 elements in a quarter of the flavor and mode pairs, one 4 MiB put and one get, one
 * large accumulate and get-accumulate, and shorter accumulates. */
static int quick;

enum { B_INT, B_DOUBLE, B_LL };
static const char *const basic_name[] = {"int", "double", "long long"};

static MPI_Datatype basic_type(int b)
{
    return b == B_INT ? MPI_INT : b == B_DOUBLE ? MPI_DOUBLE : MPI_LONG_LONG;
}

/* Layouts of n elements of a basic type. */
enum {
    L_CONTIG,      /* the basic type, count n */
    L_VEC1,        /* vector: blocks of 1, stride 3 */
    L_VEC2,        /* vector: blocks of 2, stride 5 */
    L_VEC3,        /* vector: blocks of 3, stride 4 */
    L_IDX_A,       /* indexed, uneven blocks 1,4,2,7,3 with gaps 0,2,1,5 */
    L_IDX_B,       /* indexed, uneven blocks 5,1,1,3,6,2 with gaps 3,0,1,2 */
    L_HVEC_STRUCT, /* hvector (blocks of 2, stride 11 elements) of a struct at 0, 1, 3 */
    L_RESIZED,     /* contiguous of 3 resized to an extent of 5, count n / 3 */
    L_SUBARRAY,    /* a 1 x r x c block at (1, 1, 2) of a 3 x (r + 2) x (c + 3) array */
    L_NEGLB,       /* blocks of 2 at -5, 0 and 4 (lower bound -5), count n / 6 */
    L_CONTIG_VEC,  /* contiguous n / 4 of a vector (2 blocks of 2, stride 3) */
};
static const char *const lay_name[] = {
    "contiguous", "vector(1 of 3)", "vector(2 of 5)",      "vector(3 of 4)",
    "indexed A",  "indexed B",      "hvector of struct",   "resized",
    "subarray",   "negative lb",    "contiguous of vector"};

/* One side of an operation: its datatype and, computed here independently of MPI, where each
 * element of the type map lies. */
typedef struct {
    int kind, basic, bs;
    MPI_Datatype dt; /* MPI_DATATYPE_NULL once freed */
    int count;
    MPI_Aint n;      /* elements of the basic type */
    MPI_Aint *eo;    /* byte offset of element k from the address passed, in type map order */
    MPI_Aint lo, hi; /* every element lies in bytes [lo, hi) from that address */
    MPI_Aint at;     /* where that address is in the buffer (or window) laid out for this side */
    MPI_Aint len;    /* bytes of that buffer: at + hi + GUARD */
} side_t;

static void commit(MPI_Datatype *t)
{
    CHECK(MPI_Type_commit(t) == MPI_SUCCESS);
}

static void side_make(side_t *s, int kind, int basic, MPI_Aint n)
{
    MPI_Datatype b = basic_type(basic), t;
    MPI_Aint k = 0;
    int bs;

    MPI_Type_size(b, &bs);
    memset(s, 0, sizeof(*s));
    s->kind = kind;
    s->basic = basic;
    s->bs = bs;
    s->n = n;
    s->count = 1;
    s->eo = xmalloc(sizeof(MPI_Aint) * (size_t)n);
    switch (kind) {
    case L_CONTIG:
        s->dt = b;
        s->count = (int)n;
        for (k = 0; k < n; k++)
            s->eo[k] = k * bs;
        break;
    case L_VEC1:
    case L_VEC2:
    case L_VEC3: {
        static const int bl_of[] = {1, 2, 3}, stride_of[] = {1 + 2, 2 + 3, 3 + 1};
        int bl = bl_of[kind - L_VEC1], stride = stride_of[kind - L_VEC1];
        CHECK(n % bl == 0);
        CHECK(MPI_Type_vector((int)(n / bl), bl, stride, b, &s->dt) == MPI_SUCCESS);
        for (MPI_Aint i = 0; i < n / bl; i++)
            for (int j = 0; j < bl; j++)
                s->eo[k++] = (i * stride + j) * bs;
        break;
    }
    case L_IDX_A:
    case L_IDX_B: {
        static const int lens_a[] = {1, 4, 2, 7, 3}, gaps_a[] = {0, 2, 1, 5};
        static const int lens_b[] = {5, 1, 1, 3, 6, 2}, gaps_b[] = {3, 0, 1, 2};
        const int *lens = kind == L_IDX_A ? lens_a : lens_b,
                  *gaps = kind == L_IDX_A ? gaps_a : gaps_b;
        int nl = kind == L_IDX_A ? 5 : 6, ng = 4, nb = 0;
        int *bl = xmalloc(sizeof(int) * (size_t)n), *disp = xmalloc(sizeof(int) * (size_t)n);
        MPI_Aint end = 0;
        for (MPI_Aint got = 0; got < n; nb++) {
            bl[nb] = lens[nb % nl] < n - got ? lens[nb % nl] : (int)(n - got);
            disp[nb] = (int)end + gaps[nb % ng];
            for (int j = 0; j < bl[nb]; j++)
                s->eo[k++] = (MPI_Aint)(disp[nb] + j) * bs;
            end = disp[nb] + bl[nb];
            got += bl[nb];
        }
        CHECK(MPI_Type_indexed(nb, bl, disp, b, &s->dt) == MPI_SUCCESS);
        free(bl);
        free(disp);
        break;
    }
    case L_HVEC_STRUCT: {
        int one[3] = {1, 1, 1};
        MPI_Aint sd[3] = {0, bs, 3 * (MPI_Aint)bs}, ext, lb;
        MPI_Datatype types[3] = {b, b, b};
        CHECK(n % 6 == 0);
        CHECK(MPI_Type_create_struct(3, one, sd, types, &t) == MPI_SUCCESS);
        MPI_Type_get_extent(t, &lb, &ext);
        if (lb != 0 || ext != 4 * bs)
            FAIL("struct of 3 %s at 0, 1, 3: lb %ld extent %ld, expected 0 and %d",
                 basic_name[basic], (long)lb, (long)ext, 4 * bs);
        CHECK(MPI_Type_create_hvector((int)(n / 6), 2, 11 * (MPI_Aint)bs, t, &s->dt) ==
              MPI_SUCCESS);
        MPI_Type_free(&t); /* the hvector keeps what it needs of it */
        for (MPI_Aint i = 0; i < n / 6; i++)
            for (int j = 0; j < 2; j++)
                for (int m = 0; m < 3; m++)
                    s->eo[k++] = i * 11 * bs + j * 4 * bs + sd[m];
        break;
    }
    case L_RESIZED:
        CHECK(n % 3 == 0);
        CHECK(MPI_Type_contiguous(3, b, &t) == MPI_SUCCESS);
        CHECK(MPI_Type_create_resized(t, 0, 5 * (MPI_Aint)bs, &s->dt) == MPI_SUCCESS);
        MPI_Type_free(&t);
        s->count = (int)(n / 3);
        for (MPI_Aint i = 0; i < n / 3; i++)
            for (int j = 0; j < 3; j++)
                s->eo[k++] = (i * 5 + j) * bs;
        break;
    case L_SUBARRAY: {
        int r = 1, c;
        for (int d = 1; (MPI_Aint)d * d <= n; d++)
            if (n % d == 0)
                r = d;
        c = (int)(n / r);
        int sizes[3] = {3, r + 2, c + 3}, sub[3] = {1, r, c}, start[3] = {1, 1, 2};
        CHECK(MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, b, &s->dt) ==
              MPI_SUCCESS);
        for (int i = 0; i < r; i++)
            for (int j = 0; j < c; j++)
                s->eo[k++] = (((MPI_Aint)1 * (r + 2) + 1 + i) * (c + 3) + 2 + j) * bs;
        break;
    }
    case L_NEGLB: {
        int disp[3] = {-5, 0, 4};
        CHECK(n % 6 == 0);
        CHECK(MPI_Type_create_indexed_block(3, 2, disp, b, &s->dt) == MPI_SUCCESS);
        s->count = (int)(n / 6);
        for (MPI_Aint i = 0; i < n / 6; i++)
            for (int d = 0; d < 3; d++)
                for (int j = 0; j < 2; j++)
                    s->eo[k++] = (i * 11 + disp[d] + j) * bs; /* extent 4 + 2 - (-5) */
        break;
    }
    case L_CONTIG_VEC:
        CHECK(n % 4 == 0);
        CHECK(MPI_Type_vector(2, 2, 3, b, &t) == MPI_SUCCESS);
        CHECK(MPI_Type_contiguous((int)(n / 4), t, &s->dt) == MPI_SUCCESS);
        MPI_Type_free(&t);
        for (MPI_Aint i = 0; i < n / 4; i++)
            for (int m = 0; m < 2; m++)
                for (int j = 0; j < 2; j++)
                    s->eo[k++] = (i * 5 + m * 3 + j) * bs;
        break;
    default:
        FAIL("no layout %d", kind);
    }
    CHECK(k == n);
    if (s->dt != b)
        commit(&s->dt);
    s->lo = s->eo[0];
    s->hi = s->eo[0] + bs;
    for (k = 0; k < n; k++) {
        if (s->eo[k] < s->lo)
            s->lo = s->eo[k];
        if (s->eo[k] + bs > s->hi)
            s->hi = s->eo[k] + bs;
    }
    s->at = (GUARD + (s->lo < 0 ? -s->lo : 0) + 15) / 16 * 16;
    s->len = s->at + s->hi + GUARD;
}

/* Right after the call that uses it, before the synchronization that completes the call. */
static void side_type_free(side_t *s)
{
    if (s->dt != basic_type(s->basic))
        CHECK(MPI_Type_free(&s->dt) == MPI_SUCCESS);
    s->dt = MPI_DATATYPE_NULL;
}

static void side_free(side_t *s)
{
    if (s->dt != MPI_DATATYPE_NULL)
        side_type_free(s);
    free(s->eo);
}

/* What a byte that no operation may touch holds: byte pos of background seed. */
static unsigned char bg_byte(unsigned seed, MPI_Aint pos)
{
    return pattern(seed + 5000u, (size_t)pos);
}

/* Byte j of element k of the data of seed (the stream: what moves, in type map order). */
static unsigned char data_byte(unsigned seed, const side_t *s, MPI_Aint k, int j)
{
    return pattern(seed, (size_t)(k * s->bs + j));
}

static void bg_fill(unsigned char *buf, MPI_Aint len, unsigned bgseed)
{
    for (MPI_Aint i = 0; i < len; i++)
        buf[i] = bg_byte(bgseed, i);
}

/* buf laid out for s: the background, and the data of seed at s's elements. */
static void data_fill(unsigned char *buf, MPI_Aint len, const side_t *s, unsigned seed,
                      unsigned bgseed)
{
    bg_fill(buf, len, bgseed);
    for (MPI_Aint k = 0; k < s->n; k++)
        for (int j = 0; j < s->bs; j++)
            buf[s->at + s->eo[k] + j] = data_byte(seed, s, k, j);
}

/* Every byte of buf[0..len) outside s's elements still holds the background: put it back
 * where the elements are (they were checked already), then compare everything. */
static void expect_bg(unsigned char *buf, MPI_Aint len, const side_t *s, unsigned bgseed,
                      const char *what)
{
    for (MPI_Aint k = 0; s != NULL && k < s->n; k++)
        for (int j = 0; j < s->bs; j++)
            buf[s->at + s->eo[k] + j] = bg_byte(bgseed, s->at + s->eo[k] + j);
    for (MPI_Aint i = 0; i < len; i++) {
        if (buf[i] != bg_byte(bgseed, i)) {
            MPI_Aint rel = s != NULL ? i - s->at : 0;
            FAIL("%s: byte %ld of the %s layout (%s) is 0x%02x, expected untouched 0x%02x", what,
                 (long)rel, s != NULL ? lay_name[s->kind] : "?",
                 s == NULL      ? "no data goes there"
                 : rel < s->lo  ? "before the first element"
                 : rel >= s->hi ? "after the last element"
                                : "between the blocks",
                 buf[i], bg_byte(bgseed, i));
        }
    }
}

/* buf holds the data of seed at s's elements and the background of bgseed elsewhere. */
static void expect_data(unsigned char *buf, MPI_Aint len, const side_t *s, unsigned seed,
                        unsigned bgseed, const char *what)
{
    for (MPI_Aint k = 0; k < s->n; k++)
        for (int j = 0; j < s->bs; j++) {
            unsigned char got = buf[s->at + s->eo[k] + j], want = data_byte(seed, s, k, j);
            if (got != want)
                FAIL("%s: element %ld of %ld (byte %d of it, at byte %ld of the %s layout) is "
                     "0x%02x, expected 0x%02x%s",
                     what, (long)k, (long)s->n, j, (long)s->eo[k], lay_name[s->kind], got, want,
                     got == bg_byte(bgseed, s->at + s->eo[k] + j) ? ": never written" : "");
        }
    expect_bg(buf, len, s, bgseed, what);
}

static unsigned seed_of(int origin, int c, MPI_Aint n, int mode, int flavor)
{
    return (unsigned)(origin * 1009 + c * 131 + (int)(n % 997) * 31 + mode * 7 + flavor);
}

static const int flavors[] = {RMA_CREATE, RMA_ALLOCATE, RMA_DYNAMIC, RMA_SHARED};
#define NFLAVORS 4
static const int modes[] = {SYNC_FENCE, SYNC_PSCW, SYNC_LOCK_EXCL, SYNC_FLUSH};
#define NMODES 4

/* Each process puts (or gets) n elements of basic type b from the okind layout of its memory
 * into (from) the tkind layout at its right neighbour, in mode; each checks what its left
 * neighbour put into it (or that a get changed nothing) and what it got. */
static void xfer_round(rma_win_t *w, int mode, int is_get, int c, int okind, int tkind, int b,
                       MPI_Aint n)
{
    int right = (w->me + 1) % w->n, left = (w->me - 1 + w->n) % w->n;
    unsigned me = seed_of(w->me, c, n, mode, w->flavor);
    side_t o, t;
    unsigned char *ob;
    char what[200];
    int rc;

    side_make(&o, okind, b, n);
    side_make(&t, tkind, b, n);
    CHECK(t.len <= w->size);
    snprintf(what, sizeof(what), "%s %s %s of %ld %s, %s at the origin, %s at the target",
             rma_flavor_name[w->flavor], rma_sync_name[mode], is_get ? "MPI_Get" : "MPI_Put",
             (long)n, basic_name[b], lay_name[okind], lay_name[tkind]);
    rma_local_begin(w);
    if (is_get)
        data_fill(w->base, t.len, &t, me, me);
    else
        bg_fill(w->base, t.len, me);
    rma_local_end(w);
    MPI_Barrier(w->comm);
    ob = xmalloc((size_t)o.len);
    if (is_get)
        bg_fill(ob, o.len, me + 1);
    else
        data_fill(ob, o.len, &o, me, me + 1);
    rma_epoch_open(w, mode, right, is_get);
    if (is_get)
        rc = MPI_Get(ob + o.at, o.count, o.dt, right, rma_disp(w, right, t.at), t.count, t.dt,
                     w->win);
    else
        rc = MPI_Put(ob + o.at, o.count, o.dt, right, rma_disp(w, right, t.at), t.count, t.dt,
                     w->win);
    if (rc != MPI_SUCCESS)
        FAIL("%s: returned %d", what, rc);
    side_type_free(&o);
    side_type_free(&t);
    rma_epoch_flush(w, mode, right);
    rma_epoch_close(w, mode, right);
    if (is_get)
        expect_data(ob, o.len, &o, seed_of(right, c, n, mode, w->flavor), me + 1, what);
    rma_target_begin(w, mode);
    if (is_get)
        expect_data(w->base, t.len, &t, me, me, what); /* a get changes nothing there */
    else
        expect_data(w->base, t.len, &t, seed_of(left, c, n, mode, w->flavor), me, what);
    rma_target_end(w, mode);
    free(ob);
    side_free(&o);
    side_free(&t);
}

/* Pairs of layouts for put and get, with the element counts each suits (odd where it can). */
static const MPI_Aint sizes_any[] = {1, 7, 4093, 65537, 262147}; /* 262147 ints: 1 MiB + 12 */
static const MPI_Aint sizes_6[] = {6, 4098, 131070};
static const MPI_Aint sizes_3[] = {3, 4095, 262143};
static const MPI_Aint sizes_12[] = {12, 4092, 131064};
static const struct {
    int okind, tkind, basic;
    const MPI_Aint *sizes;
    int nsizes;
} pairs[] = {
    {L_VEC1, L_CONTIG, B_INT, sizes_any, 5},       {L_CONTIG, L_VEC1, B_INT, sizes_any, 5},
    {L_IDX_A, L_IDX_B, B_INT, sizes_any, 5},       {L_HVEC_STRUCT, L_CONTIG, B_DOUBLE, sizes_6, 3},
    {L_VEC2, L_HVEC_STRUCT, B_DOUBLE, sizes_6, 3}, {L_RESIZED, L_IDX_B, B_INT, sizes_3, 3},
    {L_IDX_A, L_RESIZED, B_INT, sizes_3, 3},       {L_SUBARRAY, L_CONTIG, B_INT, sizes_any, 5},
    {L_VEC1, L_SUBARRAY, B_INT, sizes_any, 5},     {L_NEGLB, L_VEC1, B_INT, sizes_6, 3},
    {L_CONTIG, L_NEGLB, B_LL, sizes_6, 3},         {L_CONTIG_VEC, L_RESIZED, B_LL, sizes_12, 3},
};
#define NPAIRS (int)(sizeof(pairs) / sizeof(pairs[0]))

/* Room for the largest layout of the pairs (a 1 x 262147 subarray spans 4 MiB) and for the
 * 4 MiB vector of 3-int blocks (5.3 MiB), rounded. */
#define WSIZE ((MPI_Aint)6 << 20)

static void xfer_all(int is_get)
{
    for (int f = 0; f < NFLAVORS; f++) {
        rma_win_t w;
        if (!rma_win_make(&w, flavors[f], WSIZE, 1, MPI_COMM_WORLD))
            continue;
        for (int m = 0; m < NMODES; m++)
            for (int p = 0; p < NPAIRS; p++)
                for (int s = 0; s < pairs[p].nsizes; s++) {
                    /* Small sizes everywhere; the middle ones under two modes per flavor,
                     * the largest under one flavor and mode, different for each pair. */
                    MPI_Aint n = pairs[p].sizes[s];
                    if (quick && (n > 4098 || (n > 7 && (m + f + p) % NMODES != 0)))
                        continue;
                    if (n > 65538 && (f != p % 3 || m != (p / 3 + p) % NMODES))
                        continue;
                    if (n > 7 && n <= 65538 && (m + f + p) % 2 != 0)
                        continue;
                    xfer_round(&w, modes[m], is_get, p, pairs[p].okind, pairs[p].tkind,
                               pairs[p].basic, n);
                }
        rma_win_free(&w);
    }
}

static void test_put(void)
{
    xfer_all(0);
}

static void test_get(void)
{
    xfer_all(1);
}

/* 4 MiB - 4 B in a vector of 3-int blocks (stride 4) against contiguous data, both ways and
 * both directions, beyond every eager limit, under fence and lock_all + flush. */
static void test_big(void)
{
    const MPI_Aint n = 3 * 349525;
    int fl[] = {RMA_CREATE, RMA_DYNAMIC}, md[] = {SYNC_FENCE, SYNC_FLUSH};
    for (int f = 0; f < 2; f++) {
        rma_win_t w;
        CHECK(rma_win_make(&w, fl[f], WSIZE, 1, MPI_COMM_WORLD));
        for (int g = 0; g < 2; g++) {
            if (!quick || (f == 0 && g == 0))
                xfer_round(&w, md[f], g, 100, L_VEC3, L_CONTIG, B_INT, n);
            if (!quick || (f == 1 && g == 1))
                xfer_round(&w, md[1 - f], g, 101, L_CONTIG, L_VEC3, B_INT, n);
        }
        rma_win_free(&w);
    }
}

/* 100 MPI_Rput in one passive epoch, each with its own pair of layouts into its own slot of the
 * right neighbour, all outstanding, then MPI_Waitall; then 100 MPI_Rget of it back into other
 * layouts, waited one by one with MPI_Wait in reverse order, each checked as soon as waited
 * (MPI-4.1 12.3.5: a completed MPI_Rget has its data at the origin). MPICH 4.0.2 completes the
 * last MPI_Rget (into a vector) before its data arrived, at 2 ranks and more. */
#define NREQ 100
#define SLOT 1024
static void req_round(rma_win_t *w, int mode)
{
    static const int ok[] = {L_IDX_A, L_RESIZED, L_VEC2, L_NEGLB, L_CONTIG, L_SUBARRAY};
    static const int tk[] = {L_VEC1, L_CONTIG, L_IDX_B, L_SUBARRAY, L_HVEC_STRUCT, L_RESIZED};
    int right = (w->me + 1) % w->n;
    side_t *o = xmalloc(sizeof(side_t) * NREQ), *t = xmalloc(sizeof(side_t) * NREQ);
    unsigned char **ob = xmalloc(sizeof(unsigned char *) * NREQ);
    MPI_Request *req = xmalloc(sizeof(MPI_Request) * NREQ);
    unsigned me = seed_of(w->me, 200, 0, mode, w->flavor);
    unsigned rseed = seed_of(right, 200, 0, mode, w->flavor);
    char what[200];

    for (int k = 0; k < NREQ; k++) {
        MPI_Aint n = 12 * (1 + k % 5);
        side_make(&o[k], ok[k % 6], B_INT, n);
        side_make(&t[k], tk[(k / 6 + k) % 6], B_INT, n);
        CHECK(t[k].len <= SLOT);
    }
    rma_local_begin(w);
    for (int k = 0; k < NREQ; k++)
        bg_fill(w->base + k * SLOT, SLOT, me + (unsigned)k);
    rma_local_end(w);
    MPI_Barrier(w->comm);
    rma_epoch_open(w, mode, right, 0);
    for (int k = 0; k < NREQ; k++) {
        ob[k] = xmalloc((size_t)o[k].len);
        data_fill(ob[k], o[k].len, &o[k], rseed + (unsigned)k, 7);
        CHECK(MPI_Rput(ob[k] + o[k].at, o[k].count, o[k].dt, right,
                       rma_disp(w, right, k * SLOT + t[k].at), t[k].count, t[k].dt, w->win,
                       &req[k]) == MPI_SUCCESS);
        side_type_free(&o[k]);
        side_type_free(&t[k]);
    }
    CHECK(MPI_Waitall(NREQ, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (int k = 0; k < NREQ; k++) {
        CHECK(req[k] == MPI_REQUEST_NULL);
        memset(ob[k], 0xee, (size_t)o[k].len); /* complete locally: reusable */
    }
    rma_epoch_close(w, mode, right);
    rma_target_begin(w, mode);
    for (int k = 0; k < NREQ; k++) {
        snprintf(what, sizeof(what), "%s %s MPI_Rput %d of %d, %ld ints, %s to %s",
                 rma_flavor_name[w->flavor], rma_sync_name[mode], k, NREQ, (long)t[k].n,
                 lay_name[o[k].kind], lay_name[t[k].kind]);
        /* The left neighbour sent data of our seed; it stays there for the gets. */
        expect_data(w->base + k * SLOT, SLOT, &t[k], me + (unsigned)k, me + (unsigned)k, what);
        data_fill(w->base + k * SLOT, SLOT, &t[k], me + (unsigned)k, me + (unsigned)k);
    }
    rma_target_end(w, mode);

    /* Back: the right neighbour holds the data of its own seed in the t[k] layouts. */
    for (int k = 0; k < NREQ; k++) {
        side_free(&o[k]);
        side_make(&o[k], tk[(k + 3) % 6], B_INT, t[k].n);
        free(ob[k]);
        ob[k] = xmalloc((size_t)o[k].len);
        bg_fill(ob[k], o[k].len, 9);
        side_free(&t[k]);
        side_make(&t[k], tk[(k / 6 + k) % 6], B_INT, o[k].n);
    }
    rma_epoch_open(w, mode, right, 1);
    for (int k = 0; k < NREQ; k++) {
        CHECK(MPI_Rget(ob[k] + o[k].at, o[k].count, o[k].dt, right,
                       rma_disp(w, right, k * SLOT + t[k].at), t[k].count, t[k].dt, w->win,
                       &req[k]) == MPI_SUCCESS);
        side_type_free(&o[k]);
        side_type_free(&t[k]);
    }
    for (int k = NREQ - 1; k >= 0; k--) {
        CHECK(MPI_Wait(&req[k], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(req[k] == MPI_REQUEST_NULL);
        snprintf(what, sizeof(what), "%s %s MPI_Rget %d of %d, %ld ints, %s from %s",
                 rma_flavor_name[w->flavor], rma_sync_name[mode], k, NREQ, (long)o[k].n,
                 lay_name[o[k].kind], lay_name[t[k].kind]);
        /* The right neighbour's slot k holds data of its seed + k. */
        expect_data(ob[k], o[k].len, &o[k], rseed + (unsigned)k, 9, what);
    }
    rma_epoch_close(w, mode, right);
    MPI_Barrier(w->comm);
    for (int k = 0; k < NREQ; k++) {
        side_free(&o[k]);
        side_free(&t[k]);
        free(ob[k]);
    }
    free(o);
    free(t);
    free(ob);
    free(req);
}

static void test_rput_rget(void)
{
    for (int f = 0; f < NFLAVORS; f++) {
        rma_win_t w;
        if (!rma_win_make(&w, flavors[f], NREQ * SLOT, 1, MPI_COMM_WORLD))
            continue;
        if (!quick || f % 2 == 0)
            req_round(&w, SYNC_LOCK_EXCL);
        if (!quick || f % 2 == 1)
            req_round(&w, SYNC_FLUSH);
        rma_win_free(&w);
    }
}

/* Accumulates: values are small integers (exact in double), the long longs with high bits
 * set so that every byte counts. */
static void val_store(int b, unsigned char *p, int64_t v)
{
    if (b == B_INT) {
        int x = (int)v;
        memcpy(p, &x, sizeof(x));
    } else if (b == B_DOUBLE) {
        double x = (double)v;
        memcpy(p, &x, sizeof(x));
    } else {
        long long x = (long long)v;
        memcpy(p, &x, sizeof(x));
    }
}

static int64_t val_load(int b, const unsigned char *p)
{
    if (b == B_INT) {
        int x;
        memcpy(&x, p, sizeof(x));
        return x;
    } else if (b == B_DOUBLE) {
        double x;
        memcpy(&x, p, sizeof(x));
        return (int64_t)x;
    }
    long long x;
    memcpy(&x, p, sizeof(x));
    return x;
}

/* Element k of rank r: its initial value as a target (tgt) or its contribution as an origin. */
static int64_t val_of(int b, int tgt, int r, MPI_Aint k)
{
    int64_t v = tgt ? ((r * 7 + k * 13) % 101) - 50 : ((r * 11 + k * 5 + 3) % 97) - 40;
    if (b == B_LL)
        v += (int64_t)(k % 1000 + r + 1) << (tgt ? 36 : 40);
    else if (b == B_INT)
        v *= 0x10001; /* bits in the upper half too, for BXOR */
    return v;
}

static int64_t apply(MPI_Op op, int64_t a, int64_t b)
{
    if (op == MPI_SUM)
        return a + b;
    if (op == MPI_MAX)
        return a > b ? a : b;
    if (op == MPI_BXOR)
        return a ^ b;
    if (op == MPI_REPLACE)
        return b;
    return a; /* MPI_NO_OP */
}

static const struct {
    const char *name;
    int basic;
    MPI_Op op;
    int okind, tkind, rkind; /* origin, target, result */
} accs[] = {
    {"vector of double, SUM", B_DOUBLE, MPI_SUM, L_VEC2, L_IDX_A, L_RESIZED},
    {"indexed int, MAX", B_INT, MPI_MAX, L_IDX_A, L_IDX_B, L_SUBARRAY},
    {"contiguous of vector of long long, REPLACE", B_LL, MPI_REPLACE, L_CONTIG_VEC, L_VEC3,
     L_HVEC_STRUCT},
    {"resized int, BXOR", B_INT, MPI_BXOR, L_RESIZED, L_NEGLB, L_VEC1},
};
#define NACCS (int)(sizeof(accs) / sizeof(accs[0]))

enum { C_ACC, C_GET_ACC, C_RACC, C_RGET_ACC, C_NO_OP, C_RNO_OP };
static const char *const call_name[] = {"MPI_Accumulate",     "MPI_Get_accumulate",
                                        "MPI_Raccumulate",    "MPI_Rget_accumulate",
                                        "MPI_Get_accumulate", "MPI_Rget_accumulate"};

/* Values at s's elements of buf are target trank's initial ones, combined by op with origin
 * orank's when applied; the rest is the background. */
static void expect_vals(unsigned char *buf, MPI_Aint len, const side_t *s, int trank, int orank,
                        int applied, MPI_Op op, unsigned bgseed, const char *what)
{
    for (MPI_Aint k = 0; k < s->n; k++) {
        int64_t got = val_load(s->basic, buf + s->at + s->eo[k]);
        int64_t want = val_of(s->basic, 1, trank, k);
        if (applied)
            want = apply(op, want, val_of(s->basic, 0, orank, k));
        if (s->basic == B_INT)
            want = (int)want;
        if (got != want)
            FAIL("%s: element %ld of %ld (at byte %ld of the %s layout) is %" PRId64
                 ", expected %" PRId64,
                 what, (long)k, (long)s->n, (long)s->eo[k], lay_name[s->kind], got, want);
    }
    expect_bg(buf, len, s, bgseed, what);
}

static void acc_round(rma_win_t *w, int mode, int a, int call, MPI_Aint n)
{
    int right = (w->me + 1) % w->n, left = (w->me - 1 + w->n) % w->n, b = accs[a].basic;
    int fetch = call != C_ACC && call != C_RACC, noop = call == C_NO_OP || call == C_RNO_OP;
    MPI_Op op = noop ? MPI_NO_OP : accs[a].op;
    unsigned me = seed_of(w->me, 300 + a, n, mode, w->flavor);
    side_t o, t, r;
    unsigned char *ob, *rb;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Aint disp;
    char what[240];
    int rc = MPI_SUCCESS;

    side_make(&o, accs[a].okind, b, n);
    side_make(&t, accs[a].tkind, b, n);
    side_make(&r, accs[a].rkind, b, n);
    CHECK(t.len <= w->size);
    snprintf(what, sizeof(what),
             "%s %s %s%s of %ld %s: %s at the origin, %s at the target, %s "
             "for the result",
             rma_flavor_name[w->flavor], rma_sync_name[mode], call_name[call],
             noop ? " with MPI_NO_OP" : "", (long)n, accs[a].name, lay_name[o.kind],
             lay_name[t.kind], lay_name[r.kind]);
    rma_local_begin(w);
    bg_fill(w->base, t.len, me);
    for (MPI_Aint k = 0; k < n; k++)
        val_store(b, w->base + t.at + t.eo[k], val_of(b, 1, w->me, k));
    rma_local_end(w);
    MPI_Barrier(w->comm);
    ob = xmalloc((size_t)o.len);
    rb = xmalloc((size_t)r.len);
    bg_fill(ob, o.len, me + 1);
    for (MPI_Aint k = 0; k < n; k++)
        val_store(b, ob + o.at + o.eo[k], val_of(b, 0, w->me, k));
    bg_fill(rb, r.len, me + 2);
    disp = rma_disp(w, right, t.at);
    rma_epoch_open(w, mode, right, noop);
    switch (call) {
    case C_ACC:
        rc = MPI_Accumulate(ob + o.at, o.count, o.dt, right, disp, t.count, t.dt, op, w->win);
        break;
    case C_RACC:
        rc =
            MPI_Raccumulate(ob + o.at, o.count, o.dt, right, disp, t.count, t.dt, op, w->win, &req);
        break;
    case C_GET_ACC:
        rc = MPI_Get_accumulate(ob + o.at, o.count, o.dt, rb + r.at, r.count, r.dt, right, disp,
                                t.count, t.dt, op, w->win);
        break;
    case C_RGET_ACC:
        rc = MPI_Rget_accumulate(ob + o.at, o.count, o.dt, rb + r.at, r.count, r.dt, right, disp,
                                 t.count, t.dt, op, w->win, &req);
        break;
    case C_NO_OP: /* the origin is ignored (MPI-4.1 12.3.4) */
        rc = MPI_Get_accumulate(NULL, 0, basic_type(b), rb + r.at, r.count, r.dt, right, disp,
                                t.count, t.dt, op, w->win);
        break;
    case C_RNO_OP:
        rc = MPI_Rget_accumulate(NULL, 0, basic_type(b), rb + r.at, r.count, r.dt, right, disp,
                                 t.count, t.dt, op, w->win, &req);
        break;
    }
    if (rc != MPI_SUCCESS)
        FAIL("%s: returned %d", what, rc);
    side_type_free(&o);
    side_type_free(&t);
    side_type_free(&r);
    if (req != MPI_REQUEST_NULL) {
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        if (fetch) /* a fetching request's completion means the result is here */
            expect_vals(rb, r.len, &r, right, 0, 0, op, me + 2, what);
    }
    rma_epoch_flush(w, mode, right);
    rma_epoch_close(w, mode, right);
    if (fetch && call != C_RGET_ACC && call != C_RNO_OP)
        expect_vals(rb, r.len, &r, right, 0, 0, op, me + 2, what);
    rma_target_begin(w, mode);
    expect_vals(w->base, t.len, &t, w->me, left, !noop, op, me, what);
    rma_target_end(w, mode);
    free(ob);
    free(rb);
    side_free(&o);
    side_free(&t);
    side_free(&r);
}

/* Every accumulate case through call, over the flavors and modes (request-based calls only in
 * passive epochs). */
static void acc_all(int call, int call2)
{
    for (int f = 0; f < NFLAVORS; f++) {
        rma_win_t w;
        if (!rma_win_make(&w, flavors[f], 1 << 20, 1, MPI_COMM_WORLD))
            continue;
        for (int m = 0; m < NMODES; m++) {
            if ((call == C_RACC || call == C_RGET_ACC || call == C_RNO_OP) &&
                !rma_sync_passive(modes[m]))
                continue;
            for (int a = 0; a < NACCS; a++) {
                MPI_Aint n = quick ? 60 : 600;
                acc_round(&w, modes[m], a, call, n);
                if (call2 >= 0 && (call2 != C_RNO_OP || rma_sync_passive(modes[m])))
                    acc_round(&w, modes[m], a, call2, n);
            }
        }
        rma_win_free(&w);
    }
}

static void test_acc(void)
{
    acc_all(C_ACC, -1);
}

static void test_get_acc(void)
{
    acc_all(C_GET_ACC, -1);
}

static void test_racc(void)
{
    acc_all(C_RACC, C_RGET_ACC);
}

static void test_no_op(void)
{
    acc_all(C_NO_OP, C_RNO_OP);
}

/* 30000 elements (240 KB of doubles and long longs, in layouts spanning up to 600 KB):
 * beyond the eager limits. Open MPI 4.1 osc/pt2pt crashes in its unpack
 * (opal_generic_simple_unpack, in MPI_Win_fence) at 2 ranks and more. */
static void test_acc_big(void)
{
    int fl[] = {RMA_ALLOCATE, RMA_CREATE}, md[] = {SYNC_FENCE, SYNC_LOCK_EXCL};
    for (int f = 0; f < 2; f++) {
        rma_win_t w;
        CHECK(rma_win_make(&w, fl[f], WSIZE, 1, MPI_COMM_WORLD));
        for (int a = 0; a < NACCS; a++) {
            if (!quick || (f == 0 && a == 0))
                acc_round(&w, md[f], a, C_ACC, 30000);
            if (!quick || (f == 1 && a == 1))
                acc_round(&w, md[1 - f], a, C_GET_ACC, 30000);
        }
        rma_win_free(&w);
    }
}

/* Errors, under MPI_ERRORS_RETURN on the window: the class, and nothing written anywhere. */
#define EBYTES 4096

static void err_make(rma_win_t *w, int flavor)
{
    CHECK(rma_win_make(w, flavor, EBYTES, 1, MPI_COMM_WORLD));
    CHECK(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    rma_local_begin(w);
    memset(w->base, 0x11, EBYTES);
    rma_local_end(w);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void expect_untouched(rma_win_t *w, const unsigned char *buf, size_t len, int v,
                             const char *what)
{
    for (size_t i = 0; i < len; i++)
        if (buf[i] != v)
            FAIL("after %s: byte %zu of the origin's buffer is 0x%02x, expected untouched 0x%02x",
                 what, i, buf[i], v);
    MPI_Barrier(MPI_COMM_WORLD);
    rma_local_begin(w);
    for (int i = 0; i < EBYTES; i++)
        if (w->base[i] != 0x11)
            FAIL("after %s: byte %d of the window is 0x%02x, expected untouched 0x11", what, i,
                 w->base[i]);
    rma_local_end(w);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void expect_fail(int rc, int cls, int cls2, const char *what)
{
    int got;
    if (rc == MPI_SUCCESS)
        FAIL("%s succeeded, expected error class %d", what, cls);
    MPI_Error_class(rc, &got);
    if (got != cls && got != cls2)
        FAIL("%s: error class %d, expected %d%s", what, got, cls,
             cls2 != cls ? " (or the other class the standard allows)" : "");
}

/* MPI-4.1 12.3.4: every datatype of an accumulate must be made of one predefined type, the
 * same on all sides, and the op must be defined on it (MPI_REPLACE included: "like the other
 * predefined operations"). The standard names no class for it; MPI_ERR_TYPE (a datatype
 * argument the call cannot take) and MPI_ERR_OP (an op not defined on the data) both fit,
 * and either is accepted. Open MPI 4.1 returns MPI_ERR_ARG for mixed types and does not check
 * MPI_REPLACE; MPICH 4.0.2 aborts in an assertion of its pack engine (typerep_yaksa_pack.c:
 * "MPIR_DATATYPE_IS_PREDEFINED(source_dtp)"): both fail this subtest. */
static void test_err_type(void)
{
    int right = (rank + 1) % size;
    int flv[] = {RMA_CREATE, RMA_ALLOCATE, RMA_SHARED};
    for (int f = 0; f < 3; f++) {
        rma_win_t w;
        MPI_Datatype st, ints, st2;
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {0, 8};
        MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
        unsigned char src[64], res[64];
        MPI_Op op[2] = {MPI_SUM, MPI_REPLACE};
        char what[160];

        if (f == 2) {
            /* rma_win_make tells whether shared is possible here */
            MPI_Comm node;
            int nn;
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
            MPI_Comm_size(node, &nn);
            MPI_Comm_free(&node);
            if (nn != size)
                continue;
        }
        err_make(&w, flv[f]);
        memset(src, 0x22, sizeof(src));
        memset(res, 0x33, sizeof(res));
        for (int i = 0; i < 2; i++) {
            MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win);
            CHECK(MPI_Type_create_struct(2, bl, disp, types, &st) == MPI_SUCCESS);
            commit(&st);
            snprintf(what, sizeof(what), "%s: MPI_Accumulate (%s) of a struct of int and double",
                     rma_flavor_name[w.flavor], i ? "MPI_REPLACE" : "MPI_SUM");
            expect_fail(MPI_Accumulate(src, 2, st, right, 0, 2, st, op[i], w.win), MPI_ERR_TYPE,
                        MPI_ERR_OP, what);
            /* And a type made of it, on all three sides of a get_accumulate. */
            snprintf(what, sizeof(what),
                     "%s: MPI_Get_accumulate (%s) of 2 structs of int and "
                     "double",
                     rma_flavor_name[w.flavor], i ? "MPI_REPLACE" : "MPI_SUM");
            CHECK(MPI_Type_contiguous(2, st, &st2) == MPI_SUCCESS);
            commit(&st2);
            MPI_Type_free(&st);
            expect_fail(
                MPI_Get_accumulate(src, 1, st2, res, 1, st2, right, 0, 1, st2, op[i], w.win),
                MPI_ERR_TYPE, MPI_ERR_OP, what);
            MPI_Type_free(&st2);
            /* Each side of one type, but not the same one: ints into doubles. */
            CHECK(MPI_Type_contiguous(2, MPI_INT, &ints) == MPI_SUCCESS);
            commit(&ints);
            snprintf(what, sizeof(what), "%s: MPI_Accumulate (%s) of int pairs into doubles",
                     rma_flavor_name[w.flavor], i ? "MPI_REPLACE" : "MPI_SUM");
            expect_fail(MPI_Accumulate(src, 4, ints, right, 0, 4, MPI_DOUBLE, op[i], w.win),
                        MPI_ERR_TYPE, MPI_ERR_OP, what);
            MPI_Type_free(&ints);
            MPI_Win_unlock(right, w.win);
            expect_untouched(&w, res, sizeof(res), 0x33, what);
        }
        rma_win_free(&w);
    }
}

/* Target datatypes whose data reaches out of the window (4096 bytes): a vector whose last
 * block lies past the end while the first ones are inside; two resized elements, the second
 * crossing the end; a negative lower bound reaching before the start. MPI_ERR_RMA_RANGE, and
 * not even the elements inside the window written, nor the get's buffer (MPI-4.1 12.3: the
 * target buffer must fit in the window). Open MPI 4.1 (osc sm and pt2pt) lets such a put
 * through and fails this subtest. */
static void test_err_range(void)
{
    int right = (rank + 1) % size;
    int flv[] = {RMA_CREATE, RMA_ALLOCATE, RMA_SHARED};
    for (int f = 0; f < 3; f++) {
        rma_win_t w;
        int src[8], dst[8], res[8];
        char what[200];
        if (f == 2) {
            MPI_Comm node;
            int nn;
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
            MPI_Comm_size(node, &nn);
            MPI_Comm_free(&node);
            if (nn != size)
                continue;
        }
        err_make(&w, flv[f]);
        for (int i = 0; i < 8; i++)
            src[i] = 0x22222222;
        memset(dst, 0x33, sizeof(dst));
        memset(res, 0x33, sizeof(res));
        for (int c = 0; c < 3; c++) {
            for (int sync = 0; sync < 2; sync++) {
                MPI_Datatype t, t0;
                int tcount = 1, nelem = 4, idisp[3] = {-5, 0, 4};
                MPI_Aint disp = 0;
                MPI_Request req;
                const char *desc;
                if (c == 0) {
                    CHECK(MPI_Type_vector(4, 1, 1000, MPI_INT, &t) == MPI_SUCCESS);
                    desc = "a vector of 4 ints at stride 4000 B";
                } else if (c == 1) {
                    CHECK(MPI_Type_contiguous(4, MPI_INT, &t0) == MPI_SUCCESS);
                    CHECK(MPI_Type_create_resized(t0, 0, 4088, &t) == MPI_SUCCESS);
                    MPI_Type_free(&t0);
                    tcount = 2;
                    nelem = 8;
                    desc = "2 of 4 ints resized to 4088 B";
                } else {
                    CHECK(MPI_Type_create_indexed_block(3, 2, idisp, MPI_INT, &t) == MPI_SUCCESS);
                    disp = 8;
                    nelem = 6;
                    desc = "blocks at -5, 0, 4 ints from byte 8";
                }
                commit(&t);
                snprintf(what, sizeof(what), "%s %s: operations with %s as the target datatype",
                         rma_flavor_name[w.flavor], sync ? "fence" : "lock", desc);
                if (sync)
                    MPI_Win_fence(0, w.win);
                else
                    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win);
                expect_fail(MPI_Put(src, nelem, MPI_INT, right, disp, tcount, t, w.win),
                            MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, what);
                expect_fail(MPI_Get(dst, nelem, MPI_INT, right, disp, tcount, t, w.win),
                            MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, what);
                expect_fail(
                    MPI_Accumulate(src, nelem, MPI_INT, right, disp, tcount, t, MPI_SUM, w.win),
                    MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, what);
                expect_fail(MPI_Get_accumulate(src, nelem, MPI_INT, res, nelem, MPI_INT, right,
                                               disp, tcount, t, MPI_SUM, w.win),
                            MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, what);
                if (!sync)
                    expect_fail(MPI_Rput(src, nelem, MPI_INT, right, disp, tcount, t, w.win, &req),
                                MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, what);
                MPI_Type_free(&t);
                if (sync)
                    MPI_Win_fence(0, w.win);
                else
                    MPI_Win_unlock(right, w.win);
                expect_untouched(&w, (unsigned char *)dst, sizeof(dst), 0x33, what);
                expect_untouched(&w, (unsigned char *)res, sizeof(res), 0x33, what);
            }
        }
        rma_win_free(&w);
    }
}

static const mpitest_t tests[] = {
    {"put", test_put},
    {"get", test_get},
    {"big", test_big},
    {"rput_rget", test_rput_rget},
    {"acc", test_acc},
    {"get_acc", test_get_acc},
    {"racc", test_racc},
    {"no_op", test_no_op},
    {"acc_big", test_acc_big},
    {"err_type", test_err_type},
    {"err_range", test_err_range},
};

int main(int argc, char **argv)
{
    const char *q = getenv("RMA_DTYPE_QUICK");
    quick = q != NULL && strcmp(q, "1") == 0;
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
