/* A preload that does nothing: the baseline for what loading any
 * library costs, against which arenafix's own cost is measured. */
int afx_empty_marker;
int afx_empty_marker = 1;
