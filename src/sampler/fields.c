/* The one field table: unit, source and CSV header of every field (see sample.h). */
#include "sample.h"

#include "nvml/nvml_abi.h"
#include "util/gw_fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

/* GPU fields: the NVML call, the unit NVML reports in (scale) and our CSV form; then, as designated
 * initialisers, every other name the field has (gw_field_info in sample.h). */
#define GPU(key, header, unit, style, dec, scale, call, ...)                                       \
    {                                                                                              \
        GW_FG_GPU, key, header, unit, style, dec, scale, call, __VA_ARGS__                         \
    }
#define PCT(key, header, dec, call, ...)                                                           \
    GPU(key, header, "%", GW_CSV_FIXED, dec, 1, call, __VA_ARGS__)
#define MIB_F(key, header, call, ...) GPU(key, header, "MiB", GW_CSV_UP, 0, MIB, call, __VA_ARGS__)
#define WATT(key, header, call, ...)  GPU(key, header, "W", GW_CSV_FIXED, 2, 1000, call, __VA_ARGS__)
#define WHOLE(key, header, unit, call, ...)                                                        \
    GPU(key, header, unit, GW_CSV_FIXED, 0, 1, call, __VA_ARGS__)
/* A dcgm-exporter series: name, HELP, scale (stored / scale = exported), rounding, counter. */
#define DCGM(name, help, ...) .dcgm = {name, help, __VA_ARGS__}
/* Host, job and process fields: read from /proc (nvml_scale 0) unless said otherwise. */
#define PROCFS(group, key, header, unit, style, dec, file, ...)                                    \
    {                                                                                              \
        group, key, header, unit, style, dec, 0, file, __VA_ARGS__                                 \
    }

