/*
 * gpm: the fake GPU Performance Monitoring API (nvmlGpm*).
 *
 * Owns: the GPM samples handed out by nvmlGpmSampleAlloc (a list, under the state lock) and the
 * metric table: metric id -> timeline key (1 util_gpu, 2 sm_active, 3 sm_occupancy,
 * 5 tensor_active, 10 dram_active, 20 pcie_tx_mib_s, 21 pcie_rx_mib_s). A metric is the time
 * average of its key over [t(sample1), t(sample2)], as real GPM averages counters over the window
 * between the two samples.
 * Must not: keep samples past the last nvmlShutdown (their owner may call nvmlGpmSampleFree later,
 * which then finds nothing and returns UNINITIALIZED instead of freeing twice).
 */
#ifndef FAKE_GPM_H
#define FAKE_GPM_H

/* Frees every sample (state lock held; called by the last nvmlShutdown). */
void fake_gpm_release_all(void);

#endif
