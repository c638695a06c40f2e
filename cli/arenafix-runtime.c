/* arenafix-runtime: the OCI runtime shim (runtime/runtimecmd.c). */
#include "cli.h"

int main(int argc, char **argv)
{
    return afx_runtime_main(argc, argv);
}
