# test/cost/: what the cost suite (test/integration/test_cost.c) preloads
# beside the library.  libholdbind.so holds arenafix's binding while
# another thread forks.
$(B)/test/libholdbind.so: test/cost/holdbind.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $< -ldl

check-shim: $(B)/test/libholdbind.so
