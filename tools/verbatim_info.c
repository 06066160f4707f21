/* verbatim-info: what this Verbatim is, how it was built, and every VBT_ knob; with --mpit,
 * the control and performance variables and categories as the MPI_T tools interface gives
 * them (through MPI_T itself, so the two can never disagree). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "vbt_config.h"
#include "vbt_tl_ops.h"
#include "vbt_log.h"

static const char *type_name(vbt_knob_type_t type)
{
    switch (type) {
    case VBT_KNOB_STRING:
        return "string";
    case VBT_KNOB_INT:
        return "integer";
    case VBT_KNOB_SIZE:
        return "size";
    case VBT_KNOB_BOOL:
        return "boolean";
    case VBT_KNOB_LOG_LEVEL:
        return "level";
    }
    return "?";
}

static const char *scope_name(int scope)
{
    static const char *const names[] = {"?",     "constant", "readonly", "local",
                                        "group", "group-eq", "all",      "all-eq"};
    return scope >= 1 && scope <= 7 ? names[scope] : "?";
}

static const char *class_name(int cls)
{
    static const char *const names[] = {"?",   "state",   "level",     "size",  "percentage", "hwm",
                                        "lwm", "counter", "aggregate", "timer", "generic"};
    return cls >= 1 && cls <= 10 ? names[cls] : "?";
}

#define T_CHECK(_call)                                                                             \
    do {                                                                                           \
        int _rc = (_call);                                                                         \
        if (_rc != MPI_SUCCESS) {                                                                  \
            fprintf(stderr, "verbatim-info: %s failed with error %d\n", #_call, _rc);              \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* --mpit: everything through MPI_T, before MPI_Init (values: the environment's or defaults;
 * the performance variables read 0 outside a running job). */
