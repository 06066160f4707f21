#include "vbt_string.h"

#include <ctype.h>
#include <string.h>

static int same_char(char a, char b)
{
    if (a == '_')
        a = '-';
    if (b == '_')
        b = '-';
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

unsigned vbt_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned row[64];

    if (la >= 64 || lb >= sizeof(row) / sizeof(row[0]))
        return 1000;
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + !same_char(a[i - 1], b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}
