/*
 * clock_reasons: the bits of GW_F_CLOCKS_EVENT_REASONS (gpu.csv's clocks_event_reasons.active).
 * The field stores NVML's nvmlClocksEventReasons mask as read, so the bits are NVML's (checked
 * against nvml_abi.h in sampler/probe.c); readers of the field use these names, not NVML's.
 */
#ifndef GW_CLOCK_REASONS_H
#define GW_CLOCK_REASONS_H

enum {
    GW_REASON_GPU_IDLE = 0x1,
    GW_REASON_APPLICATIONS_CLOCKS_SETTING = 0x2,
    GW_REASON_SW_POWER_CAP = 0x4,
    GW_REASON_HW_SLOWDOWN = 0x8,
    GW_REASON_SYNC_BOOST = 0x10,
    GW_REASON_SW_THERMAL = 0x20,
    GW_REASON_HW_THERMAL = 0x40,
    GW_REASON_HW_POWER_BRAKE = 0x80,
    GW_REASON_DISPLAY_CLOCK_SETTING = 0x100,
};

#endif
