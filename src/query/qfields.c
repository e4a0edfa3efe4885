/* The fields of `gpuwatch query --query-gpu` and their lookup (see query.h). */
#include "query/query.h"

#include "sampler/clock_reasons.h"
#include "util/gw_strdist.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define F(f)    GW_QS_FIELD, GW_F_##f
#define R(bit)  GW_QS_REASON_BIT, GW_F_CLOCKS_EVENT_REASONS, GW_QF_TEXT, GW_REASON_##bit
#define NOFIELD GW_F_COUNT

/* Names, aliases and units follow nvidia-smi 580; the descriptions are gpuwatch's. */
const gw_qfield gw_qfields[] = {
    {"timestamp", NULL, NULL, GW_QS_TIMESTAMP, NOFIELD, GW_QF_TEXT, 0, false,
     "When the values were read, in local time: \"YYYY/MM/DD HH:MM:SS.mmm\"."},
    {"driver_version", NULL, NULL, GW_QS_DRIVER, NOFIELD, GW_QF_TEXT, 0, false,
     "Version of the NVIDIA driver, e.g. 580.159.04."},
    {"count", NULL, NULL, GW_QS_COUNT, NOFIELD, GW_QF_INT, 0, false,
     "How many NVIDIA GPUs NVML sees on this machine."},
    {"name", "gpu_name", NULL, GW_QS_NAME, NOFIELD, GW_QF_TEXT, 0, false,
     "Product name of the GPU, e.g. NVIDIA H200."},
    {"uuid", "gpu_uuid", NULL, GW_QS_UUID, NOFIELD, GW_QF_TEXT, 0, false,
     "The GPU's unique, unchanging identifier (GPU-...). Stable across reboots, unlike index."},
    {"pci.bus_id", "gpu_bus_id", NULL, GW_QS_PCI_BUS_ID, NOFIELD, GW_QF_TEXT, 0, false,
     "PCI address of the GPU, domain:bus:device.function in hex (00000000:00:06.0)."},
    {"index", NULL, NULL, GW_QS_INDEX, NOFIELD, GW_QF_INT, 0, false,
     "NVML's zero-based number of the GPU. Not CUDA's order, and may change after a reboot."},
    {"pcie.link.gen.current", NULL, NULL, F(PCIE_GEN), GW_QF_INT, 0, false,
     "PCIe generation the link runs at now; an idle GPU may drop to a lower one."},
    {"pcie.link.gen.gpucurrent", NULL, NULL, F(PCIE_GEN), GW_QF_INT, 0, false,
     "Same as pcie.link.gen.current (the newer name)."},
    {"pcie.link.gen.max", NULL, NULL, F(PCIE_GEN_MAX), GW_QF_INT, 0, false,
     "Highest PCIe generation this GPU in this slot can reach. Read once."},
    {"pcie.link.width.current", NULL, NULL, F(PCIE_WIDTH), GW_QF_INT, 0, false,
     "Number of PCIe lanes in use now."},
    {"pcie.link.width.max", NULL, NULL, F(PCIE_WIDTH_MAX), GW_QF_INT, 0, false,
     "Largest number of PCIe lanes this GPU in this slot can use. Read once."},
    {"fan.speed", NULL, "%", F(FAN_PCT), GW_QF_PCT, 0, false,
     "Fan speed the driver asks for, in percent of the maximum. [N/A] on GPUs cooled by the "
     "chassis (most data-centre GPUs)."},
    {"pstate", NULL, NULL, F(PSTATE), GW_QF_PSTATE, 0, false,
     "Performance state, P0 (fastest) to P15 (slowest)."},
    {"clocks_event_reasons.active", "clocks_throttle_reasons.active", NULL, F(CLOCKS_EVENT_REASONS),
     GW_QF_HEX64, 0, false,
     "Bit mask of the reasons that hold the clocks below their maximum now (nvml.h "
     "nvmlClocksEventReasons); 0x0000000000000000 means none."},
    {"clocks_event_reasons.gpu_idle", "clocks_throttle_reasons.gpu_idle", NULL, R(GPU_IDLE), false,
     "Active when nothing runs on the GPU and its clocks drop to idle."},
    {"clocks_event_reasons.applications_clocks_setting",
     "clocks_throttle_reasons.applications_clocks_setting", NULL, R(APPLICATIONS_CLOCKS_SETTING),
     false, "Active when the clocks are capped by the applications clocks setting."},
    {"clocks_event_reasons.sw_power_cap", "clocks_throttle_reasons.sw_power_cap", NULL,
     R(SW_POWER_CAP), false,
     "Active when the driver lowers the clocks to keep power under the power limit."},
    {"clocks_event_reasons.hw_slowdown", "clocks_throttle_reasons.hw_slowdown", NULL,
     R(HW_SLOWDOWN), false,
     "Active when hardware halves the clocks or more, because of heat or a power brake."},
    {"clocks_event_reasons.hw_thermal_slowdown", "clocks_throttle_reasons.hw_thermal_slowdown",
     NULL, R(HW_THERMAL), false, "Active when hardware slows the GPU down because it is too hot."},
    {"clocks_event_reasons.hw_power_brake_slowdown",
     "clocks_throttle_reasons.hw_power_brake_slowdown", NULL, R(HW_POWER_BRAKE), false,
     "Active when an external power brake (e.g. the power supply) slows the GPU down."},
    {"clocks_event_reasons.sw_thermal_slowdown", "clocks_throttle_reasons.sw_thermal_slowdown",
     NULL, R(SW_THERMAL), false,
     "Active when the driver lowers the clocks because the GPU is above its maximum operating "
     "temperature."},
    {"clocks_event_reasons.sync_boost", "clocks_throttle_reasons.sync_boost", NULL, R(SYNC_BOOST),
     false, "Active when the GPU is held to the clocks of its sync boost group."},
    {"memory.total", NULL, "MiB", F(MEM_TOTAL_MIB), GW_QF_MIB, 0, false,
     "Memory on the board that software can see, in MiB."},
    {"memory.reserved", NULL, "MiB", F(MEM_RESERVED_MIB), GW_QF_MIB, 0, false,
     "Memory the driver and firmware keep for themselves, in MiB."},
    {"memory.used", NULL, "MiB", F(MEM_USED_MIB), GW_QF_MIB, 0, false,
     "Memory allocated by processes, in MiB (rounded up, as nvidia-smi does)."},
    {"memory.free", NULL, "MiB", F(MEM_FREE_MIB), GW_QF_MIB, 0, false,
     "Memory nobody holds, in MiB."},
    {"utilization.gpu", NULL, "%", F(UTIL_GPU_PCT), GW_QF_PCT, 0, false,
     "Share of the last sample period (1/6 s to 1 s) in which at least one kernel ran. 100 % "
     "does not mean the SMs are busy: see gpm.sm_active. [N/A] with MIG on."},
    {"utilization.memory", NULL, "%", F(UTIL_MEM_PCT), GW_QF_PCT, 0, false,
     "Share of the last sample period in which device memory was read or written."},
    {"ecc.errors.uncorrected.volatile.total", NULL, NULL, F(ECC_UNCORRECTED), GW_QF_INT, 0, false,
     "Uncorrectable ECC errors since the driver was loaded."},
    {"temperature.gpu", NULL, NULL, F(TEMP_GPU_C), GW_QF_INT, 0, false,
     "GPU core temperature in degrees C."},
    {"temperature.memory", NULL, NULL, F(TEMP_MEM_C), GW_QF_INT, 0, true,
     "HBM temperature in degrees C (N/A, without brackets, where the GPU has no sensor)."},
    {"power.draw", NULL, "W", F(POWER_DRAW_W), GW_QF_WATTS, 0, false,
     "Board power in watts: a one-second average on Ampere and newer GPUs."},
    {"power.limit", "gpu.power.requested_limit", "W", F(POWER_LIMIT_W), GW_QF_WATTS, 0, false,
     "Power limit set by software (nvidia-smi -pl), in watts."},
    {"enforced.power.limit", "gpu.power.current_limit", "W", F(POWER_ENFORCED_W), GW_QF_WATTS, 0,
     false, "Power limit in force now, the lowest of all limiters, in watts."},
    {"clocks.current.graphics", "clocks.gr", "MHz", F(CLOCK_GR_MHZ), GW_QF_MHZ, 0, false,
     "Graphics (shader) clock now."},
    {"clocks.current.sm", "clocks.sm", "MHz", F(CLOCK_SM_MHZ), GW_QF_MHZ, 0, false,
     "Streaming multiprocessor clock now."},
    {"clocks.current.memory", "clocks.mem", "MHz", F(CLOCK_MEM_MHZ), GW_QF_MHZ, 0, false,
     "Memory clock now."},
    {"clocks.max.sm", NULL, "MHz", F(CLOCK_MAX_SM_MHZ), GW_QF_MHZ, 0, false,
     "Highest SM clock the GPU is designed for. Read once."},
    {"clocks.max.memory", "clocks.max.mem", "MHz", F(CLOCK_MAX_MEM_MHZ), GW_QF_MHZ, 0, false,
     "Highest memory clock the GPU is designed for. Read once."},
    {"gpm.sm_active", NULL, "%", F(GPM_SM_ACTIVE_PCT), GW_QF_PCT2, 0, false,
     "gpuwatch: share of time the SMs had work, over the last 100 ms or more (GPM, Hopper and "
     "newer; [N/A] elsewhere). Low while utilization.gpu is high means kernels that fill few "
     "SMs."},
    {"gpm.sm_occupancy", NULL, "%", F(GPM_SM_OCCUPANCY_PCT), GW_QF_PCT2, 0, false,
     "gpuwatch: resident warps as a share of the SMs' capacity (GPM)."},
    {"gpm.tensor_active", NULL, "%", F(GPM_TENSOR_ACTIVE_PCT), GW_QF_PCT2, 0, false,
     "gpuwatch: share of time any tensor core pipe was busy (GPM)."},
    {"gpm.dram_active", NULL, "%", F(GPM_DRAM_ACTIVE_PCT), GW_QF_PCT2, 0, false,
     "gpuwatch: share of the peak DRAM bandwidth in use (GPM)."},
};

