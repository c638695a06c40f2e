#include "cli.h"
int afx_cmd_inspect(int argc, char **argv) { (void)argc; (void)argv; return 1; }
