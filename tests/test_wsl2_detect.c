#define _XOPEN_SOURCE 700
/* test_wsl2_detect.c - wsl_detect (harness/wsl.h) against fake trees of the machines ringbench meets:
 * WSL2 distributions on the 5.15 and 6.6 kernels with and without the GPU path, a WSL2 kernel
 * without /dev/dxg, Docker Desktop's WSL2 backend (with and without --gpus), WSL1, a native host, a
 * native host with WSL variables leaked into its environment; every one classified, its evidence
 * checked, and the provenance attributes the results file gets (wsl_foreach). Label: unit.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "wsl.h"

static void put(const char *root, const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            CHECK(mkdir(path, 0755) == 0 || errno == EEXIST);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    CHECK_MSG(f != NULL, "cannot create %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(p);
}

/* A fake environment: "NAME=value" strings, NULL-terminated. */
static const char *fake_getenv(void *ctx, const char *name)
{
    for (const char *const *e = ctx; e && *e; e++) {
        size_t n = strlen(name);
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    }
    return NULL;
}

typedef struct tree_case {
    const char *name;
    const char *osrelease, *version; /* NULL: file absent */
    int dxg, libcuda, interop, dockerenv;
    const char *env[3];
    wsl_kind want;
    const char *want_gpu;    /* wsl_gpu provenance value */
    const char *must_say[3]; /* substrings the evidence must hold */
} tree_case;

#define V515 \
    "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@f9c826d3017f) (gcc (GCC) 11.2.0, GNU ld (GNU Binutils) 2.37) #1 SMP Tue Nov 5 00:21:55 UTC 2024\n"
#define V66 \
    "Linux version 6.6.36.3-microsoft-standard-WSL2 (root@3f7a5b6c8d9e) (gcc (GCC) 11.2.0, GNU ld (GNU Binutils) 2.37) #1 SMP PREEMPT_DYNAMIC Thu Jul 11 20:01:11 UTC 2024\n"
#define VWSL1 \
    "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) #1237-Microsoft Sat Sep 11 14:32:00 PST 2021\n"

static const tree_case CASES[] = {
    {"wsl2 5.15 with GPU",
     "5.15.167.4-microsoft-standard-WSL2\n",
     V515,
     1,
     1,
     1,
     0,
     {"WSL_DISTRO_NAME=Ubuntu-22.04", "WSL_INTEROP=/run/WSL/1234_interop", NULL},
     WSL_2,
     "dxgkrnl",
     {"osrelease '5.15.167.4-microsoft-standard-WSL2'", "/dev/dxg present", "WSL_DISTRO_NAME=Ubuntu-22.04"}},
    {"wsl2 6.6 with GPU",
     "6.6.36.3-microsoft-standard-WSL2\n",
     V66,
     1,
     1,
     0,
     0,
     {"WSL_DISTRO_NAME=Ubuntu", NULL},
     WSL_2,
     "dxgkrnl",
     {"6.6.36.3-microsoft-standard-WSL2", "/usr/lib/wsl/lib/libcuda.so present", "GPU through dxgkrnl"}},
    {"wsl2 without GPU",
     "5.15.167.4-microsoft-standard-WSL2\n",
     V515,
     0,
     0,
     1,
     0,
     {NULL},
     WSL_2,
     "none",
     {"no /dev/dxg", "binfmt_misc/WSLInterop present", NULL}},
    {"wsl2 dxg, no libcuda",
     "6.6.36.3-microsoft-standard-WSL2\n",
     V66,
     1,
     0,
     0,
     0,
     {NULL},
     WSL_2,
     "none",
     {"CUDA driver missing", NULL, NULL}},
    /* A custom kernel without Microsoft's name: /dev/dxg alone decides. */
    {"wsl2 custom kernel",
     "6.6.0-custom\n",
     "Linux version 6.6.0-custom\n",
     1,
     1,
     0,
     0,
     {NULL},
     WSL_2,
     "dxgkrnl",
     {"/dev/dxg present", NULL, NULL}},
    {"docker desktop wsl2 backend, --gpus all",
     "5.15.153.1-microsoft-standard-WSL2\n",
     V515,
     1,
     1,
     0,
     1,
     {NULL},
     WSL_2_CONTAINER,
     "dxgkrnl",
     {"/.dockerenv present", "Docker Desktop", "GPU through dxgkrnl"}},
    {"docker desktop wsl2 backend, no gpu",
     "5.15.153.1-microsoft-standard-WSL2\n",
     V515,
     0,
     0,
     0,
     1,
     {NULL},
     WSL_2_CONTAINER,
     "none",
     {"/.dockerenv present", "--gpus all", NULL}},
    {"wsl1",
     "4.4.0-19041-Microsoft\n",
     VWSL1,
     0,
     0,
     1,
     0,
     {"WSL_DISTRO_NAME=Ubuntu-20.04", NULL},
     WSL_1,
     "none",
     {"osrelease '4.4.0-19041-Microsoft'", "WSL1", "no CUDA"}},
    /* Only proc/version readable: the kernel string is taken from there. */
    {"wsl2, version only", NULL, V515, 1, 1, 0, 0, {NULL}, WSL_2, "dxgkrnl", {"proc/version", NULL, NULL}},
    {"native",
     "6.8.0-49-generic\n",
     "Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103)\n",
     0,
     0,
     0,
     0,
     {NULL},
     WSL_NATIVE,
     "none",
     {"=> native: no sign of WSL", NULL, NULL}},
    {"native, leaked WSL variables",
     "6.8.0-49-generic\n",
     "Linux version 6.8.0-49-generic\n",
     0,
     0,
     0,
     0,
     {"WSL_DISTRO_NAME=Ubuntu", NULL},
     WSL_NATIVE,
     "none",
     {"inherited environment", NULL, NULL}},
    {"native in docker", "6.8.0-49-generic\n", NULL, 0, 0, 0, 1, {NULL}, WSL_NATIVE, "none", {"native", NULL, NULL}},
    {"empty tree", NULL, NULL, 0, 0, 0, 0, {NULL}, WSL_NATIVE, "none", {"no sign of WSL", NULL, NULL}},
};

