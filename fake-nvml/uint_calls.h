/*
 * uint_calls: the NVML calls of the shape nvmlReturn_t f(nvmlDevice_t, unsigned int *value) that
 * answer one scenario timeline key each, NOT_SUPPORTED while the scenario gives the key no point.
 * One line a call; everything else is made from it: the key (scenario.h fake_key,
 * scenario_device.c fake_keys[]), the declaration (fake_api.h), the call counter (stats.h
 * FAKE_CALLS) and the function (api_metrics.c). A call of another shape is written by hand there.
 *
 * X(call, key id, JSON key, step, max, group): step and max as fake_key_info's (step: the value is
 * held between points, as a counter's is; max: the largest value the key accepts), group the
 * call group that "unsupported" and "latency_ms" name.
 *
 * This is the fake's own map from NVML to scenario keys, written from NVML's documentation and
 * not from gpuwatch's field table: tests/unit/test_field_table.c checks the table against it.
 * Must not: include anything (scenario.h, fake_api.h and stats.h include it).
 */
#ifndef FAKE_UINT_CALLS_H
#define FAKE_UINT_CALLS_H

#define FAKE_UINT_CALLS(X)                                                                         \
    X(nvmlDeviceGetFanSpeed, FK_FAN_PCT, "fan_pct", false, UINT_MAX, FG_FAN)                       \
    X(nvmlDeviceGetPcieReplayCounter, FK_PCIE_REPLAY_COUNTER, "pcie_replay_counter", true,         \
      UINT_MAX, FG_PCIE)

#endif
