#include <mpg123.h>

/* mpg123_param2 replaced mpg123_param in libmpg123 1.32 (API 46); one call for both, without a deprecation warning. */
static inline int fm_mpg123_set(mpg123_handle *handle, enum mpg123_parms key, long value) {
#if MPG123_API_VERSION >= 46
    return mpg123_param2(handle, key, value, 0);
#else
    return mpg123_param(handle, key, value, 0);
#endif
}
