/* The info object (MPI-4.1 Chapter 10). Every one of these may be called before MPI_Init and
 * after MPI_Finalize (Sec. 11.4.1), so none uses VBT_API_ENTER; each holds the runtime's
 * critical section instead (a no-op unless MPI_THREAD_MULTIPLE was granted), as the objects'
 * handle table is shared by all threads. Their errors are raised on
 * MPI_COMM_SELF's handler, or on the initial handler (fatal) when MPI is not initialised
 * (Sec. 9.3). The object itself is in runtime/vbt_info.c. */
#include "vbt_api_info.h"

#include <stdint.h>
#include <string.h>

VBT_PMPI_ALIAS(Info_create)
VBT_PMPI_ALIAS(Info_create_env)
VBT_PMPI_ALIAS(Info_set)
VBT_PMPI_ALIAS(Info_get)
VBT_PMPI_ALIAS(Info_get_string)
VBT_PMPI_ALIAS(Info_get_valuelen)
VBT_PMPI_ALIAS(Info_delete)
VBT_PMPI_ALIAS(Info_get_nkeys)
VBT_PMPI_ALIAS(Info_get_nthkey)
VBT_PMPI_ALIAS(Info_dup)
VBT_PMPI_ALIAS(Info_free)

/* The communicator whose handler an info error goes to. */
static vbt_comm_t *self_comm(void)
{
    return vbt_rt.state == VBT_RT_INITIALIZED ? &vbt_comm_self : NULL;
}

int vbt_api_check_info(vbt_comm_t *c, const char *call, const char *arg, MPI_Info info,
                       vbt_info_t **info_p)
{
    vbt_info_t *i;

    if (info == MPI_INFO_NULL) {
        *info_p = NULL;
        return MPI_SUCCESS;
    }
    i = vbt_info_get(info);
    if (unlikely(i == NULL))
        return vbt_error_raise(c, call, MPI_ERR_INFO,
                               "argument %s (%p) is no info object: it was freed or never made "
                               "by MPI_Info_create; pass a live one or MPI_INFO_NULL",
                               arg, (void *)info);
    *info_p = i;
    return MPI_SUCCESS;
}

/* A live info object (MPI_INFO_ENV included, MPI_INFO_NULL not), or the error raised. */
static int get_info(const char *call, MPI_Info info, vbt_info_t **info_p)
{
    if (unlikely(info == MPI_INFO_NULL))
        return vbt_error_raise(self_comm(), call, MPI_ERR_INFO,
                               "argument info is MPI_INFO_NULL; pass an object from "
                               "MPI_Info_create, MPI_Info_dup or MPI_Info_create_env");
    return vbt_api_check_info(self_comm(), call, "info", info, info_p);
}

/* As get_info, for the calls that change the object: MPI_INFO_ENV is read-only. */
static int get_writable_info(const char *call, MPI_Info info, vbt_info_t **info_p)
{
    int rc = get_info(call, info, info_p);

    if (rc == MPI_SUCCESS && (*info_p)->predefined)
        return vbt_error_raise(self_comm(), call, MPI_ERR_INFO,
                               "argument info is MPI_INFO_ENV, which is predefined and cannot "
                               "be changed or freed; change a copy made by MPI_Info_dup");
    return rc;
}

static int check_ptr(const char *call, const void *ptr, const char *arg)
{
    if (unlikely(ptr == NULL))
        return vbt_error_raise(self_comm(), call, MPI_ERR_ARG,
                               "argument %s is NULL; pass a valid address", arg);
    return MPI_SUCCESS;
}

