#ifndef FERMATA_CURL_SHIM_H
#define FERMATA_CURL_SHIM_H
/*
 * libcurl for network streams, behind typed calls: curl_easy_setopt and curl_easy_getinfo are variadic, which Swift
 * cannot call. One transfer = one fm_curl: an easy handle inside its own multi handle, driven by the stream thread
 * that owns it (fm_curl_pump), so a read can wait for bytes with a bound and be cancelled between waits.
 *
 * A handle belongs to one thread (a stream's thread). fm_curl_global_init may be called from any thread, once.
 */
#include <stddef.h>
#include <stdint.h>

typedef struct fm_curl fm_curl;

/* The write and header callbacks: return the bytes taken; FM_CURL_PAUSE pauses the transfer (the body only);
 * anything else aborts it. */
typedef size_t (*fm_curl_data_fn)(void *context, const char *bytes, size_t count);
#define FM_CURL_PAUSE 0x10000001

typedef struct fm_curl_settings {
    const char *url;
    const char *user_agent;
    long connect_timeout_ms;   /* name resolution, TCP and TLS together */
    long low_speed_seconds;    /* fewer than low_speed_bytes a second for this long fails the transfer */
    long low_speed_bytes;
    long max_redirects;
    int icy_metadata;          /* send "Icy-MetaData: 1" */
} fm_curl_settings;

/* Once per process, before the first fm_curl_open (libcurl's global set-up is not thread-safe on old versions). */
int fm_curl_global_init(void);

/* A transfer of settings->url (http and https only, redirects too); NULL when libcurl cannot make one. The callbacks
 * are called from fm_curl_pump and fm_curl_resume on the owning thread. */
fm_curl *fm_curl_open(const fm_curl_settings *settings, void *context, fm_curl_data_fn on_body,
                      fm_curl_data_fn on_header, char *err, size_t err_size);
void fm_curl_close(fm_curl *handle);

/* Drives the transfer: waits up to wait_ms for the socket, then lets libcurl work (which calls the callbacks).
 * Returns 1 while the transfer runs, 0 once it has finished; then fm_curl_result says how. */
int fm_curl_pump(fm_curl *handle, int wait_ms);
/* After the end: 0 when the transfer completed, else libcurl's code with its text in err. */
int fm_curl_result(fm_curl *handle, char *err, size_t err_size);
/* Resumes a body the write callback paused (the callback may be called from inside this call). */
void fm_curl_resume(fm_curl *handle);
/* The last response's HTTP status (0 before one arrived), and the URL it came from after redirects. */
long fm_curl_status(fm_curl *handle);
const char *fm_curl_effective_url(fm_curl *handle);
/* The libcurl version and its TLS library ("libcurl/7.88.1 OpenSSL/3.0.17"), for doctor and the docs. */
const char *fm_curl_version(void);

#endif
