/* nvml.c - GPU clocks, PCIe link and driver version from NVML, loaded at run time with dlopen.
 *
 * ringbench must build and run where no NVIDIA driver is installed (CI, the CPU reference backend),
 * so NVML is never linked: libnvidia-ml.so.1 is opened when present and its absence is an answer
 * ("available = 0" with the reason), not an error. On WSL2 the library lives in /usr/lib/wsl/lib
 * and several queries (PCIe link) may return NOT_SUPPORTED; those values stay -1.
 *
 * The few prototypes used are declared here, from NVML's documented C API, because nvml.h is not
 * installed on every build machine. Return codes are nvmlReturn_t, an int enum: 0 is success.
 * Exercised by tests/test_env.c, which checks the invariants of the answer on any machine.
 */
#define _POSIX_C_SOURCE 200809L

#include "env.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_DRIVER_VERSION_LEN 80 /* NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE */

typedef struct nvml_device_st *nvml_device;

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_shutdown_fn)(void);
typedef const char *(*nvml_error_string_fn)(int result);
typedef int (*nvml_driver_version_fn)(char *version, unsigned int length);
typedef int (*nvml_handle_by_bus_id_fn)(const char *bus_id, nvml_device *device);
typedef int (*nvml_clock_fn)(nvml_device device, int type, unsigned int *mhz);
typedef int (*nvml_uint_fn)(nvml_device device, unsigned int *value);

/* The library and the entry points found in it; any may be NULL except lib once loaded. */
typedef struct nvml_api {
    void *lib;
    nvml_init_fn init;
    nvml_shutdown_fn shutdown;
    nvml_error_string_fn error_string;
    nvml_driver_version_fn driver_version;
    nvml_handle_by_bus_id_fn handle_by_bus_id;
    nvml_clock_fn clock_info;
    nvml_uint_fn pcie_gen, pcie_width, pcie_gen_max, pcie_width_max;
} nvml_api;

/* Formats into out->reason. A reason longer than the field is cut: that is the intent, and going
 * through vsnprintf says so to gcc's -Wformat-truncation as well. */
static void nvml_set_reason(env_nvml *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof out->reason, fmt, ap);
    va_end(ap);
}

/* Writes "what failed: NVML's words (code)" into out->reason. */
static void nvml_reason(env_nvml *out, const nvml_api *api, const char *what, int rc)
{
    const char *words = api->error_string != NULL ? api->error_string(rc) : NULL;
    nvml_set_reason(out, "%s failed: %s (%d)", what, words != NULL ? words : "NVML error", rc);
}

