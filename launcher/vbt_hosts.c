/* Host lists and hostfiles, in the spellings Open MPI and MPICH users bring along:
 *   --host a,b:2,a        a mention is one slot, ":N" is N (Open MPI 4 and 5)
 *   hostfile lines        "a slots=4 max_slots=8" (Open MPI; max_slots is ignored),
 *                         "a:4" (MPICH machinefile), "a" (one slot); '#' starts a comment
 * A name given twice adds its slots up. */
#include "config.h"

#include "vbt_hosts.h"
#include "vbt_msg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define VBT_HOSTS_MAX_SLOTS 65536

static vbt_status_t hosts_add(vbt_hostlist_t *list, const char *name, size_t len, int slots)
{
    vbt_host_t *grown;

    for (int i = 0; i < list->nhosts; i++) {
        if (strlen(list->hosts[i].name) == len && strncmp(list->hosts[i].name, name, len) == 0) {
            list->hosts[i].slots += slots;
            list->slots += slots;
            return VBT_OK;
        }
    }
    grown = realloc(list->hosts, sizeof(*grown) * (size_t)(list->nhosts + 1));
    if (grown == NULL)
        return VBT_ERR_NO_MEMORY;
    list->hosts = grown;
    grown[list->nhosts].name = strndup(name, len);
    if (grown[list->nhosts].name == NULL)
        return VBT_ERR_NO_MEMORY;
    grown[list->nhosts].slots = slots;
    list->nhosts++;
    list->slots += slots;
    return VBT_OK;
}

/* A slot count: 1 to VBT_HOSTS_MAX_SLOTS, the whole of text; -1 otherwise. */
static int hosts_parse_slots(const char *text, size_t len)
{
    char buf[16];
    char *end;
    long v;

    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    errno = 0;
    v = strtol(buf, &end, 10);
    if (errno != 0 || *end != '\0' || v <= 0 || v > VBT_HOSTS_MAX_SLOTS)
        return -1;
    return (int)v;
}

static int hosts_name_ok(const char *name, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (name[i] == '/' || name[i] == '=' || name[i] == ' ' || name[i] == '\t')
            return 0;
    }
    return 1;
}

/* "name" or "name:N". where names the source for messages ("--host", "file:3"). */
static vbt_status_t hosts_add_entry(vbt_hostlist_t *list, const char *entry, size_t len,
                                    const char *where)
{
    const char *colon = memchr(entry, ':', len);
    size_t name_len = colon != NULL ? (size_t)(colon - entry) : len;
    int slots = 1;

    /* An IPv6 address has several colons: then the whole entry is the name. */
    if (colon != NULL && memchr(colon + 1, ':', len - name_len - 1) != NULL) {
        colon = NULL;
        name_len = len;
    }
    if (colon != NULL)
        slots = hosts_parse_slots(colon + 1, len - name_len - 1);
    if (!hosts_name_ok(entry, name_len) || slots < 0) {
        vbt_msg_print("%s: '%.*s' is not a host, or host:slots with slots a positive number; "
                      "see '%s --help'",
                      where, (int)len, entry, vbt_msg_program());
        return VBT_ERR_INVALID_PARAM;
    }
    return hosts_add(list, entry, name_len, slots);
}

static vbt_status_t hosts_parse_list(vbt_hostlist_t *list, const char *text)
{
    const char *p = text;

    for (;;) {
        size_t len = strcspn(p, ",");
        vbt_status_t status = hosts_add_entry(list, p, len, "--host");

        if (status != VBT_OK)
            return status;
        if (p[len] == '\0')
            return VBT_OK;
        p += len + 1;
    }
}

/* One hostfile line, comment already cut: "name [slots=N] [max_slots=N]" or "name[:N]". */
static vbt_status_t hosts_parse_line(vbt_hostlist_t *list, char *line, const char *where)
{
    char *save = NULL;
    char *name = strtok_r(line, " \t\r", &save);
    char *word;
    int slots = -1;

    if (name == NULL)
        return VBT_OK;
    while ((word = strtok_r(NULL, " \t\r", &save)) != NULL) {
        if (strncmp(word, "slots=", 6) == 0) {
            slots = hosts_parse_slots(word + 6, strlen(word + 6));
            if (slots < 0) {
                vbt_msg_print("%s: '%s': slots must be a positive number", where, word);
                return VBT_ERR_INVALID_PARAM;
            }
        } else if (strncmp(word, "max_slots=", 10) != 0) {
            vbt_msg_print("%s: '%s' is not understood (expected slots=N)", where, word);
            return VBT_ERR_INVALID_PARAM;
        }
    }
    if (slots > 0) {
        if (!hosts_name_ok(name, strlen(name)) || strchr(name, ':') != NULL) {
            vbt_msg_print("%s: '%s' is not a host name", where, name);
            return VBT_ERR_INVALID_PARAM;
        }
        return hosts_add(list, name, strlen(name), slots);
    }
    return hosts_add_entry(list, name, strlen(name), where);
}

