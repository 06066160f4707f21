/* Small string helpers shared by the library, the launcher and the tools. */
#ifndef VBT_STRING_H
#define VBT_STRING_H

/* Levenshtein distance for "did you mean" hints: case-insensitive, '-' and '_' alike.
 * Strings of 64 characters or more are "far" (1000). */
unsigned vbt_edit_distance(const char *a, const char *b);

#endif
