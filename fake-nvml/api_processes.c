/* NVML entry points for the processes using a GPU; see fake_api.h.
 *
 * NVML's size protocol: *count holds the room in infos on entry and the number of processes on
 * return; with too little room (including 0 and a NULL buffer) the call sets *count to the number
 * needed and returns INSUFFICIENT_SIZE; with no processes it succeeds with *count 0. */
#include "fake_api.h"

#include "procscan.h"

#include <unistd.h>

/* Not on a MIG instance: NVML's "invalid instance id". */
#define NO_INSTANCE 0xFFFFFFFFu

/* Whether entry p is listed at scenario time t, and as which pid. A "child" entry is listed only
 * once the caller has a child; a fixed pid is listed as written, 0 included (Windows drivers
 * report 0, and gpuwatch must cope). */
static bool listed(const fake_process *p, double t, bool graphics, pid_t child, unsigned int *pid)
{
    if (p->graphics != graphics || t < p->from_s || t >= p->to_s || (p->child && child == 0))
        return false;
    *pid = p->child ? (unsigned int)child : p->pid;
    return true;
}

/* The common start of a process call begun in c: a NULL count is an invalid argument (the call
 * ended), and *child is the caller's first child when the device lists one (0: none yet). */
static gwn_return with_child(fake_call *c, const unsigned int *count, pid_t *child)
{
    if (!count)
        return fake_end(c, GWN_ERROR_INVALID_ARGUMENT);
    if (c->dev->has_child_process) {
        fake_pause(c);
        *child = fake_first_child(getpid());
        return fake_resume(c);
    }
    return GWN_SUCCESS;
}

static gwn_return list_processes(fake_call_id id, gwn_device device, bool graphics, bool v1,
                                 unsigned int *count, void *infos)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, id, device, FG_PROCESSES);
    pid_t child = 0;
    r = r ? r : with_child(&c, count, &child);
    if (r)
        return r;
    const fake_process *procs = c.dev->processes;
    unsigned int pid, n = 0;
    for (size_t i = 0; i < c.dev->nprocesses; i++)
        n += listed(&procs[i], c.t, graphics, child, &pid);
    if (n > 0 && (!infos || *count < n)) {
        *count = n;
        return fake_end(&c, GWN_ERROR_INSUFFICIENT_SIZE);
    }
    size_t k = 0;
    for (size_t i = 0; i < c.dev->nprocesses; i++) {
        if (!listed(&procs[i], c.t, graphics, child, &pid))
            continue;
        if (v1)
            ((gwn_process_info_v1 *)infos)[k++] =
                (gwn_process_info_v1){.pid = pid, .usedGpuMemory = procs[i].used};
        else
            ((gwn_process_info *)infos)[k++] = (gwn_process_info){.pid = pid,
                                                                  .usedGpuMemory = procs[i].used,
                                                                  .gpuInstanceId = NO_INSTANCE,
                                                                  .computeInstanceId = NO_INSTANCE};
    }
    *count = n;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetComputeRunningProcesses_v3(gwn_device device, unsigned int *count,
                                                   void *infos)
{
    return list_processes(FC_nvmlDeviceGetComputeRunningProcesses_v3, device, false, false, count,
                          infos);
}

gwn_return nvmlDeviceGetComputeRunningProcesses_v2(gwn_device device, unsigned int *count,
                                                   void *infos)
{
    return list_processes(FC_nvmlDeviceGetComputeRunningProcesses_v2, device, false, false, count,
                          infos);
}

gwn_return nvmlDeviceGetComputeRunningProcesses(gwn_device device, unsigned int *count, void *infos)
{
    return list_processes(FC_nvmlDeviceGetComputeRunningProcesses, device, false, true, count,
                          infos);
}

gwn_return nvmlDeviceGetGraphicsRunningProcesses_v3(gwn_device device, unsigned int *count,
                                                    void *infos)
{
    return list_processes(FC_nvmlDeviceGetGraphicsRunningProcesses_v3, device, true, false, count,
                          infos);
}

gwn_return nvmlDeviceGetGraphicsRunningProcesses_v2(gwn_device device, unsigned int *count,
                                                    void *infos)
{
    return list_processes(FC_nvmlDeviceGetGraphicsRunningProcesses_v2, device, true, false, count,
                          infos);
}

gwn_return nvmlDeviceGetGraphicsRunningProcesses(gwn_device device, unsigned int *count,
                                                 void *infos)
{
    return list_processes(FC_nvmlDeviceGetGraphicsRunningProcesses, device, true, true, count,
                          infos);
}

gwn_return nvmlDeviceGetProcessUtilization(gwn_device device,
                                           gwn_process_utilization_sample *samples,
                                           unsigned int *count, unsigned long long last_seen_us)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetProcessUtilization, device, FG_PROCESSES);
    pid_t child = 0;
    r = r ? r : with_child(&c, count, &child);
    if (r)
        return r;
    unsigned long long now_us = c.t > 0 ? (unsigned long long)(c.t * 1e6) : 0;
    unsigned int pid, n = 0;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (size_t i = 0; i < c.dev->nprocesses; i++) {
            const fake_process *p = &c.dev->processes[i];
            if (!listed(p, c.t, p->graphics, child, &pid) || now_us <= last_seen_us ||
                p->util[0] + p->util[1] + p->util[2] + p->util[3] <= 0)
                continue;
            if (pass == 1)
                samples[n] = (gwn_process_utilization_sample){.pid = pid,
                                                              .timeStamp = now_us,
                                                              .smUtil = (unsigned int)p->util[0],
                                                              .memUtil = (unsigned int)p->util[1],
                                                              .encUtil = (unsigned int)p->util[2],
                                                              .decUtil = (unsigned int)p->util[3]};
            n++;
        }
        if (pass == 0 && n == 0)
            return fake_end(&c, GWN_ERROR_NOT_FOUND);
        if (pass == 0 && !samples) {
            *count = n;
            return fake_end(&c, GWN_SUCCESS);
        }
        if (pass == 0 && *count < n) {
            *count = n;
            return fake_end(&c, GWN_ERROR_INSUFFICIENT_SIZE);
        }
    }
    *count = n;
    return fake_end(&c, GWN_SUCCESS);
}