static int print_mpit(void)
{
    int provided, ncvar, npvar, ncat, nev, nsrc;
    MPI_T_pvar_session ses;

    T_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    T_CHECK(MPI_T_cvar_get_num(&ncvar));
    T_CHECK(MPI_T_pvar_get_num(&npvar));
    T_CHECK(MPI_T_category_get_num(&ncat));
    T_CHECK(MPI_T_event_get_num(&nev));
    T_CHECK(MPI_T_source_get_num(&nsrc));

    printf("MPI_T control variables (%d): index, name, type, scope, value\n", ncvar);
    for (int i = 0; i < ncvar; i++) {
        char name[128], desc[1024], value[300] = "", ename[64], item[64];
        int nl = sizeof(name), dl = sizeof(desc), verb, bind, scope, count, num = 0;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_T_cvar_handle h;
        union {
            int i;
            unsigned long long u;
            char s[256];
        } v;

        T_CHECK(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope));
        T_CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        T_CHECK(MPI_T_cvar_read(h, &v));
        T_CHECK(MPI_T_cvar_handle_free(&h));
        if (en != MPI_T_ENUM_NULL) {
            int el = sizeof(ename), il = sizeof(item), val;
            T_CHECK(MPI_T_enum_get_info(en, &num, ename, &el));
            T_CHECK(MPI_T_enum_get_item(en, v.i, &val, item, &il));
            snprintf(value, sizeof(value), "%s", item);
        } else if (dt == MPI_INT) {
            snprintf(value, sizeof(value), "%d", v.i);
        } else if (dt == MPI_UNSIGNED_LONG_LONG) {
            snprintf(value, sizeof(value), "%llu", v.u);
        } else {
            snprintf(value, sizeof(value), "\"%s\"", v.s);
        }
        printf("  cvar %3d %-24s %-7s %-9s %s\n", i, name,
               en != MPI_T_ENUM_NULL          ? "enum"
               : dt == MPI_INT                ? "int"
               : dt == MPI_UNSIGNED_LONG_LONG ? "size"
                                              : "string",
               scope_name(scope), value);
        if (en != MPI_T_ENUM_NULL) {
            printf("      %s:", ename);
            for (int k = 0; k < num; k++) {
                int il = sizeof(item), val;
                T_CHECK(MPI_T_enum_get_item(en, k, &val, item, &il));
                printf(" %d=%s", val, item);
            }
            printf("\n");
        }
        printf("      %s\n", desc);
    }

    T_CHECK(MPI_T_pvar_session_create(&ses));
    printf("\nMPI_T performance variables (%d): index, name, class, continuous or started, "
           "writable, value now\n",
           npvar);
    for (int i = 0; i < npvar; i++) {
        char name[128], desc[1024];
        int nl = sizeof(name), dl = sizeof(desc), verb, cls, bind, ro, cont, atomic, count;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_T_pvar_handle h;
        double d = 0;
        unsigned long long u = 0;

        T_CHECK(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro,
                                    &cont, &atomic));
        T_CHECK(MPI_T_pvar_handle_alloc(ses, i, NULL, &h, &count));
        T_CHECK(MPI_T_pvar_read(ses, h, dt == MPI_DOUBLE ? (void *)&d : (void *)&u));
        T_CHECK(MPI_T_pvar_handle_free(ses, &h));
        printf("  pvar %3d %-24s %-8s %-10s %-9s ", i, name, class_name(cls),
               cont ? "continuous" : "started", ro ? "read-only" : "resettable");
        if (dt == MPI_DOUBLE)
            printf("%g s\n", d);
        else
            printf("%llu\n", u);
        printf("      %s\n", desc);
    }
    T_CHECK(MPI_T_pvar_session_free(&ses));

    printf("\nMPI_T categories (%d): name, control and performance variables\n", ncat);
    for (int c = 0; c < ncat; c++) {
        char name[64], desc[256], vname[128];
        int nl = sizeof(name), dl = sizeof(desc), nc, np, ns, idx[256];
        T_CHECK(MPI_T_category_get_info(c, name, &nl, desc, &dl, &nc, &np, &ns));
        printf("  %-14s %s\n", name, desc);
        if (nc > 256 || np > 256)
            continue;
        T_CHECK(MPI_T_category_get_cvars(c, nc, idx));
        for (int k = 0; k < nc; k++) {
            int vl = sizeof(vname);
            T_CHECK(
                MPI_T_cvar_get_info(idx[k], vname, &vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
            printf("%s%s", k == 0 ? "      cvars: " : ", ", vname);
        }
        if (nc > 0)
            printf("\n");
        T_CHECK(MPI_T_category_get_pvars(c, np, idx));
        for (int k = 0; k < np; k++) {
            int vl = sizeof(vname);
            T_CHECK(MPI_T_pvar_get_info(idx[k], vname, &vl, NULL, NULL, NULL, NULL, NULL, NULL,
                                        NULL, NULL, NULL, NULL));
            printf("%s%s", k == 0 ? "      pvars: " : ", ", vname);
        }
        if (np > 0)
            printf("\n");
        if (ns > 0)
            printf("      subcategories: %d\n", ns);
    }
    printf("\nMPI_T events: %d event types, %d sources (none are defined)\n", nev, nsrc);
    T_CHECK(MPI_T_finalize());
    return 0;
}

int main(int argc, char **argv)
{
    size_t count;
    const vbt_knob_t *knobs;

    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("Usage: verbatim-info [--version | --mpit]\nPrints Verbatim's version, build "
               "configuration and every VBT_ environment knob with its default and current "
               "value.\n  --mpit  list the control variables (the knobs), performance variables "
               "and categories through the MPI_T tools interface\n");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--mpit"))
        return print_mpit();
    if (argc > 1 && strcmp(argv[1], "--version") != 0) {
        fprintf(stderr, "verbatim-info: unknown argument '%s' (try --help)\n", argv[1]);
        return 2;
    }
    printf("Verbatim %s (MPI 5.0 standard ABI)\n", PACKAGE_VERSION);
    if (argc > 1)
        return 0;
    vbt_log_set_identity("verbatim-info", -1);
    vbt_config_load(); /* warns about unknown VBT_ variables and bad values */

    printf("\nBuild:\n");
    printf("  configure arguments: %s\n", VBT_CONFIGURE_ARGS[0] ? VBT_CONFIGURE_ARGS : "(none)");
#ifdef VBT_DEBUG
    printf("  debug: yes (assertions and trace logging)\n");
#else
    printf("  debug: no\n");
#endif
    printf("  transports: self");
    for (int i = 0; vbt_tl_table[i] != NULL; i++)
        printf(", %s", vbt_tl_table[i]->name);
    printf("\n");

    printf("\nEnvironment knobs:\n");
    knobs = vbt_config_knobs(&count);
    for (size_t i = 0; i < count; i++) {
        const char *cur = getenv(knobs[i].name);
        printf("  %-20s %-8s default %-8s current %s\n      %s\n", knobs[i].name,
               type_name(knobs[i].type), knobs[i].default_value, cur ? cur : "(unset: default)",
               knobs[i].help);
    }
    /* Each transport's own account: for ib the devices, ports, GIDs, the choice, memlock. */
    for (int i = 0; vbt_tl_table[i] != NULL; i++)
        if (vbt_tl_table[i]->describe != NULL)
            vbt_tl_table[i]->describe(stdout);
    return 0;
}
