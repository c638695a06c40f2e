/* What the OCI hook reads of the JSON a runtime hands it: the state on
 * its standard input and the bundle's config.json.  Pure: the caller
 * reads the text (bounded) and says what it wants. */
#ifndef AFX_OCIJSON_H
#define AFX_OCIJSON_H

#include <stdbool.h>
#include <stddef.h>

/* The value at keys[0].keys[1]... (objects only) of the JSON text
 * (len bytes, one value), as the span *val, *vlen of the text; the
 * first member of a name counts.  False if the text is not JSON, is
 * nested deeper than 64, or has no such member. */
bool afx_json_member(const char *json, size_t len, const char *const *keys, size_t nkeys,
                     const char **val, size_t *vlen);

/* A JSON string value (as afx_json_member gives it) decoded into out:
 * false if it is not a string, does not fit in size, or holds a NUL or
 * a character outside ASCII (no path or ID the hook needs has one). */
bool afx_json_string(const char *val, size_t vlen, char *out, size_t size);

/* A JSON number that is a whole number from 1 to LONG_MAX. */
bool afx_json_positive(const char *val, size_t vlen, long *out);

/* The index'th element (from 0) of the JSON array that is the whole
 * text, as a span.  False if the text is no array or has fewer. */
bool afx_json_element(const char *json, size_t len, size_t index, const char **val, size_t *vlen);

/* How many members of the JSON object that is the whole text are named
 * key: 0 for another value.  A reader that takes the last of a name
 * (Go's) and one that takes the first (afx_json_member) agree only
 * where it is at most 1. */
size_t afx_json_count_members(const char *json, size_t len, const char *key);

#endif
