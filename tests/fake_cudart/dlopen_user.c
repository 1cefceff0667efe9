/* tests/fake_cudart/dlopen_user.c — a program that loads the runtime itself
 * with dlopen (as Python extensions do), after its first synchronising call
 * has already reached the interposer: that call finds no runtime and says
 * so (cudaErrorUnknown, 999); the calls after the dlopen must find the one
 * just loaded and wait for their work, and so must the calls after the
 * program closed the runtime with dlclose and opened it again.
 *
 * usage: dlopen_user PATH_OF_LIBCUDART   (run under gar run)
 * Prints "dlopen_user: ok" and exits 0, or says what went wrong and exits 1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*sync_fn)(void *);
typedef int (*launch_fn)(void *, uint64_t, int, int);
typedef uint64_t (*pending_fn)(void *);

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    sync_fn sync;
    *(void **)&sync = dlsym(RTLD_DEFAULT, "cudaStreamSynchronize");
    if (!sync) {
        fprintf(stderr, "dlopen_user: no cudaStreamSynchronize before the dlopen (not preloaded?)\n");
        return 1;
    }
    int before = sync(NULL);
    int failures = before != 999;
    for (int round = 0; round < 2; round++) {
        void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
        if (!lib) {
            fprintf(stderr, "dlopen_user: %s\n", dlerror());
            return 1;
        }
        launch_fn launch;
        pending_fn pending;
        *(void **)&launch = dlsym(lib, "fakecudart_launch");
        *(void **)&pending = dlsym(lib, "fakecudart_pending");
        if (!launch || !pending) {
            fprintf(stderr, "dlopen_user: the fake's own calls are missing\n");
            return 1;
        }
        for (int i = 0; i < 20; i++) {
            launch(NULL, 1000000, 0, 0);
            int rc = sync(NULL);
            failures += rc != 0 || pending(NULL) != 0;
        }
        dlclose(lib);
    }
    if (failures) {
        fprintf(stderr, "dlopen_user: %d failures (before the dlopen: %d)\n", failures, before);
        return 1;
    }
    printf("dlopen_user: ok\n");
    return 0;
}
