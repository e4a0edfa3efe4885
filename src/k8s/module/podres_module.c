/*
 * podres_module: gpuwatch-podres.so, the kubelet PodResources v1 client (podres_abi.h).
 *
 * One List call per gw_podres_module_list: a fresh channel to "unix:PATH" with insecure
 * credentials (the socket is local and root-owned, as for dcgm-exporter), one unary call through
 * grpc_call_start_batch with a deadline, the answer read with protobuf-c. A fresh channel each time
 * keeps gRPC's own reconnect backoff (up to two minutes) out of the way: gpuwatch's watcher
 * (pod_watch.c) decides when to retry. Built as a module so that only `serve --kubernetes` loads
 * gRPC's libraries.
 */
#include "k8s/podres_abi.h"

#include "api.pb-c.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gw_podres_module_abi(void);
int gw_podres_module_list(const char *socket_path, int deadline_ms, gw_podres_list *out, char *err,
                          size_t errlen);
void gw_podres_module_free(gw_podres_list *list);

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_grpc(void)
{
    grpc_init();
}

int gw_podres_module_abi(void)
{
    return GW_PODRES_ABI;
}

static char *dup_str(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        abort();
    return d;
}

static void add_device(gw_podres_list *out, size_t *cap, const V1__PodResources *p,
                       const V1__ContainerResources *c, const V1__ContainerDevices *d,
                       const char *id)
{
    if (out->n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        out->devs = realloc(out->devs, *cap * sizeof *out->devs);
        if (!out->devs)
            abort();
    }
    gw_podres_device *g = &out->devs[out->n++];
    g->pod = dup_str(p->name);
    g->namespace_ = dup_str(p->namespace_);
    g->container = dup_str(c->name);
    g->resource = dup_str(d->resource_name);
    g->device_id = dup_str(id);
}

static int decode(grpc_byte_buffer *msg, gw_podres_list *out, char *err, size_t errlen)
{
    grpc_byte_buffer_reader reader;
    if (!grpc_byte_buffer_reader_init(&reader, msg)) {
        snprintf(err, errlen, "the kubelet's answer could not be read");
        return -1;
    }
    grpc_slice all = grpc_byte_buffer_reader_readall(&reader);
    grpc_byte_buffer_reader_destroy(&reader);
    V1__ListPodResourcesResponse *r = v1__list_pod_resources_response__unpack(
        NULL, GRPC_SLICE_LENGTH(all), GRPC_SLICE_START_PTR(all));
    grpc_slice_unref(all);
    if (!r) {
        snprintf(err, errlen, "the kubelet's answer is not a v1 ListPodResourcesResponse");
        return -1;
    }
    size_t cap = 0;
    for (size_t i = 0; i < r->n_pod_resources; i++) {
        const V1__PodResources *p = r->pod_resources[i];
        for (size_t j = 0; j < p->n_containers; j++) {
            const V1__ContainerResources *c = p->containers[j];
            for (size_t k = 0; k < c->n_devices; k++) {
                const V1__ContainerDevices *d = c->devices[k];
                for (size_t m = 0; m < d->n_device_ids; m++)
                    add_device(out, &cap, p, c, d, d->device_ids[m]);
            }
        }
    }
    v1__list_pod_resources_response__free_unpacked(r, NULL);
    return 0;
}

/* What one unary call receives. */
typedef struct batch {
    grpc_metadata_array initial, trailing;
    grpc_byte_buffer *answer;
    grpc_status_code status;
    grpc_slice details;
} batch;

/* Starts the whole unary call (send the request, half-close, receive everything) as one batch. */
static grpc_call_error start_batch(grpc_call *call, grpc_byte_buffer *request, batch *b)
{
    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = request;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &b->initial;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &b->answer;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &b->trailing;
    ops[5].data.recv_status_on_client.status = &b->status;
    ops[5].data.recv_status_on_client.status_details = &b->details;
    return grpc_call_start_batch(call, ops, 6, b, NULL);
}

int gw_podres_module_list(const char *socket_path, int deadline_ms, gw_podres_list *out, char *err,
                          size_t errlen)
{
    memset(out, 0, sizeof *out);
    pthread_once(&init_once, init_grpc);
    char target[4200];
    snprintf(target, sizeof target, "unix:%s", socket_path);
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    grpc_channel *ch = grpc_channel_create(target, creds, NULL);
    grpc_channel_credentials_release(creds);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
    gpr_timespec deadline =
        gpr_time_add(gpr_now(GPR_CLOCK_REALTIME), gpr_time_from_millis(deadline_ms, GPR_TIMESPAN));
    grpc_slice method = grpc_slice_from_static_string("/v1.PodResourcesLister/List");
    grpc_call *call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, method, NULL,
                                               deadline, NULL);
    /* ListPodResourcesRequest is empty: its encoding is zero bytes. */
    grpc_slice empty = grpc_empty_slice();
    grpc_byte_buffer *request = grpc_raw_byte_buffer_create(&empty, 1);
    batch b = {.status = GRPC_STATUS_UNKNOWN, .details = grpc_empty_slice()};
    grpc_metadata_array_init(&b.initial);
    grpc_metadata_array_init(&b.trailing);
    int rc = -1;
    grpc_call_error ce = start_batch(call, request, &b);
    if (ce != GRPC_CALL_OK) {
        snprintf(err, errlen, "gRPC refused the call (error %d)", (int)ce);
    } else {
        /* The deadline ends the call; the extra second only guards against a stuck queue. */
        gpr_timespec wait = gpr_time_add(deadline, gpr_time_from_millis(1000, GPR_TIMESPAN));
        grpc_event ev = grpc_completion_queue_next(cq, wait, NULL);
        if (ev.type != GRPC_OP_COMPLETE) {
            grpc_call_cancel(call, NULL);
            grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
            snprintf(err, errlen, "no answer within %d ms", deadline_ms);
        } else if (b.status != GRPC_STATUS_OK) {
            char *text = grpc_slice_to_c_string(b.details);
            snprintf(err, errlen, "%s (gRPC status %d)", text[0] ? text : "call failed",
                     (int)b.status);
            gpr_free(text);
        } else if (!b.answer) {
            snprintf(err, errlen, "the kubelet answered no message");
        } else {
            rc = decode(b.answer, out, err, errlen);
        }
    }
    grpc_slice_unref(b.details);
    grpc_metadata_array_destroy(&b.initial);
    grpc_metadata_array_destroy(&b.trailing);
    grpc_byte_buffer_destroy(request);
    if (b.answer)
        grpc_byte_buffer_destroy(b.answer);
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cq);
    grpc_channel_destroy(ch);
    if (rc)
        gw_podres_module_free(out);
    return rc;
}

void gw_podres_module_free(gw_podres_list *list)
{
    for (size_t i = 0; i < list->n; i++) {
        gw_podres_device *d = &list->devs[i];
        free(d->pod);
        free(d->namespace_);
        free(d->container);
        free(d->resource);
        free(d->device_id);
    }
    free(list->devs);
    memset(list, 0, sizeof *list);
}
