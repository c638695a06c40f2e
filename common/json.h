/* Just enough JSON for one flat object per report. */
#ifndef AFX_JSON_H
#define AFX_JSON_H

#include <stdbool.h>
#include <stdio.h>

struct afx_json {
    FILE *out;
    bool first;
};

void afx_json_begin(struct afx_json *j, FILE *out);
void afx_json_str(struct afx_json *j, const char *key, const char *value);  /* NULL: null */
void afx_json_long(struct afx_json *j, const char *key, long value);
void afx_json_bool(struct afx_json *j, const char *key, bool value);
/* value is already JSON (an array built by the caller). */
void afx_json_raw(struct afx_json *j, const char *key, const char *value);
void afx_json_end(struct afx_json *j);

/* Write s as a JSON string, quotes included; NULL as null.  The output
 * is ASCII whatever s holds: characters outside printable ASCII become
 * \u escapes (a pair of them above U+FFFF), and bytes that are not
 * UTF-8 become U+FFFD, the replacement character, one for each maximal
 * subpart of an ill-formed sequence (Unicode's recommended practice,
 * which Python's and the browsers' decoders follow). */
void afx_json_quote(FILE *out, const char *s);

#endif
