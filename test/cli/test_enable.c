#include "harness.h"
Suite *enable_suite(void) { return suite_create("enable"); }
