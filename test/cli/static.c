/* A statically linked program: LD_PRELOAD cannot reach it, and the
 * wrapper must say so. */
int main(void)
{
    return 0;
}
