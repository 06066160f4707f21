/* Object pools (runtime/base/vbt_objpool.h): objects handed out and reused, and the lookup that
 * must accept exactly the live objects' addresses without reading anything else: made-up
 * numbers, unmapped addresses, pointers into other memory, into the middle of an object or past
 * the last one, freed objects. Unmapped and PROT_NONE addresses would crash if read, so passing
 * them proves the lookup does not read them. */
#include "vbt_check.h"
#include "vbt_objpool.h"

#include <stdint.h>

#define MAGIC 0x54455354u

typedef struct {
    uint32_t magic;
    int value;
    void *link;
    char pad[40]; /* 56 bytes: a stride of 64 */
} obj_t;

/* Enough objects for several mapping steps (64 KiB each). */
#define N 5000

static obj_t *objs[N];

static obj_t *get(const vbt_objpool_t *p, const void *h)
{
    return vbt_objpool_get(p, h, sizeof(obj_t), MAGIC);
}

START_TEST(test_alloc_get_free)
{
    vbt_objpool_t pool = VBT_OBJPOOL_INITIALIZER(obj_t, "test object", 1u << 16, link);

    ck_assert_uint_eq(pool.stride, 64);
    ck_assert_ptr_null(get(&pool, (void *)(uintptr_t)0x12345678u)); /* empty pool */
    for (int i = 0; i < N; i++) {
        objs[i] = vbt_objpool_alloc(&pool);
        ck_assert_ptr_nonnull(objs[i]);
        ck_assert_uint_eq(objs[i]->magic, 0); /* fresh memory is zeroes */
        objs[i]->magic = MAGIC;
        objs[i]->value = i;
        ck_assert_uint_eq(vbt_objpool_index(&pool, objs[i], sizeof(obj_t)), (size_t)i);
        ck_assert_ptr_eq(vbt_objpool_at(&pool, (size_t)i, sizeof(obj_t)), objs[i]);
    }
    ck_assert_uint_eq(pool.count, N);
    ck_assert_ptr_null(vbt_objpool_at(&pool, N, sizeof(obj_t)));
    for (int i = 0; i < N; i++)
        ck_assert_ptr_eq(get(&pool, objs[i]), objs[i]);

    /* Not objects: nothing here may be read (the first two are not mapped or not readable). */
    {
        int local = 0;
        const void *bad[] = {
            NULL,
            (void *)(uintptr_t)0x108, /* a predefined handle */
            (void *)(uintptr_t)0xdead0000beefull,
            (char *)objs[N - 1] + pool.stride,      /* past the last object: PROT_NONE */
            (char *)pool.base + pool.reserved - 64, /* the end of the range */
            (char *)pool.base - 64,                 /* before it */
            &local,                                 /* the stack */
            objs,                                   /* a global */
            (char *)objs[7] + 8,                    /* inside an object */
            (char *)objs[7] + 1,                    /* misaligned */
            (char *)objs[7] + sizeof(obj_t),        /* in the padding of the stride */
            (void *)(uintptr_t)(pool.base + pool.stride * N * 2), /* mapped? not carved */
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
            ck_assert_msg(get(&pool, bad[i]) == NULL, "bad[%zu] = %p accepted", i, bad[i]);
    }

    /* Freed: refused, the others still found; reused last-freed first, magic 0. */
    vbt_objpool_free(&pool, objs[10]);
    vbt_objpool_free(&pool, objs[20]);
    ck_assert_ptr_null(get(&pool, objs[10]));
    ck_assert_ptr_null(get(&pool, objs[20]));
    ck_assert_ptr_eq(get(&pool, objs[11]), objs[11]);
    ck_assert_int_eq(objs[20]->value, 20); /* the pool writes only magic and link */
    ck_assert_ptr_eq(vbt_objpool_alloc(&pool), objs[20]);
    ck_assert_ptr_eq(vbt_objpool_alloc(&pool), objs[10]);
    ck_assert_uint_eq(objs[10]->magic, 0);
    ck_assert_uint_eq(pool.count, N); /* reuse carves nothing */
    objs[10]->magic = objs[20]->magic = MAGIC;

    /* The loop over live objects sees each once. */
    vbt_objpool_free(&pool, objs[3]);
    {
        long sum = 0, n = 0;
        VBT_OBJPOOL_FOREACH(&pool, obj_t, o, MAGIC)
        {
            sum += o->value;
            n++;
        }
        ck_assert_int_eq(n, N - 1);
        ck_assert_int_eq(sum, (long)N * (N - 1) / 2 - 3);
    }

    vbt_objpool_destroy(&pool);
    ck_assert_ptr_null(get(&pool, objs[5]));
    ck_assert_ptr_null(vbt_objpool_at(&pool, 5, sizeof(obj_t)));
    /* Usable again after destroy (a new range). */
    ck_assert_ptr_nonnull(vbt_objpool_alloc(&pool));
    vbt_objpool_destroy(&pool);
}
END_TEST

/* A pool that is full says so and returns NULL; freeing makes room again. */
START_TEST(test_full)
{
    vbt_objpool_t pool = VBT_OBJPOOL_INITIALIZER(obj_t, "test object", 2048, link);
    size_t n = 0;
    obj_t *o, *last = NULL;

    while ((o = vbt_objpool_alloc(&pool)) != NULL) {
        o->magic = MAGIC;
        last = o;
        n++;
        ck_assert_uint_le(n, 2048);
    }
    ck_assert_uint_eq(n, 2048);
    vbt_objpool_free(&pool, last);
    ck_assert_ptr_eq(vbt_objpool_alloc(&pool), last);
    ck_assert_ptr_null(vbt_objpool_alloc(&pool));
    vbt_objpool_destroy(&pool);
}
END_TEST

static Suite *objpool_suite(void)
{
    Suite *s = suite_create("objpool");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_alloc_get_free);
    tcase_add_test(tc, test_full);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vbt_check_run(objpool_suite());
}