typedef struct prov {
    char keys[8][32], values[8][800];
    int n;
} prov;

static int collect(void *ctx, const char *key, const char *value)
{
    prov *p = ctx;
    if (p->n >= 8)
        return -1;
    snprintf(p->keys[p->n], sizeof p->keys[0], "%s", key);
    snprintf(p->values[p->n], sizeof p->values[0], "%s", value);
    p->n++;
    return 0;
}

static void run_case(const tree_case *c)
{
    char root[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/ringbench-wsl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        exit(1);
    }
    if (c->osrelease)
        put(root, "proc/sys/kernel/osrelease", c->osrelease);
    if (c->version)
        put(root, "proc/version", c->version);
    if (c->dxg)
        put(root, "dev/dxg", ""); /* a regular file stands in for the character device */
    if (c->libcuda) {
        put(root, "usr/lib/wsl/lib/libcuda.so", "");
        put(root, "usr/lib/wsl/lib/libcuda.so.1", "");
    }
    if (c->interop)
        put(root, "proc/sys/fs/binfmt_misc/WSLInterop", "enabled\ninterpreter /init\n");
    if (c->dockerenv)
        put(root, ".dockerenv", "");
    wsl_info w;
    CHECK(wsl_detect(root, fake_getenv, (void *)c->env, &w) == 0);
    CHECK_MSG(w.kind == c->want, "%s: kind %s, want %s (evidence: %s)", c->name, wsl_kind_name(w.kind),
              wsl_kind_name(c->want), w.evidence);
    for (int i = 0; i < 3 && c->must_say[i]; i++)
        CHECK_MSG(strstr(w.evidence, c->must_say[i]) != NULL, "%s: evidence lacks '%s': %s", c->name, c->must_say[i],
                  w.evidence);
    CHECK(wsl_kind_has_tdr(w.kind) == (c->want == WSL_2 || c->want == WSL_2_CONTAINER));
    prov p = {0};
    CHECK(wsl_foreach(&w, collect, &p) == 0);
    CHECK_INT(p.n, 4);
    CHECK_STR(p.keys[0], "wsl_kind");
    CHECK_STR(p.values[0], wsl_kind_name(c->want));
    CHECK_STR(p.keys[1], "wsl_evidence");
    CHECK_STR(p.values[1], w.evidence);
    CHECK_STR(p.keys[2], "wsl_distro");
    CHECK_STR(p.keys[3], "wsl_gpu");
    CHECK_MSG(strcmp(p.values[3], c->want_gpu) == 0, "%s: wsl_gpu %s, want %s", c->name, p.values[3], c->want_gpu);
    printf("%-40s %-15s %s\n", c->name, wsl_kind_name(w.kind), w.evidence);
    CHECK(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

int main(void)
{
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++)
        run_case(&CASES[i]);
    CHECK_STR(wsl_kind_name(WSL_NATIVE), "native");
    CHECK_STR(wsl_kind_name(WSL_1), "wsl1");
    CHECK_STR(wsl_kind_name(WSL_2), "wsl2");
    CHECK_STR(wsl_kind_name(WSL_2_CONTAINER), "wsl2_container");
    CHECK(wsl_detect(NULL, NULL, NULL, NULL) == -1);
    wsl_info live; /* the live system: whatever it is, an answer with evidence */
    CHECK(wsl_detect(NULL, NULL, NULL, &live) == 0 && live.evidence[0]);
    CHECK_DONE();
}