const size_t gw_qfield_count = sizeof gw_qfields / sizeof gw_qfields[0];

const gw_qfield *gw_qfield_find(const char *name)
{
    for (size_t i = 0; i < gw_qfield_count; i++) {
        const gw_qfield *f = &gw_qfields[i];
        if (strcmp(name, f->name) == 0 || (f->alias && strcmp(name, f->alias) == 0))
            return f;
    }
    return NULL;
}

/* The valid name closest to `name`, when it is within 3 edits. */
static const char *closest(const char *name)
{
    const char *best = NULL;
    int best_d = 4;
    for (size_t i = 0; i < gw_qfield_count; i++) {
        const char *names[2] = {gw_qfields[i].name, gw_qfields[i].alias};
        for (int k = 0; k < 2; k++) {
            int d = names[k] ? gw_edit_distance(name, names[k], 4) : 4;
            if (d < best_d) {
                best_d = d;
                best = names[k];
            }
        }
    }
    return best;
}

static gw_rc unknown_field(const char *name, gw_error *err)
{
    const char *near = closest(name);
    if (near)
        return gw_error_set(err, GW_E_USAGE,
                            "Field \"%s\" is not a valid field to query. Did you mean \"%s\"? "
                            "(gpuwatch query --help-query-gpu lists them)",
                            name, near);
    return gw_error_set(err, GW_E_USAGE,
                        "Field \"%s\" is not a valid field to query. "
                        "(gpuwatch query --help-query-gpu lists them)",
                        name);
}

