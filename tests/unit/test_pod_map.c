/* Unit tests for src/k8s/pod_watch.c's mapping of the kubelet's device ids to GPUs
 * (gw_pod_map_build, gw_pod_map_only): the id forms of the NVIDIA device plugin, the resources
 * that count, duplicates, and GPUs that are not on this node. */
#include "test_helpers.h"

#include "k8s/pod_watch.h"

#define U0 "GPU-5e7a0000-0000-0000-0000-000000000000"
#define U1 "GPU-5e7a0000-0000-0000-0000-000000000001"

static const char *const uuids[] = {U0, U1};

static gw_podres_device dev(const char *pod, const char *ns, const char *container,
                            const char *resource, const char *id)
{
    return (gw_podres_device){.pod = (char *)pod,
                              .namespace_ = (char *)ns,
                              .container = (char *)container,
                              .resource = (char *)resource,
                              .device_id = (char *)id};
}

static void assert_alloc(const gw_pod_alloc *a, unsigned gpu, const char *pod, const char *ns,
                         const char *container)
{
    assert_non_null(a);
    assert_int_equal(a->dev, gpu);
    assert_string_equal(a->pod, pod);
    assert_string_equal(a->namespace_, ns);
    assert_string_equal(a->container, container);
}

static void test_whole_gpus(void **state)
{
    (void)state;
    gw_podres_device d[] = {dev("b", "ml", "t", "nvidia.com/gpu", U1),
                            dev("a", "ml", "t", "nvidia.com/gpu", U0)};
    gw_podres_list l = {2, d};
    gw_pod_map m = {0};
    gw_pod_map_build(&l, uuids, 2, NULL, &m);
    assert_int_equal(m.n, 2);
    assert_alloc(&m.allocs[0], 0, "a", "ml", "t"); /* ordered by GPU */
    assert_alloc(&m.allocs[1], 1, "b", "ml", "t");
    assert_alloc(gw_pod_map_only(&m, 0), 0, "a", "ml", "t");
    gw_pod_map_free(&m);
    assert_int_equal(m.n, 0);
    assert_null(m.allocs);
}

static void test_shared_and_mig_ids(void **state)
{
    (void)state;
    gw_podres_device d[] = {
        /* time-slicing replicas of GPU 0 in two pods */
        dev("nb-b", "lab", "j", "nvidia.com/gpu", U0 "::1"),
        dev("nb-a", "lab", "j", "nvidia.com/gpu", U0 "::0"),
        /* two MIG devices (old id form) of GPU 1 in one container: one holder */
        dev("inf", "srv", "triton", "nvidia.com/mig-1g.18gb", "MIG-" U1 "/1/0"),
        dev("inf", "srv", "triton", "nvidia.com/mig-1g.18gb", "MIG-" U1 "/2/0"),
        /* not counted: another resource, the current MIG form (no parent without NVML's list), a
         * GPU of another node, an id too long to be a UUID */
        dev("x", "ml", "c", "example.com/fpga", U0),
        dev("y", "ml", "c", "nvidia.com/mig-1g.18gb", "MIG-0b3e0000-0000-0000-0000-000000000000"),
        dev("z", "ml", "c", "nvidia.com/gpu", "GPU-elsewhere"),
        dev("w", "ml", "c", "nvidia.com/gpu",
            "GPU-0123456789012345678901234567890123456789012345678901234567890123456789012345678"
            "90123456789012345678901234567890123456789"),
    };
    gw_podres_list l = {sizeof d / sizeof d[0], d};
    gw_pod_map m = {0};
    gw_pod_map_build(&l, uuids, 2, NULL, &m);
    assert_int_equal(m.n, 3);
    assert_alloc(&m.allocs[0], 0, "nb-a", "lab", "j");
    assert_alloc(&m.allocs[1], 0, "nb-b", "lab", "j");
    assert_alloc(&m.allocs[2], 1, "inf", "srv", "triton");
    assert_null(gw_pod_map_only(&m, 0)); /* two holders: no single pod to label with */
    assert_alloc(gw_pod_map_only(&m, 1), 1, "inf", "srv", "triton");
    /* Built again (the next answer): the old holders are replaced, not added to. */
    gw_podres_list none = {0, NULL};
    gw_pod_map_build(&none, uuids, 2, NULL, &m);
    assert_int_equal(m.n, 0);
    assert_null(gw_pod_map_only(&m, 1));
    gw_pod_map_free(&m);
}

static void test_mig_ids_through_nvml_table(void **state)
{
    (void)state;
    /* "MIG-<uuid>" names no parent: the sampler's MIG list (from NVML) does. */
    static const char *const mig_uuids[] = {"MIG-0b3e0000-0000-0000-0000-000000000000",
                                            "MIG-0b3e0000-0000-0000-0000-000000000001"};
    static const unsigned mig_dev[] = {1, 0};
    gw_pod_migs migs = {2, mig_uuids, mig_dev};
    gw_podres_device d[] = {
        dev("a", "ml", "c", "nvidia.com/mig-3g.71gb", "MIG-0b3e0000-0000-0000-0000-000000000000"),
        dev("b", "ml", "c", "nvidia.com/mig-3g.71gb", "MIG-0b3e0000-0000-0000-0000-000000000001"),
        dev("c", "ml", "c", "nvidia.com/mig-3g.71gb", "MIG-0b3e0000-0000-0000-0000-00000000000f"),
    };
    gw_podres_list l = {3, d};
    gw_pod_map m = {0};
    gw_pod_map_build(&l, uuids, 2, &migs, &m);
    assert_int_equal(m.n, 2); /* c's MIG device is not on this node */
    assert_alloc(gw_pod_map_only(&m, 0), 0, "b", "ml", "c");
    assert_alloc(gw_pod_map_only(&m, 1), 1, "a", "ml", "c");
    /* a parent beyond the GPUs given is no GPU */
    static const unsigned far[] = {7, 7};
    gw_pod_migs bad = {2, mig_uuids, far};
    gw_pod_map_build(&l, uuids, 2, &bad, &m);
    assert_int_equal(m.n, 0);
    gw_pod_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_gpus),
        cmocka_unit_test(test_shared_and_mig_ids),
        cmocka_unit_test(test_mig_ids_through_nvml_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
