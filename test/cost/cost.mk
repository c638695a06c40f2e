# test/cost/: what the cost suite (test/integration/test_cost.c) preloads
# beside the library, and runs.  libholdbind.so holds arenafix's binding
# while another thread forks; costthreads is bench-cost's thread program,
# counted per create.
$(B)/test/libholdbind.so: test/cost/holdbind.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $< -ldl

$(B)/test/costthreads: bench/costthreads.c | $(B)/test
	$(CC) $(CPPFLAGS) $(AFX_CFLAGS) -O2 -g -pthread $(CFLAGS) -o $@ $<

check-shim-needs: $(B)/test/libholdbind.so $(B)/test/costthreads