gw_rc gw_qfields_parse(const char *list, const gw_qfield ***out, size_t *count, gw_error *err)
{
    *out = NULL;
    *count = 0;
    size_t cap = 0, n = 0;
    const gw_qfield **fields = NULL;
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char *name = xstrndup(p, len);
        const gw_qfield *f = gw_qfield_find(name);
        if (!f) {
            gw_rc rc = unknown_field(name, err);
            free(name);
            free(fields);
            return rc;
        }
        free(name);
        fields = xgrow(fields, &cap, n + 1, sizeof *fields);
        fields[n++] = f;
        if (!comma)
            break;
        p = comma + 1;
    }
    *out = fields;
    *count = n;
    return GW_OK;
}

uint64_t gw_qfields_sample_bits(const gw_qfield *const *fields, size_t count)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < count; i++)
        if (fields[i]->source == GW_QS_FIELD || fields[i]->source == GW_QS_REASON_BIT)
            bits |= GW_FIELD_BIT(fields[i]->field);
    return bits;
}

void gw_qfields_help(gw_buf *out)
{
    gw_buf_puts(out, "List of valid properties to query for the switch \"--query-gpu\":\n\n");
    for (size_t i = 0; i < gw_qfield_count; i++) {
        const gw_qfield *f = &gw_qfields[i];
        if (f->alias)
            gw_buf_printf(out, "\"%s\" or \"%s\"\n%s\n\n", f->name, f->alias, f->help);
        else
            gw_buf_printf(out, "\"%s\"\n%s\n\n", f->name, f->help);
    }
}