/* A key of 1 to MPI_MAX_INFO_KEY - 1 characters. */
static int check_key(const char *call, const char *key)
{
    size_t len;

    if (unlikely(key == NULL))
        return vbt_error_raise(self_comm(), call, MPI_ERR_INFO_KEY,
                               "argument key is NULL; pass a string");
    len = strnlen(key, MPI_MAX_INFO_KEY);
    if (unlikely(len == 0))
        return vbt_error_raise(self_comm(), call, MPI_ERR_INFO_KEY,
                               "argument key is the empty string; a key has at least one "
                               "character");
    if (unlikely(len > MPI_MAX_INFO_KEY - 1))
        return vbt_error_raise(self_comm(), call, MPI_ERR_INFO_KEY,
                               "argument key (\"%.32s...\") is longer than %d characters "
                               "(MPI_MAX_INFO_KEY - 1); use a shorter key",
                               key, MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

static int failed(const char *call, vbt_status_t status)
{
    return vbt_error_raise(self_comm(), call, vbt_status_to_errclass(status),
                           "the info object could not be made or changed: %s",
                           vbt_status_string(status));
}

int PMPI_Info_create(MPI_Info *info)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i;
    vbt_status_t status;

    VBT_API_CHECK(check_ptr("MPI_Info_create", info, "info"));
    status = vbt_info_create(&i);
    if (status != VBT_OK)
        return failed("MPI_Info_create", status);
    *info = vbt_info_handle(i);
    return MPI_SUCCESS;
}

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i;
    vbt_status_t status;

    VBT_API_CHECK(check_ptr("MPI_Info_create_env", info, "info"));
    if (argc < 0 || (argc > 0 && argv == NULL))
        return vbt_error_raise(self_comm(), "MPI_Info_create_env", MPI_ERR_ARG,
                               "arguments argc (%d) and argv (%p) do not agree; pass main's "
                               "argc and argv, or 0 and NULL",
                               argc, (void *)argv);
    status = vbt_info_create(&i);
    if (status == VBT_OK) {
        status = vbt_info_env_fill(i, argc, argc > 0 ? argv : NULL);
        if (status != VBT_OK)
            vbt_info_release(i);
    }
    if (status != VBT_OK)
        return failed("MPI_Info_create_env", status);
    *info = vbt_info_handle(i);
    return MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i;
    vbt_status_t status;

    VBT_API_CHECK(get_writable_info("MPI_Info_set", info, &i));
    VBT_API_CHECK(check_key("MPI_Info_set", key));
    if (value == NULL)
        return vbt_error_raise(self_comm(), "MPI_Info_set", MPI_ERR_INFO_VALUE,
                               "argument value is NULL; pass a string");
    if (strnlen(value, MPI_MAX_INFO_VAL) > MPI_MAX_INFO_VAL - 1)
        return vbt_error_raise(self_comm(), "MPI_Info_set", MPI_ERR_INFO_VALUE,
                               "argument value (for key \"%s\") is longer than %d characters "
                               "(MPI_MAX_INFO_VAL - 1); use a shorter value",
                               key, MPI_MAX_INFO_VAL - 1);
    status = vbt_info_set(i, key, value);
    if (status != VBT_OK)
        return failed("MPI_Info_set", status);
    return MPI_SUCCESS;
}

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i;
    const char *v;
    size_t n;

    VBT_API_CHECK(get_info("MPI_Info_get", info, &i));
    VBT_API_CHECK(check_key("MPI_Info_get", key));
    VBT_API_CHECK(check_ptr("MPI_Info_get", flag, "flag"));
    if (valuelen < 0)
        return vbt_error_raise(self_comm(), "MPI_Info_get", MPI_ERR_ARG,
                               "argument valuelen is %d; pass the size of value less one for "
                               "the terminating NUL (0 or more)",
                               valuelen);
    VBT_API_CHECK(check_ptr("MPI_Info_get", value, "value"));
    *flag = vbt_info_lookup(i, key, &v);
    if (!*flag)
        return MPI_SUCCESS;
    /* valuelen counts the characters, not the NUL after them (Sec. 10.1). */
    n = strlen(v);
    if (n > (size_t)valuelen)
        n = (size_t)valuelen;
    memcpy(value, v, n);
    value[n] = '\0';
    return MPI_SUCCESS;
}

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i;
    const char *v;
    size_t len;

    VBT_API_CHECK(get_info("MPI_Info_get_string", info, &i));
    VBT_API_CHECK(check_key("MPI_Info_get_string", key));
    VBT_API_CHECK(check_ptr("MPI_Info_get_string", buflen, "buflen"));
    VBT_API_CHECK(check_ptr("MPI_Info_get_string", flag, "flag"));
    if (*buflen < 0)
        return vbt_error_raise(self_comm(), "MPI_Info_get_string", MPI_ERR_ARG,
                               "argument *buflen is %d; pass the size of value in characters, "
                               "the NUL included (0 to ask only for the length)",
                               *buflen);
    if (*buflen > 0)
        VBT_API_CHECK(check_ptr("MPI_Info_get_string", value, "value"));
    *flag = vbt_info_lookup(i, key, &v);
    if (!*flag)
        return MPI_SUCCESS; /* value and buflen untouched */
    /* The value is cut to buflen - 1 characters and always terminated; buflen then says how
     * large a buffer the whole value needs, NUL included (Sec. 10.1). buflen 0: no copy. */
    len = strlen(v);
    if (*buflen > 0) {
        size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i;
    const char *v;

    VBT_API_CHECK(get_info("MPI_Info_get_valuelen", info, &i));
    VBT_API_CHECK(check_key("MPI_Info_get_valuelen", key));
    VBT_API_CHECK(check_ptr("MPI_Info_get_valuelen", valuelen, "valuelen"));
    VBT_API_CHECK(check_ptr("MPI_Info_get_valuelen", flag, "flag"));
    *flag = vbt_info_lookup(i, key, &v);
    if (*flag)
        *valuelen = (int)strlen(v); /* without the NUL */
    return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i;

    VBT_API_CHECK(get_writable_info("MPI_Info_delete", info, &i));
    VBT_API_CHECK(check_key("MPI_Info_delete", key));
    if (vbt_info_delete(i, key) != VBT_OK)
        return vbt_error_raise(self_comm(), "MPI_Info_delete", MPI_ERR_INFO_NOKEY,
                               "argument key \"%s\" is not in the info object; check with "
                               "MPI_Info_get_string (flag) before deleting",
                               key);
    return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i;

    VBT_API_CHECK(get_info("MPI_Info_get_nkeys", info, &i));
    VBT_API_CHECK(check_ptr("MPI_Info_get_nkeys", nkeys, "nkeys"));
    *nkeys = vbt_info_nkeys(i);
    return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i;
    const char *k;

    VBT_API_CHECK(get_info("MPI_Info_get_nthkey", info, &i));
    VBT_API_CHECK(check_ptr("MPI_Info_get_nthkey", key, "key"));
    k = vbt_info_nthkey(i, n);
    if (k == NULL)
        return vbt_error_raise(self_comm(), "MPI_Info_get_nthkey", MPI_ERR_ARG,
                               "argument n is %d; the object has %d key(s), so n must be 0 to "
                               "MPI_Info_get_nkeys - 1",
                               n, vbt_info_nkeys(i));
    /* The caller's buffer holds MPI_MAX_INFO_KEY characters; keys are shorter by the NUL. */
    memcpy(key, k, strlen(k) + 1);
    return MPI_SUCCESS;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i, *copy;
    vbt_status_t status;

    VBT_API_CHECK(get_info("MPI_Info_dup", info, &i));
    VBT_API_CHECK(check_ptr("MPI_Info_dup", newinfo, "newinfo"));
    status = vbt_info_dup(i, &copy);
    if (status != VBT_OK)
        return failed("MPI_Info_dup", status);
    *newinfo = vbt_info_handle(copy);
    return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info *info)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    vbt_info_t *i;

    VBT_API_CHECK(check_ptr("MPI_Info_free", info, "info"));
    VBT_API_CHECK(get_writable_info("MPI_Info_free", *info, &i));
    vbt_info_release(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
