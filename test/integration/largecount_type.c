/* MPI-4 large counts of the datatype constructors (MPI_Type_contiguous_c, vector_c,
 * create_hvector_c, indexed_c, create_hindexed_c, create_indexed_block_c,
 * create_hindexed_block_c, create_struct_c, create_subarray_c, create_darray_c,
 * create_resized_c) and MPI_Type_get_envelope_c/MPI_Type_get_contents_c. "small", at 1 to 7
 * ranks: each _c type is built next to its int twin from the same arguments; the _c one's
 * envelope and contents are the arguments as large counts (MPI-4.1 Sec. 5.1.13), the int
 * MPI_Type_get_envelope/get_contents refuse it with MPI_ERR_TYPE, the twin's are integers and
 * addresses; both have the same size and extents, pack to the same bytes and unpack back; each
 * rank sends two elements of the _c type to the next rank, which receives them with the twin
 * and checks every byte; sizes and extents beyond 2^31 through the _c queries; and ranks 0 and
 * 1 exchange a struct_c type with a block 2^31 + 4096 bytes beyond the first (only the pages
 * touched are memory). "errors": a negative count refused naming the _c call, and the int
 * envelope's refusal naming MPI_Type_get_envelope_c. */
#define MPITEST_NAME "largecount_type"
#include "mpitest_stderr.h"

#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#define NTYPES 11
#define SPAN   4096 /* bytes of buffer each small type's two elements stay within */
#define BASE   512  /* where element 0 sits in the buffer (room for negative lower bounds) */

typedef struct {
    const char *name;
    int combiner;
    MPI_Datatype c, i; /* built by the _c constructor and by the int one */
    /* The _c type's envelope, and its contents as large counts and integers. */
    MPI_Count ni, na, nc, nd;
    MPI_Count counts[16];
    int ints[16];
    /* The int twin's envelope. */
    int ini, ina, ind;
} built_t;

