/* verbatim-info: what this Verbatim is, how it was built, and every VBT_ knob. */
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

int main(int argc, char **argv)
{
    size_t count;
    const vbt_knob_t *knobs;

    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("Usage: verbatim-info\nPrints Verbatim's version, build configuration and every "
               "VBT_ environment knob with its default and current value.\n");
        return 0;
    }
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
