#include "cli.h"
int afx_cmd_enable(int argc, char **argv, bool enable) { (void)argc; (void)argv; (void)enable; return 1; }
