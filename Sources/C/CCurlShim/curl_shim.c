// libcurl behind typed calls: see include/curl_shim.h for the contract.
#include "curl_shim.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fm_curl {
    CURLM *multi;
    CURL *easy;
    struct curl_slist *headers;
    struct curl_slist *aliases;
    void *context;
    fm_curl_data_fn on_body;
    fm_curl_data_fn on_header;
    int finished;
    CURLcode result;
    char error[CURL_ERROR_SIZE];
};

int fm_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }

static size_t body(char *bytes, size_t size, size_t count, void *opaque) {
    fm_curl *h = opaque;
    size_t taken = h->on_body(h->context, bytes, size * count);
    return taken == (size_t)FM_CURL_PAUSE ? CURL_WRITEFUNC_PAUSE : taken;
}

static size_t header(char *bytes, size_t size, size_t count, void *opaque) {
    fm_curl *h = opaque;
    return h->on_header(h->context, bytes, size * count);
}

static void say(char *err, size_t size, const char *text) {
    if (err && size) snprintf(err, size, "%s", text);
}

fm_curl *fm_curl_open(const fm_curl_settings *s, void *context, fm_curl_data_fn on_body,
                      fm_curl_data_fn on_header, char *err, size_t err_size) {
    fm_curl *h = calloc(1, sizeof *h);
    if (!h) { say(err, err_size, "out of memory"); return NULL; }
    h->context = context;
    h->on_body = on_body;
    h->on_header = on_header;
    h->multi = curl_multi_init();
    h->easy = curl_easy_init();
    if (!h->multi || !h->easy) { say(err, err_size, "libcurl cannot make a transfer"); fm_curl_close(h); return NULL; }
    CURL *e = h->easy;
    int ok = 1;
    ok &= curl_easy_setopt(e, CURLOPT_URL, s->url) == CURLE_OK;
    /* Only http and https, for the URL and for every redirect: a radio cannot send the player to file:// or ftp://. */
    ok &= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_MAXREDIRS, s->max_redirects) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, s->connect_timeout_ms) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, s->low_speed_bytes) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, s->low_speed_seconds) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_FAILONERROR, 1L) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_USERAGENT, s->user_agent) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, h->error) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, body) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_WRITEDATA, h) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_HEADERDATA, h) == CURLE_OK;
    /* SHOUTcast v1 answers "ICY 200 OK", which libcurl 7.88 takes for HTTP/0.9 (refused) unless it is named an alias
       of "HTTP/1.0 200 OK"; HTTP/0.9 itself stays refused, so a server answering with anything but HTTP is an error. */
    h->aliases = curl_slist_append(NULL, "ICY 200 OK");
    ok &= h->aliases && curl_easy_setopt(e, CURLOPT_HTTP200ALIASES, h->aliases) == CURLE_OK;
    /* TLS through the system's certificate store (libcurl's default CA path on Debian), peers verified. */
    ok &= curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 16384L) == CURLE_OK;
    if (s->icy_metadata) {
        h->headers = curl_slist_append(NULL, "Icy-MetaData: 1");
        ok &= h->headers && curl_easy_setopt(e, CURLOPT_HTTPHEADER, h->headers) == CURLE_OK;
    }
    if (!ok) { say(err, err_size, "libcurl refused a setting"); fm_curl_close(h); return NULL; }
    if (curl_multi_add_handle(h->multi, e) != CURLM_OK) {
        say(err, err_size, "libcurl cannot start the transfer");
        fm_curl_close(h);
        return NULL;
    }
    return h;
}

void fm_curl_close(fm_curl *h) {
    if (!h) return;
    if (h->multi && h->easy) curl_multi_remove_handle(h->multi, h->easy);
    if (h->easy) curl_easy_cleanup(h->easy);
    if (h->multi) curl_multi_cleanup(h->multi);
    if (h->headers) curl_slist_free_all(h->headers);
    if (h->aliases) curl_slist_free_all(h->aliases);
    free(h);
}

int fm_curl_pump(fm_curl *h, int wait_ms) {
    if (h->finished) return 0;
    int running = 0;
    if (wait_ms > 0) curl_multi_poll(h->multi, NULL, 0, wait_ms, NULL);
    CURLMcode rc = curl_multi_perform(h->multi, &running);
    if (rc != CURLM_OK) {
        h->finished = 1;
        h->result = CURLE_FAILED_INIT;
        snprintf(h->error, sizeof h->error, "%s", curl_multi_strerror(rc));
        return 0;
    }
    int queued = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(h->multi, &queued))) {
        if (message->msg == CURLMSG_DONE && message->easy_handle == h->easy) {
            h->finished = 1;
            h->result = message->data.result;
        }
    }
    return !h->finished;
}

int fm_curl_result(fm_curl *h, char *err, size_t err_size) {
    if (h->result != CURLE_OK) say(err, err_size, h->error[0] ? h->error : curl_easy_strerror(h->result));
    return (int)h->result;
}

void fm_curl_resume(fm_curl *h) { curl_easy_pause(h->easy, CURLPAUSE_CONT); }

long fm_curl_status(fm_curl *h) {
    long status = 0;
    curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

const char *fm_curl_effective_url(fm_curl *h) {
    char *url = NULL;
    curl_easy_getinfo(h->easy, CURLINFO_EFFECTIVE_URL, &url);
    return url ? url : "";
}

const char *fm_curl_version(void) { return curl_version(); }