static void build_all(built_t *b)
{
    static const MPI_Count cbl[3] = {2, 1, 3}, cdi[3] = {0, 5, 9}, cdb[3] = {0, 20, 36};
    static const int ibl[3] = {2, 1, 3}, idi[3] = {0, 5, 9};
    static const MPI_Aint adb[3] = {0, 20, 36};
    static const MPI_Count cdib[3] = {0, 4, 9}, cdbb[3] = {0, 16, 40};
    static const int idib[3] = {0, 4, 9};
    static const MPI_Aint adbb[3] = {0, 16, 40};
    MPI_Count sbl[2] = {2, 1}, sdi[2] = {0, 16}, sz[2] = {4, 6}, sub[2] = {2, 3}, st[2] = {1, 2};
    int isbl[2] = {2, 1}, isz[2] = {4, 6}, isub[2] = {2, 3}, ist[2] = {1, 2};
    MPI_Aint asdi[2] = {0, 16};
    MPI_Datatype stypes[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Count gs[2] = {8, 6};
    int igs[2] = {8, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
    int k = 0;

#define EXPECT(_name, _comb, _ni, _na, _nc, _nd, _ini, _ina, _ind)                                 \
    do {                                                                                           \
        b[k].name = _name;                                                                         \
        b[k].combiner = _comb;                                                                     \
        b[k].ni = _ni, b[k].na = _na, b[k].nc = _nc, b[k].nd = _nd;                                \
        b[k].ini = _ini, b[k].ina = _ina, b[k].ind = _ind;                                         \
    } while (0)

    EXPECT("contiguous", MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, 1, 0, 1);
    CHECK(MPI_Type_contiguous_c(5, MPI_INT, &b[k].c) == MPI_SUCCESS);
    CHECK(MPI_Type_contiguous(5, MPI_INT, &b[k].i) == MPI_SUCCESS);
    b[k].counts[0] = 5;
    k++;
    EXPECT("vector", MPI_COMBINER_VECTOR, 0, 0, 3, 1, 3, 0, 1);
    CHECK(MPI_Type_vector_c(3, 2, 4, MPI_INT, &b[k].c) == MPI_SUCCESS);
    CHECK(MPI_Type_vector(3, 2, 4, MPI_INT, &b[k].i) == MPI_SUCCESS);
    b[k].counts[0] = 3, b[k].counts[1] = 2, b[k].counts[2] = 4;
    k++;
    EXPECT("hvector", MPI_COMBINER_HVECTOR, 0, 0, 3, 1, 2, 1, 1);
    CHECK(MPI_Type_create_hvector_c(3, 2, 40, MPI_INT, &b[k].c) == MPI_SUCCESS);
    CHECK(MPI_Type_create_hvector(3, 2, 40, MPI_INT, &b[k].i) == MPI_SUCCESS);
    b[k].counts[0] = 3, b[k].counts[1] = 2, b[k].counts[2] = 40;
    k++;
    EXPECT("indexed", MPI_COMBINER_INDEXED, 0, 0, 7, 1, 7, 0, 1);
    CHECK(MPI_Type_indexed_c(3, cbl, cdi, MPI_INT, &b[k].c) == MPI_SUCCESS);
    CHECK(MPI_Type_indexed(3, ibl, idi, MPI_INT, &b[k].i) == MPI_SUCCESS);
    b[k].counts[0] = 3;
    memcpy(b[k].counts + 1, cbl, sizeof(cbl));
    memcpy(b[k].counts + 4, cdi, sizeof(cdi));
    k++;
    EXPECT("hindexed", MPI_COMBINER_HINDEXED, 0, 0, 7, 1, 4, 3, 1);
    CHECK(MPI_Type_create_hindexed_c(3, cbl, cdb, MPI_INT, &b[k].c) == MPI_SUCCESS);
    CHECK(MPI_Type_create_hindexed(3, ibl, adb, MPI_INT, &b[k].i) == MPI_SUCCESS);
    b[k].counts[0] = 3;
    memcpy(b[k].counts + 1, cbl, sizeof(cbl));
    memcpy(b[k].counts + 4, cdb, sizeof(cdb));
    k++;
    EXPECT("indexed_block", MPI_COMBINER_INDEXED_BLOCK, 0, 0, 5, 1, 5, 0, 1);
    CHECK(MPI_Type_create_indexed_block_c(3, 2, cdib, MPI_INT, &b[k].c) == MPI_SUCCESS);
    CHECK(MPI_Type_create_indexed_block(3, 2, idib, MPI_INT, &b[k].i) == MPI_SUCCESS);
    b[k].counts[0] = 3, b[k].counts[1] = 2;
    memcpy(b[k].counts + 2, cdib, sizeof(cdib));
    k++;
    EXPECT("hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, 0, 0, 5, 1, 2, 3, 1);
    CHECK(MPI_Type_create_hindexed_block_c(3, 2, cdbb, MPI_INT, &b[k].c) == MPI_SUCCESS);
    CHECK(MPI_Type_create_hindexed_block(3, 2, adbb, MPI_INT, &b[k].i) == MPI_SUCCESS);
    b[k].counts[0] = 3, b[k].counts[1] = 2;
    memcpy(b[k].counts + 2, cdbb, sizeof(cdbb));
    k++;
    EXPECT("struct", MPI_COMBINER_STRUCT, 0, 0, 5, 2, 3, 2, 2);
    CHECK(MPI_Type_create_struct_c(2, sbl, sdi, stypes, &b[k].c) == MPI_SUCCESS);
    CHECK(MPI_Type_create_struct(2, isbl, asdi, stypes, &b[k].i) == MPI_SUCCESS);
    b[k].counts[0] = 2, b[k].counts[1] = 2, b[k].counts[2] = 1, b[k].counts[3] = 0;
    b[k].counts[4] = 16;
    k++;
    EXPECT("subarray", MPI_COMBINER_SUBARRAY, 2, 0, 6, 1, 8, 0, 1);
    CHECK(MPI_Type_create_subarray_c(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &b[k].c) == MPI_SUCCESS);
    CHECK(MPI_Type_create_subarray(2, isz, isub, ist, MPI_ORDER_C, MPI_INT, &b[k].i) ==
          MPI_SUCCESS);
    b[k].ints[0] = 2, b[k].ints[1] = MPI_ORDER_C;
    b[k].counts[0] = 4, b[k].counts[1] = 6, b[k].counts[2] = 2, b[k].counts[3] = 3;
    b[k].counts[4] = 1, b[k].counts[5] = 2;
    k++;
    /* Process 1 of a 2 x 2 grid over an 8 x 6 array: block rows, cyclic(2) columns. */
    EXPECT("darray", MPI_COMBINER_DARRAY, 10, 0, 2, 1, 12, 0, 1);
    CHECK(MPI_Type_create_darray_c(4, 1, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &b[k].c) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_create_darray(4, 1, 2, igs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &b[k].i) ==
          MPI_SUCCESS);
    {
        int want[10] = {
            4, 1, 2, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG,
            2, 2, 2, MPI_ORDER_C};
        memcpy(b[k].ints, want, sizeof(want));
    }
    b[k].counts[0] = 8, b[k].counts[1] = 6;
    k++;
    EXPECT("resized", MPI_COMBINER_RESIZED, 0, 0, 2, 1, 0, 2, 1);
    CHECK(MPI_Type_create_resized_c(MPI_INT, -4, 16, &b[k].c) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(MPI_INT, -4, 16, &b[k].i) == MPI_SUCCESS);
    b[k].counts[0] = -4, b[k].counts[1] = 16;
    k++;
    CHECK(k == NTYPES);
    for (k = 0; k < NTYPES; k++) {
        CHECK(MPI_Type_commit(&b[k].c) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&b[k].i) == MPI_SUCCESS);
    }
}

/* The envelopes and contents of b (see the header comment). */
static void check_description(const built_t *b)
{
    MPI_Count ni, na, nc, nd, counts[16];
    MPI_Aint aints[16];
    MPI_Datatype types[4];
    int ints[16], comb, ini, ina, ind, rc, cls;

    CHECK(MPI_Type_get_envelope_c(b->c, &ni, &na, &nc, &nd, &comb) == MPI_SUCCESS);
    if (comb != b->combiner || ni != b->ni || na != b->na || nc != b->nc || nd != b->nd)
        FAIL("%s_c: envelope combiner %d, %lld integers, %lld addresses, %lld large counts, %lld "
             "datatypes; expected %d, %lld, %lld, %lld, %lld",
             b->name, comb, (long long)ni, (long long)na, (long long)nc, (long long)nd, b->combiner,
             (long long)b->ni, (long long)b->na, (long long)b->nc, (long long)b->nd);
    CHECK(MPI_Type_get_contents_c(b->c, 16, 16, 16, 4, ints, aints, counts, types) == MPI_SUCCESS);
    for (MPI_Count j = 0; j < nc; j++)
        if (counts[j] != b->counts[j])
            FAIL("%s_c: large count %lld is %lld, expected %lld", b->name, (long long)j,
                 (long long)counts[j], (long long)b->counts[j]);
    for (MPI_Count j = 0; j < ni; j++)
        if (ints[j] != b->ints[j])
            FAIL("%s_c: integer %lld is %d, expected %d", b->name, (long long)j, ints[j],
                 b->ints[j]);
    CHECK(nd < 1 || types[0] == MPI_INT);
    CHECK(nd < 2 || types[1] == MPI_DOUBLE);
    /* The int queries cannot describe it: MPI_ERR_TYPE. */
    rc = MPI_Type_get_envelope(b->c, &ini, &ina, &ind, &comb);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_TYPE);
    rc = MPI_Type_get_contents(b->c, 16, 16, 4, ints, aints, types);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_TYPE);
    /* The twin: integers and addresses, and the _c envelope says no large counts. */
    CHECK(MPI_Type_get_envelope(b->i, &ini, &ina, &ind, &comb) == MPI_SUCCESS);
    if (comb != b->combiner || ini != b->ini || ina != b->ina || ind != b->ind)
        FAIL("%s: envelope %d: %d, %d, %d; expected %d: %d, %d, %d", b->name, comb, ini, ina, ind,
             b->combiner, b->ini, b->ina, b->ind);
    CHECK(MPI_Type_get_envelope_c(b->i, &ni, &na, &nc, &nd, &comb) == MPI_SUCCESS);
    CHECK(ni == ini && na == ina && nc == 0 && nd == ind);
    CHECK(MPI_Type_get_contents_c(b->i, 16, 16, 0, 4, ints, aints, NULL, types) == MPI_SUCCESS);
    CHECK(MPI_Type_get_contents(b->i, 16, 16, 4, ints, aints, types) == MPI_SUCCESS);
}

