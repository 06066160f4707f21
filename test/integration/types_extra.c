/* The datatype calls programs expect besides the constructors: attributes on datatypes
 * (keyvals, copy callbacks on MPI_Type_dup, delete callbacks on MPI_Type_free), and the rest
 * added with them below. Every value is checked; run at 1 to 7 ranks (types_extra.sh). */
#define MPITEST_NAME "types_extra"
#include "mpitest.h"

#include <stdint.h>

/* ---- attributes ------------------------------------------------------------------------------ */

/* What the callbacks saw, for the checks. */
typedef struct {
    int copies, deletes;
    int last_keyval;
    intptr_t last_deleted;
    MPI_Datatype last_type;
} calls_t;

static int copy_plus_one(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out,
                         int *flag)
{
    calls_t *c = extra;
    c->copies++;
    c->last_keyval = keyval;
    c->last_type = oldtype;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_refuse(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out,
                       int *flag)
{
    (void)oldtype, (void)keyval, (void)in, (void)out;
    ((calls_t *)extra)->copies++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int copy_fail(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldtype, (void)keyval, (void)in, (void)out, (void)flag;
    ((calls_t *)extra)->copies++;
    return MPI_ERR_OTHER;
}

static int delete_count(MPI_Datatype type, int keyval, void *val, void *extra)
{
    calls_t *c = extra;
    c->deletes++;
    c->last_keyval = keyval;
    c->last_deleted = (intptr_t)val;
    c->last_type = type;
    return MPI_SUCCESS;
}

static int delete_fail(MPI_Datatype type, int keyval, void *val, void *extra)
{
    (void)type, (void)keyval, (void)val;
    ((calls_t *)extra)->deletes++;
    return MPI_ERR_OTHER;
}

static void *get(MPI_Datatype t, int kv, int expect_flag)
{
    void *v = NULL;
    int flag = -1;
    CHECK(MPI_Type_get_attr(t, kv, &v, &flag) == MPI_SUCCESS);
    if (flag != expect_flag)
        FAIL("MPI_Type_get_attr(keyval %d): flag %d, expected %d", kv, flag, expect_flag);
    return v;
}

static void test_type_attr(void)
{
    calls_t c1 = {0}, c2 = {0}, c3 = {0};
    int kv1, kv2, kv3, kvnull, kvdup, kvcomm, rc;
    MPI_Datatype vec, dup, dup2;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Type_create_keyval(copy_plus_one, delete_count, &kv1, &c1) == MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(copy_refuse, delete_count, &kv2, &c2) == MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kvnull, NULL) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_count, &kvdup, &c3) == MPI_SUCCESS);
    CHECK(kv1 != MPI_KEYVAL_INVALID && kv1 != kv2 && kv2 != kvnull && kvnull != kvdup);

    CHECK(MPI_Type_vector(3, 2, 5, MPI_INT, &vec) == MPI_SUCCESS);
    get(vec, kv1, 0);
    CHECK(MPI_Type_set_attr(vec, kv1, (void *)(intptr_t)(100 + rank)) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(vec, kv2, (void *)(intptr_t)200) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(vec, kvnull, (void *)(intptr_t)300) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(vec, kvdup, (void *)(intptr_t)400) == MPI_SUCCESS);
    CHECK((intptr_t)get(vec, kv1, 1) == 100 + rank);
    CHECK((intptr_t)get(vec, kv2, 1) == 200);
    CHECK((intptr_t)get(vec, kvnull, 1) == 300);
    CHECK((intptr_t)get(vec, kvdup, 1) == 400);

    /* Replacing a value runs the delete callback on the old one. */
    CHECK(MPI_Type_set_attr(vec, kv2, (void *)(intptr_t)201) == MPI_SUCCESS);
    CHECK(c2.deletes == 1 && c2.last_deleted == 200 && c2.last_type == vec &&
          c2.last_keyval == kv2);
    CHECK((intptr_t)get(vec, kv2, 1) == 201);

    /* MPI_Type_dup: kv1 copies value + 1, kv2 refuses, kvnull is not copied, kvdup copies. */
    CHECK(MPI_Type_dup(vec, &dup) == MPI_SUCCESS);
    CHECK(c1.copies == 1 && c1.last_type == vec && c1.last_keyval == kv1);
    CHECK(c2.copies == 1);
    CHECK((intptr_t)get(dup, kv1, 1) == 101 + rank);
    get(dup, kv2, 0);
    get(dup, kvnull, 0);
    CHECK((intptr_t)get(dup, kvdup, 1) == 400);
    /* The original is untouched. */
    CHECK((intptr_t)get(vec, kv1, 1) == 100 + rank);

    /* Delete: the callback sees the value; deleting again is no error and no callback. */
    CHECK(MPI_Type_delete_attr(dup, kv1) == MPI_SUCCESS);
    CHECK(c1.deletes == 1 && c1.last_deleted == 101 + rank && c1.last_type == dup);
    get(dup, kv1, 0);
    CHECK(MPI_Type_delete_attr(dup, kv1) == MPI_SUCCESS);
    CHECK(c1.deletes == 1);

    /* Free runs the delete callbacks of what is left: dup has kvdup only. */
    CHECK(MPI_Type_free(&dup) == MPI_SUCCESS && dup == MPI_DATATYPE_NULL);
    CHECK(c3.deletes == 1 && c3.last_deleted == 400);
    CHECK(c1.deletes == 1 && c2.deletes == 1);

    /* A keyval freed while in use stays valid for the attributes that have it. */
    CHECK(MPI_Type_free_keyval(&kv1) == MPI_SUCCESS && kv1 == MPI_KEYVAL_INVALID);
    CHECK(MPI_Type_free(&vec) == MPI_SUCCESS);
    CHECK(c1.deletes == 2 && c1.last_deleted == 100 + rank);
    CHECK(c2.deletes == 2 && c2.last_deleted == 201);
    CHECK(c3.deletes == 2);

    /* Predefined types carry attributes too. */
    CHECK(MPI_Type_set_attr(MPI_DOUBLE, kv2, (void *)(intptr_t)7) == MPI_SUCCESS);
    CHECK((intptr_t)get(MPI_DOUBLE, kv2, 1) == 7);
    get(MPI_INT, kv2, 0);
    CHECK(MPI_Type_delete_attr(MPI_DOUBLE, kv2) == MPI_SUCCESS);
    CHECK(c2.deletes == 3 && c2.last_type == MPI_DOUBLE && c2.last_deleted == 7);

    /* A failing copy callback fails MPI_Type_dup and leaves no type. */
    CHECK(MPI_Type_create_keyval(copy_fail, delete_count, &kv3, &c3) == MPI_SUCCESS);
    CHECK(MPI_Type_contiguous(2, MPI_INT, &vec) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(vec, kv3, (void *)(intptr_t)9) == MPI_SUCCESS);
    dup = MPI_INT;
    rc = MPI_Type_dup(vec, &dup);
    CHECK(rc != MPI_SUCCESS && dup == MPI_DATATYPE_NULL);
    CHECK(MPI_Type_delete_attr(vec, kv3) == MPI_SUCCESS);
    CHECK(MPI_Type_dup(vec, &dup2) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&dup2) == MPI_SUCCESS);

    /* A failing delete callback fails MPI_Type_free and MPI_Type_delete_attr; the type stays. */
    CHECK(MPI_Type_free_keyval(&kv3) == MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_fail, &kv3, &c3) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(vec, kv3, (void *)(intptr_t)10) == MPI_SUCCESS);
    CHECK(MPI_Type_delete_attr(vec, kv3) != MPI_SUCCESS);
    CHECK((intptr_t)get(vec, kv3, 1) == 10);
    CHECK(MPI_Type_free(&vec) != MPI_SUCCESS);
    CHECK(vec != MPI_DATATYPE_NULL);
    {
        int sz;
        CHECK(MPI_Type_size(vec, &sz) == MPI_SUCCESS && sz == 2 * (int)sizeof(int));
    }

    /* Wrong keyvals: invalid, freed, a communicator's. */
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kvcomm, NULL) ==
          MPI_SUCCESS);
    {
        void *v;
        int flag, cls, bad = kv2;
        CHECK(MPI_Type_free_keyval(&bad) == MPI_SUCCESS);
        rc = MPI_Type_set_attr(MPI_INT, kvcomm, NULL);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL);
        rc = MPI_Type_get_attr(MPI_INT, MPI_KEYVAL_INVALID, &v, &flag);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL);
        rc = MPI_Type_get_attr(MPI_INT, kv2, &v, &flag); /* freed above */
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL);
        rc = MPI_Type_free_keyval(&kvcomm);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL);
        rc = MPI_Comm_free_keyval(&kvdup);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL);
        rc = MPI_Type_set_attr(MPI_DATATYPE_NULL, kvdup, NULL);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TYPE);
    }
    CHECK(MPI_Comm_free_keyval(&kvcomm) == MPI_SUCCESS);
    CHECK(MPI_Type_free_keyval(&kvnull) == MPI_SUCCESS);
    CHECK(MPI_Type_free_keyval(&kvdup) == MPI_SUCCESS);
    /* vec keeps its attribute with the failing callback: MPI_Finalize drops it quietly. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static const mpitest_t tests[] = {
    {"type_attr", test_type_attr},
};

int main(int argc, char **argv)
{
    /* types_extra.sh asks how many "ok" lines to expect. */
    if (argc == 2 && strcmp(argv[1], "--count") == 0) {
        printf("%zu\n", sizeof(tests) / sizeof(tests[0]));
        return 0;
    }
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
