#include "harness.h"
Suite *inspect_suite(void) { return suite_create("inspect"); }
