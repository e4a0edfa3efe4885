/*
 * gpm_metrics: the GPM metrics the fake computes, each from one scenario timeline key (averaged
 * between the two samples; NOT_SUPPORTED in the metric's entry while the key has no point). One
 * line a metric; the rest is made from it: the key (scenario.h fake_key, scenario_device.c
 * fake_keys[]) and the metric's entry and metricInfo strings (gpm.c). Graphics activity (metric
 * 1), which plays util_gpu's timeline, is written by hand in gpm.c.
 *
 * X(metric id, key id, JSON key, max, short name, long name, unit): max as fake_key_info's.
 *
 * This is the fake's own map from NVML to scenario keys, written from NVML's documentation and
 * not from gpuwatch's field table: tests/unit/test_field_table.c checks the table against it.
 * Must not: include anything (scenario.h and gpm.c include it).
 */
#ifndef FAKE_GPM_METRICS_H
#define FAKE_GPM_METRICS_H

#define FAKE_GPM_METRICS(X)                                                                        \
    X(GWN_GPM_METRIC_SM_UTIL, FK_SM_ACTIVE, "sm_active", 1e9, "sm_util", "SM activity", "%")       \
    X(GWN_GPM_METRIC_SM_OCCUPANCY, FK_SM_OCCUPANCY, "sm_occupancy", 1e9, "sm_occupancy",           \
      "SM occupancy", "%")                                                                         \
    X(GWN_GPM_METRIC_ANY_TENSOR_UTIL, FK_TENSOR_ACTIVE, "tensor_active", 1e9, "any_tensor_util",   \
      "Any tensor pipe activity", "%")                                                             \
    X(GWN_GPM_METRIC_DRAM_BW_UTIL, FK_DRAM_ACTIVE, "dram_active", 1e9, "dram_bw_util",             \
      "DRAM bandwidth utilization", "%")                                                           \
    X(GWN_GPM_METRIC_PCIE_TX_PER_SEC, FK_PCIE_TX_MIB_S, "pcie_tx_mib_s", 1e12, "pcie_tx",          \
      "PCIe transmitted bandwidth", "MiB/s")                                                       \
    X(GWN_GPM_METRIC_PCIE_RX_PER_SEC, FK_PCIE_RX_MIB_S, "pcie_rx_mib_s", 1e12, "pcie_rx",          \
      "PCIe received bandwidth", "MiB/s")                                                          \
    X(GWN_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, FK_NVLINK_TX_MIB_S, "nvlink_tx_mib_s", 1e12,         \
      "nvlink_total_tx", "NVLink transmitted bandwidth", "MiB/s")                                  \
    X(GWN_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, FK_NVLINK_RX_MIB_S, "nvlink_rx_mib_s", 1e12,         \
      "nvlink_total_rx", "NVLink received bandwidth", "MiB/s")

#endif
