#ifndef FERMATA_THREAD_SHIM_H
#define FERMATA_THREAD_SHIM_H
/// Names the calling thread (at most 15 bytes are kept), for `top -H` and crash reports.
void fermata_set_thread_name(const char *name);
#endif