static vbt_status_t hosts_parse_file(vbt_hostlist_t *list, const char *path)
{
    char line[1024], where[512];
    vbt_status_t status = VBT_OK;
    int lineno = 0;
    FILE *f = fopen(path, "r");

    if (f == NULL) {
        vbt_msg_print("--hostfile %s: %s", path, strerror(errno));
        return VBT_ERR_INVALID_PARAM;
    }
    while (status == VBT_OK && fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        line[strcspn(line, "#\n")] = '\0';
        snprintf(where, sizeof(where), "%s:%d", path, lineno);
        status = hosts_parse_line(list, line, where);
    }
    fclose(f);
    if (status == VBT_OK && list->nhosts == 0) {
        vbt_msg_print("--hostfile %s: no host in it", path);
        status = VBT_ERR_INVALID_PARAM;
    }
    return status;
}

vbt_status_t vbt_hosts_load(const vbt_opts_t *opts, vbt_hostlist_t *list_p)
{
    vbt_hostlist_t list = {NULL, 0, 0};
    vbt_status_t status = VBT_OK;

    if (opts->hosts != NULL)
        status = hosts_parse_list(&list, opts->hosts);
    if (status == VBT_OK && opts->hostfile != NULL)
        status = hosts_parse_file(&list, opts->hostfile);
    if (status != VBT_OK) {
        vbt_hosts_cleanup(&list);
        return status;
    }
    *list_p = list;
    return VBT_OK;
}

void vbt_hosts_cleanup(vbt_hostlist_t *list)
{
    for (int i = 0; i < list->nhosts; i++)
        free(list->hosts[i].name);
    free(list->hosts);
    memset(list, 0, sizeof(*list));
}

/* An address of one of this machine's interfaces, written as inet_ntop writes it. */
static int hosts_is_local_address(const char *name)
{
    struct ifaddrs *ifs, *ifa;
    char text[INET6_ADDRSTRLEN];
    int found = 0;

    if (getifaddrs(&ifs) != 0)
        return 0;
    for (ifa = ifs; ifa != NULL && !found; ifa = ifa->ifa_next) {
        const void *addr;

        if (ifa->ifa_addr == NULL)
            continue;
        if (ifa->ifa_addr->sa_family == AF_INET)
            addr = &((const struct sockaddr_in *)(const void *)ifa->ifa_addr)->sin_addr;
        else if (ifa->ifa_addr->sa_family == AF_INET6)
            addr = &((const struct sockaddr_in6 *)(const void *)ifa->ifa_addr)->sin6_addr;
        else
            continue;
        if (inet_ntop(ifa->ifa_addr->sa_family, addr, text, sizeof(text)) != NULL &&
            strcasecmp(text, name) == 0)
            found = 1;
    }
    freeifaddrs(ifs);
    return found;
}

int vbt_hosts_is_local(const char *name)
{
    char self[256];
    size_t self_short, name_short;

    if (strcasecmp(name, "localhost") == 0 || strncasecmp(name, "localhost.", 10) == 0 ||
        strncmp(name, "127.", 4) == 0 || strcmp(name, "::1") == 0)
        return 1;
    if (gethostname(self, sizeof(self) - 1) == 0) {
        self[sizeof(self) - 1] = '\0';
        if (strcasecmp(name, self) == 0)
            return 1;
        /* "node1" for "node1.cluster", or the other way round: the same machine when one
         * of the two has no domain. */
        self_short = strcspn(self, ".");
        name_short = strcspn(name, ".");
        if (self_short == name_short && strncasecmp(name, self, self_short) == 0 &&
            (self[self_short] == '\0' || name[name_short] == '\0'))
            return 1;
    }
    return hosts_is_local_address(name);
}

const char *vbt_hosts_first_remote(const vbt_hostlist_t *list)
{
    for (int i = 0; i < list->nhosts; i++) {
        if (!vbt_hosts_is_local(list->hosts[i].name))
            return list->hosts[i].name;
    }
    return NULL;
}