/* Opens the library and looks up every symbol. Returns 0, or -1 with out->reason set. */
static int nvml_load(nvml_api *api, env_nvml *out)
{
    const char *first_error;
    char err[ENV_STR];

    api->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (api->lib == NULL) {
        /* Keep the first dlerror: it names the versioned library that a driver install provides;
         * the unversioned name exists only with development packages. */
        first_error = dlerror();
        snprintf(err, sizeof err, "%s", first_error != NULL ? first_error : "unknown dlopen error");
        api->lib = dlopen("libnvidia-ml.so", RTLD_NOW | RTLD_LOCAL);
    }
    if (api->lib == NULL) {
        nvml_set_reason(out, "libnvidia-ml.so.1 not found: %s", err);
        return -1;
    }
    /* POSIX guarantees that a dlsym result converts to a function pointer; C11 leaves it to the
     * implementation, and glibc/gcc define it. */
    api->init = (nvml_init_fn)dlsym(api->lib, "nvmlInit_v2");
    api->shutdown = (nvml_shutdown_fn)dlsym(api->lib, "nvmlShutdown");
    api->error_string = (nvml_error_string_fn)dlsym(api->lib, "nvmlErrorString");
    api->driver_version = (nvml_driver_version_fn)dlsym(api->lib, "nvmlSystemGetDriverVersion");
    api->handle_by_bus_id = (nvml_handle_by_bus_id_fn)dlsym(api->lib, "nvmlDeviceGetHandleByPciBusId_v2");
    api->clock_info = (nvml_clock_fn)dlsym(api->lib, "nvmlDeviceGetClockInfo");
    api->pcie_gen = (nvml_uint_fn)dlsym(api->lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    api->pcie_width = (nvml_uint_fn)dlsym(api->lib, "nvmlDeviceGetCurrPcieLinkWidth");
    api->pcie_gen_max = (nvml_uint_fn)dlsym(api->lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    api->pcie_width_max = (nvml_uint_fn)dlsym(api->lib, "nvmlDeviceGetMaxPcieLinkWidth");
    if (api->init == NULL || api->shutdown == NULL || api->handle_by_bus_id == NULL) {
        nvml_set_reason(out, "libnvidia-ml lacks nvmlInit_v2, nvmlShutdown or "
                             "nvmlDeviceGetHandleByPciBusId_v2");
        return -1;
    }
    return 0;
}

/* Returns the value of an unsigned NVML query as an int, or -1 when the entry point is missing, the
 * call fails (NOT_SUPPORTED is common on WSL2) or the value does not fit. */
static int nvml_uint(nvml_uint_fn fn, nvml_device dev)
{
    unsigned int v = 0;
    if (fn == NULL || fn(dev, &v) != NVML_SUCCESS || v > INT_MAX)
        return -1;
    return (int)v;
}

static int nvml_clock(const nvml_api *api, nvml_device dev, int type)
{
    unsigned int mhz = 0;
    if (api->clock_info == NULL || api->clock_info(dev, type, &mhz) != NVML_SUCCESS)
        return -1;
    if (mhz > INT_MAX)
        return -1;
    return (int)mhz;
}

int env_nvml_query(const char *pci_bus_id, env_nvml *out)
{
    nvml_api api;
    nvml_device dev = NULL;
    int rc, initialised = 0;

    if (out == NULL) {
        errno = EINVAL;
        return -1;
    }
    memset(&api, 0, sizeof api);
    memset(out, 0, sizeof *out);
    snprintf(out->driver_version, sizeof out->driver_version, "unknown");
    out->sm_clock_mhz = out->mem_clock_mhz = -1;
    out->pcie_gen = out->pcie_width = -1;
    out->pcie_gen_max = out->pcie_width_max = -1;

    if (nvml_load(&api, out) != 0)
        goto out;
    rc = api.init();
    if (rc != NVML_SUCCESS) {
        nvml_reason(out, &api, "nvmlInit_v2", rc);
        goto out;
    }
    initialised = 1;

    if (api.driver_version != NULL) {
        char v[NVML_DRIVER_VERSION_LEN];
        if (api.driver_version(v, sizeof v) == NVML_SUCCESS) {
            v[sizeof v - 1] = '\0';
            snprintf(out->driver_version, sizeof out->driver_version, "%.63s", v);
        }
    }
    if (pci_bus_id == NULL || pci_bus_id[0] == '\0') {
        nvml_set_reason(out, "no PCI bus id given");
        goto out;
    }
    rc = api.handle_by_bus_id(pci_bus_id, &dev);
    if (rc != NVML_SUCCESS) {
        char what[ENV_STR];
        snprintf(what, sizeof what, "nvmlDeviceGetHandleByPciBusId_v2(%.64s)", pci_bus_id);
        nvml_reason(out, &api, what, rc);
        goto out;
    }

    out->available = 1;
    out->sm_clock_mhz = nvml_clock(&api, dev, NVML_CLOCK_SM);
    out->mem_clock_mhz = nvml_clock(&api, dev, NVML_CLOCK_MEM);
    out->pcie_gen = nvml_uint(api.pcie_gen, dev);
    out->pcie_width = nvml_uint(api.pcie_width, dev);
    out->pcie_gen_max = nvml_uint(api.pcie_gen_max, dev);
    out->pcie_width_max = nvml_uint(api.pcie_width_max, dev);

out:
    if (initialised)
        api.shutdown();
    if (api.lib != NULL)
        dlclose(api.lib);
    return 0;
}

/* --- the clock session ------------------------------------------------------------------------- */

typedef int (*nvml_u64_fn)(nvml_device device, unsigned long long *value);
typedef int (*nvml_lock_fn)(nvml_device device, unsigned int min_mhz, unsigned int max_mhz);
typedef int (*nvml_reset_fn)(nvml_device device);

struct env_clocks {
    nvml_api api;
    nvml_device dev;
    nvml_u64_fn reasons; /* nvmlDeviceGetCurrentClocksEventReasons, or the older Throttle name */
    nvml_clock_fn app_clock, max_clock;
    nvml_lock_fn lock;
    nvml_reset_fn reset;
    int locked;
};

int env_clocks_open(const char *pci_bus_id, env_clocks **out, char *reason, size_t len)
{
    env_nvml scratch;
    env_clocks *c = calloc(1, sizeof *c);
    int rc;

    *out = NULL;
    if (c == NULL) {
        snprintf(reason, len, "out of memory");
        return -1;
    }
    memset(&scratch, 0, sizeof scratch);
    if (nvml_load(&c->api, &scratch) != 0) {
        snprintf(reason, len, "%s", scratch.reason);
        goto fail;
    }
    if ((rc = c->api.init()) != NVML_SUCCESS) {
        nvml_reason(&scratch, &c->api, "nvmlInit_v2", rc);
        snprintf(reason, len, "%s", scratch.reason);
        goto fail;
    }
    if (pci_bus_id == NULL || (rc = c->api.handle_by_bus_id(pci_bus_id, &c->dev)) != NVML_SUCCESS) {
        snprintf(reason, len, "no NVML device for PCI bus id %s", pci_bus_id ? pci_bus_id : "(none)");
        c->api.shutdown();
        goto fail;
    }
    c->reasons = (nvml_u64_fn)dlsym(c->api.lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (c->reasons == NULL)
        c->reasons = (nvml_u64_fn)dlsym(c->api.lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    c->app_clock = (nvml_clock_fn)dlsym(c->api.lib, "nvmlDeviceGetApplicationsClock");
    c->max_clock = (nvml_clock_fn)dlsym(c->api.lib, "nvmlDeviceGetMaxClockInfo");
    c->lock = (nvml_lock_fn)dlsym(c->api.lib, "nvmlDeviceSetGpuLockedClocks");
    c->reset = (nvml_reset_fn)dlsym(c->api.lib, "nvmlDeviceResetGpuLockedClocks");
    *out = c;
    return 0;
fail:
    if (c->api.lib != NULL)
        dlclose(c->api.lib);
    free(c);
    return -1;
}

void env_clocks_read(env_clocks *c, double *sm_mhz, double *mem_mhz, unsigned long long *reasons)
{
    *sm_mhz = *mem_mhz = NAN;
    *reasons = 0;
    if (c == NULL)
        return;
    int sm = nvml_clock(&c->api, c->dev, NVML_CLOCK_SM), mem = nvml_clock(&c->api, c->dev, NVML_CLOCK_MEM);
    if (sm >= 0)
        *sm_mhz = sm;
    if (mem >= 0)
        *mem_mhz = mem;
    if (c->reasons != NULL && c->reasons(c->dev, reasons) != NVML_SUCCESS)
        *reasons = 0;
}

double env_clocks_target_sm(env_clocks *c)
{
    unsigned int mhz = 0;
    if (c == NULL)
        return NAN;
    if (c->app_clock != NULL && c->app_clock(c->dev, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS && mhz > 0)
        return mhz;
    if (c->max_clock != NULL && c->max_clock(c->dev, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS && mhz > 0)
        return mhz;
    return NAN;
}

int env_clocks_lock(env_clocks *c, char *reason, size_t len)
{
    double target = env_clocks_target_sm(c);
    int rc;
    if (c == NULL || c->lock == NULL || !(target > 0)) {
        snprintf(reason, len, "NVML cannot lock clocks here (no nvmlDeviceSetGpuLockedClocks or no target clock)");
        return -1;
    }
    if ((rc = c->lock(c->dev, (unsigned)target, (unsigned)target)) != NVML_SUCCESS) {
        const char *words = c->api.error_string ? c->api.error_string(rc) : NULL;
        snprintf(reason, len, "nvmlDeviceSetGpuLockedClocks(%u MHz) failed: %s (%d)", (unsigned)target,
                 words ? words : "NVML error", rc);
        return -1;
    }
    c->locked = 1;
    return 0;
}

int env_clocks_locked(const env_clocks *c) { return c != NULL && c->locked; }

void env_clocks_close(env_clocks *c)
{
    if (c == NULL)
        return;
    if (c->locked && c->reset != NULL)
        c->reset(c->dev);
    c->api.shutdown();
    dlclose(c->api.lib);
    free(c);
}