/* Size, extents, pack and unpack of the _c type and its twin agree. */
static void check_layout(const built_t *b, const unsigned char *src)
{
    MPI_Count sc, lbc, exc, tlbc, texc;
    MPI_Aint lb, ex, tlb, tex;
    int si, psize, pos_c = 0, pos_i = 0;
    unsigned char pc[SPAN], pi[SPAN], uc[SPAN], ui[SPAN];

    CHECK(MPI_Type_size_c(b->c, &sc) == MPI_SUCCESS && MPI_Type_size(b->i, &si) == MPI_SUCCESS);
    CHECK(MPI_Type_get_extent_c(b->c, &lbc, &exc) == MPI_SUCCESS);
    CHECK(MPI_Type_get_extent(b->i, &lb, &ex) == MPI_SUCCESS);
    CHECK(MPI_Type_get_true_extent_c(b->c, &tlbc, &texc) == MPI_SUCCESS);
    CHECK(MPI_Type_get_true_extent(b->i, &tlb, &tex) == MPI_SUCCESS);
    if (sc != si || lbc != lb || exc != ex || tlbc != tlb || texc != tex)
        FAIL("%s: size %lld/%d, extent %lld..+%lld/%ld..+%ld, true %lld..+%lld/%ld..+%ld differ",
             b->name, (long long)sc, si, (long long)lbc, (long long)exc, (long)lb, (long)ex,
             (long long)tlbc, (long long)texc, (long)tlb, (long)tex);
    CHECK(BASE + tlb >= 0 && BASE + ex + tlb + tex <= SPAN);
    CHECK(MPI_Pack_size(2, b->c, MPI_COMM_WORLD, &psize) == MPI_SUCCESS && psize <= SPAN);
    CHECK(MPI_Pack(src + BASE, 2, b->c, pc, SPAN, &pos_c, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Pack(src + BASE, 2, b->i, pi, SPAN, &pos_i, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(pos_c == 2 * si && pos_i == pos_c);
    if (memcmp(pc, pi, (size_t)pos_c) != 0)
        FAIL("%s: the _c type packs to other bytes than its int twin", b->name);
    memset(uc, 0xEE, SPAN);
    memset(ui, 0xEE, SPAN);
    pos_c = pos_i = 0;
    CHECK(MPI_Unpack(pc, SPAN, &pos_c, uc + BASE, 2, b->c, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Unpack(pi, SPAN, &pos_i, ui + BASE, 2, b->i, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (size_t j = 0; j < SPAN; j++) {
        if (uc[j] != ui[j])
            FAIL("%s: unpacked byte %zu is 0x%02x, the twin's 0x%02x", b->name, j, uc[j], ui[j]);
        if (uc[j] != 0xEE && uc[j] != src[j])
            FAIL("%s: unpacked byte %zu is 0x%02x, the source's 0x%02x", b->name, j, uc[j], src[j]);
    }
}

/* Two elements of each _c type to the next rank, received with the int twin: what arrives is
 * what the twin unpacks from the sender's pattern, byte for byte, and nothing else changed. */
static void check_transfer(const built_t *b, int t)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, pos = 0;
    unsigned char *src = xmalloc(SPAN), *dst = xmalloc(SPAN), *want = xmalloc(SPAN),
                  *packed = xmalloc(SPAN);

    fill(src, SPAN, 1000 + t * 16 + rank);
    memset(dst, 0xEE, SPAN);
    CHECK(MPI_Sendrecv(src + BASE, 2, b->c, next, t, dst + BASE, 2, b->i, prev, t, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
    /* What prev sent, through the twin. */
    fill(src, SPAN, 1000 + t * 16 + prev);
    memset(want, 0xEE, SPAN);
    CHECK(MPI_Pack(src + BASE, 2, b->i, packed, SPAN, &pos, MPI_COMM_WORLD) == MPI_SUCCESS);
    pos = 0;
    CHECK(MPI_Unpack(packed, SPAN, &pos, want + BASE, 2, b->i, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (size_t j = 0; j < SPAN; j++)
        if (dst[j] != want[j])
            FAIL("%s_c from rank %d: byte %zu is 0x%02x, expected 0x%02x", b->name, prev, j, dst[j],
                 want[j]);
    free(src);
    free(dst);
    free(want);
    free(packed);
}

/* Sizes and extents beyond 2^31 (no memory: the queries only). */
static void check_big_queries(void)
{
    const MPI_Count big = ((MPI_Count)1 << 31) + 12;
    MPI_Datatype v, r, s;
    MPI_Count sz, lb, ex;
    int isz;

    CHECK(MPI_Type_vector_c(2, big, big + 100, MPI_BYTE, &v) == MPI_SUCCESS);
    CHECK(MPI_Type_size_c(v, &sz) == MPI_SUCCESS && sz == 2 * big);
    CHECK(MPI_Type_size(v, &isz) == MPI_SUCCESS && isz == MPI_UNDEFINED);
    CHECK(MPI_Type_get_extent_c(v, &lb, &ex) == MPI_SUCCESS && lb == 0 && ex == 2 * big + 100);
    CHECK(MPI_Type_create_resized_c(MPI_INT, -big, 3 * big, &r) == MPI_SUCCESS);
    CHECK(MPI_Type_get_extent_c(r, &lb, &ex) == MPI_SUCCESS && lb == -big && ex == 3 * big);
    CHECK(MPI_Type_contiguous_c(big, MPI_INT, &s) == MPI_SUCCESS);
    CHECK(MPI_Type_size_c(s, &sz) == MPI_SUCCESS && sz == 4 * big);
    CHECK(MPI_Type_free(&v) == MPI_SUCCESS && MPI_Type_free(&r) == MPI_SUCCESS &&
          MPI_Type_free(&s) == MPI_SUCCESS);
}

/* Ranks 0 and 1: a struct_c of 1000 bytes, then 3000 bytes 2^31 + 4096 further on. */
static void check_far_struct(void)
{
    const MPI_Count far = ((MPI_Count)1 << 31) + 4096;
    MPI_Count bl[2] = {1000, 3000}, di[2] = {0, far};
    MPI_Datatype types[2] = {MPI_BYTE, MPI_BYTE}, t;
    unsigned char *buf;

    if (size < 2 || rank > 1)
        return;
    buf = malloc((size_t)far + 3000);
    if (buf == NULL)
        FAIL("no address space for %lld bytes", (long long)far + 3000);
    CHECK(MPI_Type_create_struct_c(2, bl, di, types, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    if (rank == 0) {
        fill(buf, 1000, 77);
        fill(buf + far, 3000, 78);
        CHECK(MPI_Send(buf, 1, t, 1, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
        memset(buf, 0, 1000);
        memset(buf + far, 0, 3000);
        CHECK(MPI_Recv(buf, 1, t, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        verify(buf, 1000, 77, "struct_c, block 0");
        verify(buf + far, 3000, 78, "struct_c, block 1 at 2^31 + 4096 bytes");
    }
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    free(buf);
}

static void test_small(void)
{
    built_t b[NTYPES];
    unsigned char *src = xmalloc(SPAN);

    memset(b, 0, sizeof(b));
    build_all(b);
    fill(src, SPAN, 999);
    /* The int queries' refusals are errors: returned, not fatal. */
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    for (int k = 0; k < NTYPES; k++) {
        check_description(&b[k]);
        check_layout(&b[k], src);
        check_transfer(&b[k], k);
    }
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    check_big_queries();
    check_far_struct();
    for (int k = 0; k < NTYPES; k++)
        CHECK(MPI_Type_free(&b[k].c) == MPI_SUCCESS && MPI_Type_free(&b[k].i) == MPI_SUCCESS);
    free(src);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("largecount_type small: ok (%d ranks)\n", size);
}

/* ---- errors ---------------------------------------------------------------------------------- */

static int bad_contiguous(void)
{
    MPI_Datatype t;
    return MPI_Type_contiguous_c(-3, MPI_INT, &t);
}

static int bad_indexed(void)
{
    MPI_Count bl[2] = {1, -2}, di[2] = {0, 4};
    MPI_Datatype t;
    return MPI_Type_indexed_c(2, bl, di, MPI_INT, &t);
}

static MPI_Datatype made_c;

static int int_envelope(void)
{
    int ni, na, nd, comb;
    return MPI_Type_get_envelope(made_c, &ni, &na, &nd, &comb);
}

static void test_errors(void)
{
    static const struct {
        int (*call)(void);
        int cls;
        const char *name, *what;
    } bad[] = {
        {bad_contiguous, MPI_ERR_COUNT, "MPI_Type_contiguous_c", "count is -3"},
        {bad_indexed, MPI_ERR_ARG, "MPI_Type_indexed_c", "array_of_blocklengths[1] is -2"},
        {int_envelope, MPI_ERR_TYPE, "MPI_Type_get_envelope", "MPI_Type_get_envelope_c"},
    };
    char msg[4096];

    CHECK(MPI_Type_vector_c(2, 3, 4, MPI_INT, &made_c) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        int rc = mpitest_capture_stderr(bad[k].call, msg, sizeof(msg)), cls;
        CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS);
        if (cls != bad[k].cls)
            FAIL("%s: class %d, expected %d", bad[k].name, cls, bad[k].cls);
        if (strstr(msg, bad[k].name) == NULL || strstr(msg, bad[k].what) == NULL)
            FAIL("%s: the message does not say \"%s\": %s", bad[k].name, bad[k].what, msg);
    }
    CHECK(MPI_Type_free(&made_c) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("largecount_type errors: ok (%d ranks)\n", size);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "small";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(what, "small") == 0)
        test_small();
    else if (strcmp(what, "errors") == 0)
        test_errors();
    else
        FAIL("unknown subtest %s (small, errors)", what);
    MPI_Finalize();
    return 0;
}
