"""The --query-gpu field list the query benchmarks and the H200 comparison use: every field the
issue names, as nvidia-smi 580 spells them (aliases included), and gpuwatch's own GPM fields."""

NVSMI_FIELDS = (
    "timestamp,index,name,uuid,pci.bus_id,driver_version,utilization.gpu,utilization.memory,"
    "memory.total,memory.used,memory.free,memory.reserved,temperature.gpu,temperature.memory,"
    "power.draw,power.limit,enforced.power.limit,clocks.sm,clocks.mem,clocks.gr,clocks.max.sm,"
    "clocks.max.mem,clocks_event_reasons.active,clocks_event_reasons.gpu_idle,"
    "clocks_event_reasons.applications_clocks_setting,clocks_event_reasons.sw_power_cap,"
    "clocks_event_reasons.hw_slowdown,clocks_event_reasons.hw_thermal_slowdown,"
    "clocks_event_reasons.hw_power_brake_slowdown,clocks_event_reasons.sw_thermal_slowdown,"
    "clocks_event_reasons.sync_boost,pstate,fan.speed,pcie.link.gen.current,pcie.link.gen.max,"
    "pcie.link.width.current,pcie.link.width.max,ecc.errors.uncorrected.volatile.total")

GPM_FIELDS = "gpm.sm_active,gpm.sm_occupancy,gpm.tensor_active,gpm.dram_active"

# What a logging script typically asks every 100 ms (the shared traces' list).
LOG_FIELDS = ("timestamp,index,utilization.gpu,utilization.memory,memory.used,memory.total,"
              "temperature.gpu,power.draw,power.limit,clocks.sm,clocks_event_reasons.active,pstate")

if __name__ == "__main__":
    import sys
    print({"nvsmi": NVSMI_FIELDS, "gpm": GPM_FIELDS, "log": LOG_FIELDS}[sys.argv[1]])