const gw_field_info gw_fields[GW_F_TABLE_COUNT] = {
    [GW_F_UTIL_GPU_PCT] = PCT(
        "util_gpu", "utilization.gpu [%]", 0, "nvmlDeviceGetUtilizationRates", .csv_pos = 1,
        .help = "Share of the last sample period (1/6 s to 1 s) in which at least one kernel ran. "
                "100 % does not mean the SMs are busy: see gpm.sm_active. [N/A] with MIG on.",
        .dmon = "sm", DCGM("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", 1),
        .fake = "util_gpu", .json = "utilization_gpu_pct",
        .synonyms = "gpu_util gpu_utilization util_gpu utilization_gpu util utilization gpu_usage "
                    "gpu_load gpu_busy",
        .nvsmi_q = "Utilization/Gpu"),
    [GW_F_UTIL_MEM_PCT] =
        PCT("util_mem", "utilization.memory [%]", 0, "nvmlDeviceGetUtilizationRates", .csv_pos = 2,
            .help = "Share of the last sample period in which device memory was read or written.",
            .dmon = "mem", DCGM("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", 1),
            .fake = "util_mem", .json = "utilization_memory_pct",
            .synonyms = "mem_util memory_util util_mem utilization_memory mem_utilization "
                        "memory_utilization",
            .nvsmi_q = "Utilization/Memory"),
    [GW_F_MEM_TOTAL_MIB] = MIB_F(
        "mem_total", "memory.total [MiB]", "nvmlDeviceGetMemoryInfo_v2", .csv_pos = 4,
        .help = "Memory on the board that software can see, in MiB.", .json = "memory_total_mib",
        .synonyms = "mem_total memory_total total_memory gpu_mem_total vram_total fb_total",
        .no_stats = true, .nvsmi_q = "FB Memory Usage/Total"),
    [GW_F_MEM_USED_MIB] =
        MIB_F("mem_used", "memory.used [MiB]", "nvmlDeviceGetMemoryInfo_v2", .csv_pos = 3,
              .help = "Memory allocated by processes, in MiB (rounded up, as nvidia-smi does).",
              .dmon = "fb", DCGM("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", 1, 1),
              .fake = "mem_used_mib", .json = "memory_used_mib",
              .synonyms = "mem_used memory_used used_memory gpu_mem_used gpu_memory_used mem_usage "
                          "memory_usage vram_used fb_used",
              .nvsmi_q = "FB Memory Usage/Used"),
    [GW_F_MEM_FREE_MIB] = MIB_F(
        "mem_free", "memory.free [MiB]", "nvmlDeviceGetMemoryInfo_v2",
        .help = "Memory nobody holds, in MiB.",
        DCGM("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", 1, -1),
        .synonyms = "mem_free memory_free free_memory fb_free", .nvsmi_q = "FB Memory Usage/Free"),
    [GW_F_MEM_RESERVED_MIB] =
        MIB_F("mem_reserved", "memory.reserved [MiB]", "nvmlDeviceGetMemoryInfo_v2", .csv_pos = 15,
              .help = "Memory the driver and firmware keep for themselves, in MiB."),
    [GW_F_TEMP_GPU_C] = WHOLE(
        "temp_gpu", "temperature.gpu", "C", "nvmlDeviceGetTemperature", .csv_pos = 5,
        .help = "GPU core temperature in degrees C.", .dmon = "gtemp",
        DCGM("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", 1), .fake = "temp_c",
        .json = "temperature_c", .synonyms = "temp temperature gpu_temp gpu_temperature temp_gpu",
        .nvsmi_q = "Temperature/GPU Current Temp"),
    [GW_F_TEMP_MEM_C] = WHOLE(
        "temp_mem", "temperature.memory", "C", "nvmlDeviceGetFieldValues(NVML_FI_DEV_MEMORY_TEMP)",
        .help = "HBM temperature in degrees C (N/A, without brackets, where the GPU has no "
                "sensor).",
        .bare_na = true, .dmon = "mtemp", .fake = "mem_temp_c",
        .synonyms = "mem_temp memory_temp temp_mem", .nvsmi_q = "Temperature/Memory Current Temp"),
    [GW_F_POWER_DRAW_W] = WATT(
        "power_draw", "power.draw [W]", "nvmlDeviceGetPowerUsage", .csv_pos = 6,
        .help = "Board power in watts: a one-second average on Ampere and newer GPUs.",
        .dmon = "pwr", DCGM("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", 1), .fake = "power_w",
        .json = "power_draw_w", .synonyms = "power power_draw power_usage gpu_power",
        .nvsmi_q = "Power Readings/Power Draw|Power Readings/Average Power Draw|"
                   "GPU Power Readings/Power Draw|"
                   "GPU Power Readings/Average Power Draw|"
                   "GPU Power Readings/Instantaneous Power Draw"),
    [GW_F_POWER_LIMIT_W] =
        WATT("power_limit", "power.limit [W]", "nvmlDeviceGetPowerManagementLimit", .csv_pos = 7,
             .alias = "gpu.power.requested_limit",
             .help = "Power limit set by software (nvidia-smi -pl), in watts.",
             DCGM("DCGM_FI_DEV_POWER_MGMT_LIMIT", "Power management limit (in W).", 1),
             .json = "power_limit_w", .synonyms = "power_limit power_cap", .no_stats = true,
             .nvsmi_q = "Power Readings/Power Limit|"
                        "Power Readings/Current Power Limit|"
                        "GPU Power Readings/Current Power Limit"),
    [GW_F_POWER_ENFORCED_W] =
        WATT("power_enforced", "enforced.power.limit [W]", "nvmlDeviceGetEnforcedPowerLimit",
             .alias = "gpu.power.current_limit",
             .nvml = {GW_NVML_UINT, "nvmlDeviceGetEnforcedPowerLimit"},
             .help = "Power limit in force now, the lowest of all limiters, in watts."),
    [GW_F_CLOCK_SM_MHZ] = WHOLE(
        "clock_sm", "clocks.current.sm [MHz]", "MHz", "nvmlDeviceGetClockInfo(SM)", .csv_pos = 8,
        .alias = "clocks.sm", .help = "Streaming multiprocessor clock now.",
        DCGM("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", 1), .fake = "sm_clock_mhz",
        .json = "clocks_sm_mhz", .synonyms = "sm_clock clock_sm", .nvsmi_q = "Clocks/SM"),
    [GW_F_CLOCK_MEM_MHZ] =
        WHOLE("clock_mem", "clocks.current.memory [MHz]", "MHz", "nvmlDeviceGetClockInfo(MEM)",
              .csv_pos = 16, .alias = "clocks.mem", .help = "Memory clock now.", .dmon = "mclk",
              DCGM("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", 1),
              .fake = "mem_clock_mhz", .synonyms = "mem_clock memory_clock clock_mem",
              .nvsmi_q = "Clocks/Memory"),
    [GW_F_CLOCK_GR_MHZ] = WHOLE(
        "clock_gr", "clocks.current.graphics [MHz]", "MHz", "nvmlDeviceGetClockInfo(GRAPHICS)",
        .alias = "clocks.gr", .help = "Graphics (shader) clock now.", .dmon = "pclk",
        .fake = "gr_clock_mhz", .synonyms = "gr_clock graphics_clock gpu_clock core_clock",
        .nvsmi_q = "Clocks/Graphics"),
    [GW_F_CLOCK_MAX_SM_MHZ] =
        WHOLE("clock_max_sm", "clocks.max.sm [MHz]", "MHz", "nvmlDeviceGetMaxClockInfo(SM)",
              .help = "Highest SM clock the GPU is designed for. Read once."),
    [GW_F_CLOCK_MAX_MEM_MHZ] =
        WHOLE("clock_max_mem", "clocks.max.memory [MHz]", "MHz", "nvmlDeviceGetMaxClockInfo(MEM)",
              .alias = "clocks.max.mem",
              .help = "Highest memory clock the GPU is designed for. Read once."),
    [GW_F_CLOCKS_EVENT_REASONS] =
        GPU("clocks_event_reasons", "clocks_event_reasons.active", "", GW_CSV_HEX, 0, 1,
            "nvmlDeviceGetCurrentClocksEventReasons", .csv_pos = 9,
            .alias = "clocks_throttle_reasons.active",
            .help = "Bit mask of the reasons that hold the clocks below their maximum now (nvml.h "
                    "nvmlClocksEventReasons); 0x0000000000000000 means none.",
            .fake = "clocks_event_reasons", .json = "clocks_event_reasons", .no_stats = true),
    [GW_F_PSTATE] =
        GPU("pstate", "pstate", "", GW_CSV_PSTATE, 0, 1, "nvmlDeviceGetPerformanceState",
            .csv_pos = 10, .help = "Performance state, P0 (fastest) to P15 (slowest).",
            .fake = "pstate", .json = "pstate", .synonyms = "perf_state", .no_stats = true,
            .nvsmi_q = "/Performance State"),
    [GW_F_FAN_PCT] = PCT("fan", "fan.speed [%]", 0, "nvmlDeviceGetFanSpeed",
                         .help = "Fan speed the driver asks for, in percent of the maximum. [N/A] "
                                 "on GPUs cooled by the chassis (most data-centre GPUs).",
                         .nvml = {GW_NVML_UINT, "nvmlDeviceGetFanSpeed"}, .fake = "fan_pct",
                         .synonyms = "fan fan_speed", .nvsmi_q = "/Fan Speed"),
    [GW_F_PCIE_GEN] =
        WHOLE("pcie_gen", "pcie.link.gen.current", "", "nvmlDeviceGetCurrPcieLinkGeneration",
              .help = "PCIe generation the link runs at now; an idle GPU may drop to a lower one.",
              .nvml = {GW_NVML_UINT, "nvmlDeviceGetCurrPcieLinkGeneration"}),
    [GW_F_PCIE_GEN_MAX] =
        WHOLE("pcie_gen_max", "pcie.link.gen.max", "", "nvmlDeviceGetMaxPcieLinkGeneration",
              .help = "Highest PCIe generation this GPU in this slot can reach. Read once.",
              .nvml = {GW_NVML_UINT, "nvmlDeviceGetMaxPcieLinkGeneration"}),
    [GW_F_PCIE_WIDTH] =
        WHOLE("pcie_width", "pcie.link.width.current", "", "nvmlDeviceGetCurrPcieLinkWidth",
              .help = "Number of PCIe lanes in use now.",
              .nvml = {GW_NVML_UINT, "nvmlDeviceGetCurrPcieLinkWidth"}),
    [GW_F_PCIE_WIDTH_MAX] =
        WHOLE("pcie_width_max", "pcie.link.width.max", "", "nvmlDeviceGetMaxPcieLinkWidth",
              .help = "Largest number of PCIe lanes this GPU in this slot can use. Read once.",
              .nvml = {GW_NVML_UINT, "nvmlDeviceGetMaxPcieLinkWidth"}),
    [GW_F_ECC_UNCORRECTED] = WHOLE("ecc_uncorrected", "ecc.errors.uncorrected.volatile.total", "",
                                   "nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE)",
                                   .help = "Uncorrectable ECC errors since the driver was loaded.",
                                   .fake = "ecc_uncorrected"),
    [GW_F_ENERGY_MJ] = WHOLE("energy", "total_energy_consumption [mJ]", "mJ",
                             "nvmlDeviceGetTotalEnergyConsumption", .csv_pos = 17,
                             DCGM("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                                  "Total energy consumption since boot (in mJ).", 1, 0, true),
                             .synonyms = "energy", .no_stats = true),
    [GW_F_GPM_SM_ACTIVE_PCT] =
        PCT("gpm_sm_active", "gpm.sm_active [%]", 2, "nvmlGpmMetricsGet(SM_UTIL)", .csv_pos = 11,
            .help = "gpuwatch: share of time the SMs had work, over the last 100 ms or more (GPM, "
                    "Hopper and newer; [N/A] elsewhere). Low while utilization.gpu is high means "
                    "kernels that fill few SMs.",
            DCGM("DCGM_FI_PROF_SM_ACTIVE",
                 "The ratio of cycles an SM has at least 1 warp assigned.", 100),
            .gpm_metric = GWN_GPM_METRIC_SM_UTIL, .fake = "sm_active", .json = "sm_active_pct"),
    [GW_F_GPM_SM_OCCUPANCY_PCT] = PCT(
        "gpm_sm_occupancy", "gpm.sm_occupancy [%]", 2, "nvmlGpmMetricsGet(SM_OCCUPANCY)",
        .csv_pos = 12, .help = "gpuwatch: resident warps as a share of the SMs' capacity (GPM).",
        DCGM("DCGM_FI_PROF_SM_OCCUPANCY", "The ratio of number of warps resident on an SM.", 100),
        .gpm_metric = GWN_GPM_METRIC_SM_OCCUPANCY, .fake = "sm_occupancy",
        .json = "sm_occupancy_pct"),
    [GW_F_GPM_TENSOR_ACTIVE_PCT] =
        PCT("gpm_tensor_active", "gpm.tensor_active [%]", 2, "nvmlGpmMetricsGet(ANY_TENSOR_UTIL)",
            .csv_pos = 13, .help = "gpuwatch: share of time any tensor core pipe was busy (GPM).",
            DCGM("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                 "Ratio of cycles the tensor (HMMA) pipe is active.", 100),
            .gpm_metric = GWN_GPM_METRIC_ANY_TENSOR_UTIL, .fake = "tensor_active",
            .json = "tensor_active_pct"),
    [GW_F_GPM_DRAM_ACTIVE_PCT] =
        PCT("gpm_dram_active", "gpm.dram_active [%]", 2, "nvmlGpmMetricsGet(DRAM_BW_UTIL)",
            .csv_pos = 14, .help = "gpuwatch: share of the peak DRAM bandwidth in use (GPM).",
            DCGM("DCGM_FI_PROF_DRAM_ACTIVE",
                 "Ratio of cycles the device memory interface is active sending or receiving data.",
                 100),
            .gpm_metric = GWN_GPM_METRIC_DRAM_BW_UTIL, .fake = "dram_active",
            .json = "dram_active_pct"),
    [GW_F_GPM_GR_ACTIVE_PCT] = PCT(
        "gpm_gr_active", "gpm.graphics_active [%]", 2, "nvmlGpmMetricsGet(GRAPHICS_UTIL)",
        DCGM("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active.", 100),
        .gpm_metric = GWN_GPM_METRIC_GRAPHICS_UTIL, .fake = "util_gpu"),
    [GW_F_GPM_PCIE_TX_MIB_S] = GPU(
        "gpm_pcie_tx", "gpm.pcie_tx [MiB/s]", "MiB/s", GW_CSV_FIXED, 1, 1,
        "nvmlGpmMetricsGet(PCIE_TX_PER_SEC)", .csv_pos = 18,
        DCGM("DCGM_FI_PROF_PCIE_TX_BYTES",
             "The rate of data transmitted over the PCIe bus - including both protocol headers and "
             "data payloads - in bytes per second.",
             1.0 / MIB),
        .gpm_metric = GWN_GPM_METRIC_PCIE_TX_PER_SEC, .fake = "pcie_tx_mib_s"),
    [GW_F_GPM_PCIE_RX_MIB_S] = GPU(
        "gpm_pcie_rx", "gpm.pcie_rx [MiB/s]", "MiB/s", GW_CSV_FIXED, 1, 1,
        "nvmlGpmMetricsGet(PCIE_RX_PER_SEC)", .csv_pos = 19,
        DCGM("DCGM_FI_PROF_PCIE_RX_BYTES",
             "The rate of data received over the PCIe bus - including both protocol headers and "
             "data payloads - in bytes per second.",
             1.0 / MIB),
        .gpm_metric = GWN_GPM_METRIC_PCIE_RX_PER_SEC, .fake = "pcie_rx_mib_s"),
    [GW_F_GPM_NVLINK_TX_MIB_S] =
        GPU("gpm_nvlink_tx", "gpm.nvlink_tx [MiB/s]", "MiB/s", GW_CSV_FIXED, 1, 1,
            "nvmlGpmMetricsGet(NVLINK_TOTAL_TX_PER_SEC)", .csv_pos = 20,
            DCGM("DCGM_FI_PROF_NVLINK_TX_BYTES",
                 "The rate of data transmitted over NVLink, all links - including both protocol "
                 "headers and data payloads - in bytes per second.",
                 1.0 / MIB),
            .gpm_metric = GWN_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, .fake = "nvlink_tx_mib_s"),
    [GW_F_GPM_NVLINK_RX_MIB_S] = GPU(
        "gpm_nvlink_rx", "gpm.nvlink_rx [MiB/s]", "MiB/s", GW_CSV_FIXED, 1, 1,
        "nvmlGpmMetricsGet(NVLINK_TOTAL_RX_PER_SEC)", .csv_pos = 21,
        DCGM("DCGM_FI_PROF_NVLINK_RX_BYTES",
             "The rate of data received over NVLink, all links - including both protocol headers "
             "and data payloads - in bytes per second.",
             1.0 / MIB),
        .gpm_metric = GWN_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, .fake = "nvlink_rx_mib_s"),
    [GW_F_UTIL_ENC_PCT] = PCT(
        "util_enc", "utilization.encoder [%]", 0, "nvmlDeviceGetEncoderUtilization", .csv_pos = 22,
        .help = "Share of the last sample period in which the video encoder (NVENC) worked.",
        .dmon = "enc", DCGM("DCGM_FI_DEV_ENC_UTIL", "Encoder utilization (in %).", 1),
        .nvml = {GW_NVML_UINT_PERIOD, "nvmlDeviceGetEncoderUtilization"}, .fake = "enc_util"),
    [GW_F_UTIL_DEC_PCT] = PCT(
        "util_dec", "utilization.decoder [%]", 0, "nvmlDeviceGetDecoderUtilization", .csv_pos = 23,
        .help = "Share of the last sample period in which the video decoder (NVDEC) worked: "
                "video or image decoding in the input pipeline (DALI, torchvision.io on the GPU).",
        .dmon = "dec", DCGM("DCGM_FI_DEV_DEC_UTIL", "Decoder utilization (in %).", 1),
        .nvml = {GW_NVML_UINT_PERIOD, "nvmlDeviceGetDecoderUtilization"}, .fake = "dec_util"),
    [GW_F_PCIE_REPLAY_COUNTER] =
        WHOLE("pcie_replay_counter", "pcie.replay_counter", "", "nvmlDeviceGetPcieReplayCounter",
              .help = "gpuwatch: PCIe replays (the link resending packets it got wrong) since the "
                      "driver was loaded. A count that grows points at the slot, riser or cable.",
              DCGM("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "Total number of PCIe retries.", 1, 0, true),
              .nvml = {GW_NVML_UINT, "nvmlDeviceGetPcieReplayCounter"},
              .fake = "pcie_replay_counter", .no_stats = true),

    [GW_F_HOST_CPU_UTIL_PCT] = PROCFS(GW_FG_HOST, "cpu_util", "cpu.util [%]", "%", GW_CSV_FIXED, 1,
                                      "/proc/stat (deltas between ticks)"),
    [GW_F_HOST_MEM_USED_MIB] = PROCFS(GW_FG_HOST, "host_mem_used", "memory.used [MiB]", "MiB",
                                      GW_CSV_DOWN, 0, "/proc/meminfo MemTotal - MemAvailable"),
    [GW_F_HOST_MEM_TOTAL_MIB] =
        PROCFS(GW_FG_HOST, "host_mem_total", NULL, "MiB", GW_CSV_DOWN, 0, "/proc/meminfo MemTotal"),
    [GW_F_JOB_CPU_PCT] = PROCFS(GW_FG_JOB, "job_cpu", "job.cpu [%]", "%", GW_CSV_FIXED, 1,
                                "/proc/PID/stat utime + stime over the job tree"),
    [GW_F_JOB_RSS_MIB] = PROCFS(GW_FG_JOB, "job_rss", "job.rss [MiB]", "MiB", GW_CSV_FIXED, 1,
                                "/proc/PID/stat rss over the job tree"),
    [GW_F_JOB_PROCESSES] = PROCFS(GW_FG_JOB, "job_processes", "job.processes", "", GW_CSV_FIXED, 0,
                                  "/proc/PID/stat: processes in the job tree"),
    [GW_F_HOST_IOWAIT_PCT] = PROCFS(GW_FG_HOST, "cpu_iowait", "cpu.iowait [%]", "%", GW_CSV_FIXED,
                                    1, "/proc/stat iowait (deltas between ticks)"),
    [GW_F_HOST_STEAL_PCT] = PROCFS(GW_FG_HOST, "cpu_steal", "cpu.steal [%]", "%", GW_CSV_FIXED, 1,
                                   "/proc/stat steal (deltas between ticks)"),
    [GW_F_HOST_OTHERS_PCT] = PROCFS(GW_FG_HOST, "cpu_others", "cpu.others [%]", "%", GW_CSV_FIXED,
                                    1, "/proc/stat busy minus the job tree's CPU, % of all CPUs"),
    [GW_F_TRAIN_CPU_PCT] = PROCFS(
        GW_FG_JOB, "train_cpu", "job.train.cpu [%]", "%", GW_CSV_FIXED, 1,
        "/proc/PID/stat of the processes holding a GPU context: utime + stime, sum over the role"),
    [GW_F_TRAIN_CPU_MAX_PCT] =
        PROCFS(GW_FG_JOB, "train_cpu_max", "job.train.cpu_max [%]", "%", GW_CSV_FIXED, 1,
               "/proc/PID/stat of the processes holding a GPU context: utime + stime of the role's "
               "busiest member"),
    [GW_F_TRAIN_SATURATED] = PROCFS(
        GW_FG_JOB, "train_saturated", "job.train.saturated", "", GW_CSV_FIXED, 0,
        "/proc/PID/stat of the processes holding a GPU context: members at >= 85 % of a core"),
    [GW_F_TRAIN_PROCESSES] =
        PROCFS(GW_FG_JOB, "train_processes", "job.train.processes", "", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the processes holding a GPU context: members"),
    [GW_F_TRAIN_RUNNING_PCT] =
        PROCFS(GW_FG_JOB, "train_running", "job.train.running [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the processes holding a GPU context: state R, % of the members"),
    [GW_F_TRAIN_SLEEPING_PCT] = PROCFS(
        GW_FG_JOB, "train_sleeping", "job.train.sleeping [%]", "%", GW_CSV_FIXED, 0,
        "/proc/PID/stat of the processes holding a GPU context: state S or I, % of the members"),
    [GW_F_TRAIN_DISK_WAIT_PCT] =
        PROCFS(GW_FG_JOB, "train_disk_wait", "job.train.disk_wait [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the processes holding a GPU context: state D, % of the members"),
    [GW_F_WORKERS_CPU_PCT] = PROCFS(
        GW_FG_JOB, "workers_cpu", "job.workers.cpu [%]", "%", GW_CSV_FIXED, 1,
        "/proc/PID/stat of the their descendants without one: utime + stime, sum over the role"),
    [GW_F_WORKERS_CPU_MAX_PCT] =
        PROCFS(GW_FG_JOB, "workers_cpu_max", "job.workers.cpu_max [%]", "%", GW_CSV_FIXED, 1,
               "/proc/PID/stat of the their descendants without one: utime + stime of the role's "
               "busiest member"),
    [GW_F_WORKERS_SATURATED] =
        PROCFS(GW_FG_JOB, "workers_saturated", "job.workers.saturated", "", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the their descendants without one: members at >= 85 % of a core"),
    [GW_F_WORKERS_PROCESSES] =
        PROCFS(GW_FG_JOB, "workers_processes", "job.workers.processes", "", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the their descendants without one: members"),
    [GW_F_WORKERS_RUNNING_PCT] =
        PROCFS(GW_FG_JOB, "workers_running", "job.workers.running [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the their descendants without one: state R, % of the members"),
    [GW_F_WORKERS_SLEEPING_PCT] = PROCFS(
        GW_FG_JOB, "workers_sleeping", "job.workers.sleeping [%]", "%", GW_CSV_FIXED, 0,
        "/proc/PID/stat of the their descendants without one: state S or I, % of the members"),
    [GW_F_WORKERS_DISK_WAIT_PCT] =
        PROCFS(GW_FG_JOB, "workers_disk_wait", "job.workers.disk_wait [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the their descendants without one: state D, % of the members"),
    [GW_F_REST_CPU_PCT] =
        PROCFS(GW_FG_JOB, "rest_cpu", "job.rest.cpu [%]", "%", GW_CSV_FIXED, 1,
               "/proc/PID/stat of the the other job members: utime + stime, sum over the role"),
    [GW_F_REST_CPU_MAX_PCT] = PROCFS(
        GW_FG_JOB, "rest_cpu_max", "job.rest.cpu_max [%]", "%", GW_CSV_FIXED, 1,
        "/proc/PID/stat of the the other job members: utime + stime of the role's busiest member"),
    [GW_F_REST_SATURATED] =
        PROCFS(GW_FG_JOB, "rest_saturated", "job.rest.saturated", "", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the the other job members: members at >= 85 % of a core"),
    [GW_F_REST_PROCESSES] =
        PROCFS(GW_FG_JOB, "rest_processes", "job.rest.processes", "", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the the other job members: members"),
    [GW_F_REST_RUNNING_PCT] =
        PROCFS(GW_FG_JOB, "rest_running", "job.rest.running [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the the other job members: state R, % of the members"),
    [GW_F_REST_SLEEPING_PCT] =
        PROCFS(GW_FG_JOB, "rest_sleeping", "job.rest.sleeping [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the the other job members: state S or I, % of the members"),
    [GW_F_REST_DISK_WAIT_PCT] =
        PROCFS(GW_FG_JOB, "rest_disk_wait", "job.rest.disk_wait [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the the other job members: state D, % of the members"),
    [GW_F_PROC_PID] = {GW_FG_PROC, "pid", "pid", "", GW_CSV_FIXED, 0, 1,
                       "nvmlDeviceGet{Compute,Graphics}RunningProcesses .pid"},
    [GW_F_PROC_NAME] =
        PROCFS(GW_FG_PROC, "process_name", "process_name", "", GW_CSV_TEXT, 0, "/proc/PID/comm"),
    [GW_F_PROC_USED_MIB] = {GW_FG_PROC, "used_memory", "used_memory [MiB]", "MiB", GW_CSV_UP, 0,
                            MIB, "nvmlDeviceGet{Compute,Graphics}RunningProcesses .usedGpuMemory"},
    [GW_F_PROC_IN_JOB] = PROCFS(GW_FG_PROC, "in_job", "in_job", "", GW_CSV_FIXED, 0,
                                "/proc/PID/stat: the pid descends from the wrapped command"),
#define PROC_UTIL(key, header, member)                                                             \
    {                                                                                              \
        GW_FG_PROC, key, header, "%", GW_CSV_FIXED, 0, 1,                                          \
            "nvmlDeviceGetProcessUtilization ." member " (newest sample since the last read)"      \
    }
    [GW_F_PROC_SM_UTIL_PCT] = PROC_UTIL("proc_sm_util", "sm_util [%]", "smUtil"),
    [GW_F_PROC_MEM_UTIL_PCT] = PROC_UTIL("proc_mem_util", "mem_util [%]", "memUtil"),
    [GW_F_PROC_ENC_UTIL_PCT] = PROC_UTIL("proc_enc_util", "enc_util [%]", "encUtil"),
    [GW_F_PROC_DEC_UTIL_PCT] = PROC_UTIL("proc_dec_util", "dec_util [%]", "decUtil"),
};

/* 2^52: counters and masks are exact in a double below it; NVML's sentinels are above. */
#define EXACT 4503599627370495.0

/* The bounds of every GPU field (see sample.h): what NVML can report, with room for rounding.
 * Energy: 1e14 mJ is 4.5 years at 700 W since the driver loaded; NVML's blank sentinels
 * (2^47 = 1.407e14, 2^63 - 14) lie above it. */
const gw_field_bounds gw_field_bounds_of[GW_F_COUNT] = {
    [GW_F_UTIL_GPU_PCT] = {0, 100},
    [GW_F_UTIL_MEM_PCT] = {0, 100},
    [GW_F_MEM_TOTAL_MIB] = {1, 1e9}, /* a capacity of 0 divides into infinity */
    [GW_F_MEM_USED_MIB] = {0, 1e9},
    [GW_F_MEM_FREE_MIB] = {0, 1e9},
    [GW_F_MEM_RESERVED_MIB] = {0, 1e9},
    [GW_F_TEMP_GPU_C] = {0, 299},
    [GW_F_TEMP_MEM_C] = {1, 299}, /* the field value reads 0 where there is no sensor */
    [GW_F_POWER_DRAW_W] = {0, 10000},
    [GW_F_POWER_LIMIT_W] = {1, 10000},
    [GW_F_POWER_ENFORCED_W] = {1, 10000},
    [GW_F_CLOCK_SM_MHZ] = {1, 99999},
    [GW_F_CLOCK_MEM_MHZ] = {1, 99999},
    [GW_F_CLOCK_GR_MHZ] = {1, 99999},
    [GW_F_CLOCK_MAX_SM_MHZ] = {1, 99999},
    [GW_F_CLOCK_MAX_MEM_MHZ] = {1, 99999},
    [GW_F_CLOCKS_EVENT_REASONS] = {0, EXACT},
    [GW_F_PSTATE] = {0, 15},
    [GW_F_FAN_PCT] = {0, 200},
    [GW_F_PCIE_GEN] = {0, 32},
    [GW_F_PCIE_GEN_MAX] = {0, 32},
    [GW_F_PCIE_WIDTH] = {0, 64},
    [GW_F_PCIE_WIDTH_MAX] = {0, 64},
    [GW_F_ECC_UNCORRECTED] = {0, EXACT},
    [GW_F_ENERGY_MJ] = {0, 1e14},
    [GW_F_GPM_SM_ACTIVE_PCT] = {0, 100.5}, /* GPM ratios overshoot 100 by rounding */
    [GW_F_GPM_SM_OCCUPANCY_PCT] = {0, 100.5},
    [GW_F_GPM_TENSOR_ACTIVE_PCT] = {0, 100.5},
    [GW_F_GPM_DRAM_ACTIVE_PCT] = {0, 100.5},
    [GW_F_GPM_GR_ACTIVE_PCT] = {0, 100.5},
    [GW_F_GPM_PCIE_TX_MIB_S] = {0, 1e7}, /* MiB/s: PCIe 6.0 x16 moves about 1.2e5 */
    [GW_F_GPM_PCIE_RX_MIB_S] = {0, 1e7},
    [GW_F_GPM_NVLINK_TX_MIB_S] = {0, 1e8}, /* MiB/s: an H200's 18 links move about 8.6e5 */
    [GW_F_GPM_NVLINK_RX_MIB_S] = {0, 1e8},
    [GW_F_UTIL_ENC_PCT] = {0, 100},
    [GW_F_UTIL_DEC_PCT] = {0, 100},
    [GW_F_PCIE_REPLAY_COUNTER] = {0, 4294967294.0}, /* an unsigned int; all bits set is no count */
};

/* The GPU fields whose row has `has(row)`. */
static uint64_t fields_where(bool (*has)(const gw_field_info *))
{
    uint64_t bits = 0;
    for (int f = 0; f < GW_F_COUNT; f++)
        if (has(&gw_fields[f]))
            bits |= GW_FIELD_BIT(f);
    return bits;
}

static bool in_gpu_csv(const gw_field_info *fi)
{
    return fi->csv_pos > 0;
}

static bool is_gpm(const gw_field_info *fi)
{
    return fi->gpm_metric != 0;
}

static bool in_view(const gw_field_info *fi)
{
    return fi->json != NULL;
}

uint64_t gw_fields_record(void)
{
    return fields_where(in_gpu_csv);
}

uint64_t gw_fields_gpm(void)
{
    return fields_where(is_gpm);
}

uint64_t gw_fields_view(void)
{
    return fields_where(in_view);
}

bool gw_field_plausible(gw_field f, double v)
{
    if ((unsigned)f >= GW_F_COUNT)
        return false;
    return v >= gw_field_bounds_of[f].lo && v <= gw_field_bounds_of[f].hi;
}

/* v with `decimals` digits, through the formatter: "" (absent) when it is no number to show. */
static int csv_fixed(char *buf, size_t len, double v, int decimals)
{
    gw_fmt_fixed(buf, len, v, decimals, 0, "");
    return len ? (int)strlen(buf) : 0;
}

int gw_field_format_csv(gw_field f, double v, char *buf, size_t len)
{
    const gw_field_info *fi = &gw_fields[f];
    switch (fi->csv_style) {
    case GW_CSV_HEX:
        return snprintf(buf, len, "0x%016llx", (unsigned long long)v);
    case GW_CSV_PSTATE:
        return snprintf(buf, len, "P%d", (int)v);
    case GW_CSV_UP:
        /* nvidia-smi rounds MiB up (used 13290.81 MiB shows as 13291, measured on an H200) */
        return csv_fixed(buf, len, ceil(v), 0);
    case GW_CSV_DOWN:
        return csv_fixed(buf, len, floor(v), 0);
    case GW_CSV_FIXED:
    case GW_CSV_TEXT:
        break;
    }
    return csv_fixed(buf, len, v, fi->csv_decimals);
}

const char *gw_field_name(gw_field f, char *buf, size_t size)
{
    const char *h = gw_fields[f].csv_header ? gw_fields[f].csv_header : gw_fields[f].key;
    snprintf(buf, size, "%.*s", (int)strcspn(h, " ["), h);
    return buf;
}

int gw_field_by_key(gw_field_group group, const char *key)
{
    for (int f = 0; f < GW_F_TABLE_COUNT; f++) {
        const char *h = gw_fields[f].csv_header;
        if (gw_fields[f].group != group || !h)
            continue;
        size_t n = strcspn(h, " [");
        if (strlen(key) == n && strncmp(h, key, n) == 0)
            return f;
        if (gw_fields[f].alias && strcmp(gw_fields[f].alias, key) == 0)
            return f;
    }
    return -1;
}

double gw_host_value(const gw_host_sample *h, gw_field f)
{
    switch (f) {
    case GW_F_HOST_CPU_UTIL_PCT:
        return h->cpu_util_pct;
    case GW_F_HOST_MEM_USED_MIB:
        return h->mem_used_mib;
    case GW_F_HOST_MEM_TOTAL_MIB:
        return h->mem_total_mib;
    case GW_F_JOB_CPU_PCT:
        return h->job_cpu_pct;
    case GW_F_JOB_RSS_MIB:
        return h->job_rss_mib;
    case GW_F_JOB_PROCESSES:
        return h->job_processes;
    case GW_F_HOST_IOWAIT_PCT:
        return h->iowait_pct;
    case GW_F_HOST_STEAL_PCT:
        return h->steal_pct;
    case GW_F_HOST_OTHERS_PCT:
        return h->others_pct;
    default:
        break;
    }
    if (f < GW_F_ROLE_FIRST || f >= GW_F_ROLE(GW_ROLE_COUNT, 0))
        return NAN;
    const gw_role_sample *r = &h->role[(f - GW_F_ROLE_FIRST) / GW_F_ROLE_FIELDS];
    const double v[GW_F_ROLE_FIELDS] = {r->cpu_pct,      r->cpu_max_pct, r->saturated,
                                        r->processes,    r->running_pct, r->sleeping_pct,
                                        r->disk_wait_pct};
    return v[(f - GW_F_ROLE_FIRST) % GW_F_ROLE_FIELDS];
}

double gw_proc_value(const gw_gpu_process *p, gw_field f)
{
    switch (f) {
    case GW_F_PROC_PID:
        return p->pid;
    case GW_F_PROC_USED_MIB:
        return p->used_valid ? p->used_mib : NAN;
    case GW_F_PROC_IN_JOB:
        return p->in_job ? 1 : 0;
    case GW_F_PROC_SM_UTIL_PCT:
        return p->util_valid ? p->sm_util_pct : NAN;
    case GW_F_PROC_MEM_UTIL_PCT:
        return p->util_valid ? p->mem_util_pct : NAN;
    case GW_F_PROC_ENC_UTIL_PCT:
        return p->util_valid ? p->enc_util_pct : NAN;
    case GW_F_PROC_DEC_UTIL_PCT:
        return p->util_valid ? p->dec_util_pct : NAN;
    default:
        return NAN;
    }
}
