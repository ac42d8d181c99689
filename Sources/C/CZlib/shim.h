// zlib (Debian zlib1g-dev): the web remote gzips its page once at start.
#include <zlib.h>
