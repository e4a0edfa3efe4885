/*
 * clock_reasons: the bits of GW_F_CLOCKS_EVENT_REASONS (gpu.csv's clocks_event_reasons.active),
 * the groups every reader decides with, and the one place a cell becomes a mask.
 * The field stores NVML's nvmlClocksEventReasons mask as read, so the bits are NVML's (checked
 * against nvml_abi.h in sampler/probe.c); readers of the field use these names, not NVML's.
 * No other file of src/ spells a reason bit as a number (scripts/check-layers.py, rule
 * throttle-bits): a reader that needs a new group adds it here.
 * Header only (static inline), so any layer above the sampler (health, top, logread, analysis,
 * chart) includes it without linking the sampler.
 */
#ifndef GW_CLOCK_REASONS_H
#define GW_CLOCK_REASONS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

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

/* The groups. Thermal: the GPU slows down because it is hot (SW or HW thermal slowdown). Power:
 * the clocks are held down for power (SW power cap, or the system's HW power brake). HW: the
 * hardware's own slowdowns (HW slowdown, HW power brake), the clock chart's "HW slowdown" band. */
#define GW_REASONS_THERMAL ((uint64_t)(GW_REASON_SW_THERMAL | GW_REASON_HW_THERMAL))
#define GW_REASONS_POWER   ((uint64_t)(GW_REASON_SW_POWER_CAP | GW_REASON_HW_POWER_BRAKE))
#define GW_REASONS_HW      ((uint64_t)(GW_REASON_HW_SLOWDOWN | GW_REASON_HW_POWER_BRAKE))

/* The mask of a clocks_event_reasons value (a sample's field or a series cell) as bits; 0 for
 * values no mask can have (absent NAN, negative, fractional or beyond 64 bits), so that garbage
 * never sets a reason. */
static inline uint64_t gw_reasons_of(double cell)
{
    if (!(cell >= 0 && cell < 18446744073709551616.0) || cell != floor(cell))
        return 0;
    return (uint64_t)cell;
}

/* True when the mask holds a thermal slowdown (SW or HW): the one definition of "thermal". */
static inline bool gw_reasons_thermal(uint64_t mask)
{
    return (mask & GW_REASONS_THERMAL) != 0;
}

/* True when the mask holds a power reason (SW power cap or HW power brake). */
static inline bool gw_reasons_power(uint64_t mask)
{
    return (mask & GW_REASONS_POWER) != 0;
}

/* True when a reason other than idle holds the clocks down (what `top` marks as throttled). */
static inline bool gw_reasons_slowed(uint64_t mask)
{
    return (mask & ~(uint64_t)GW_REASON_GPU_IDLE) != 0;
}

#endif
